/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types of no size where the kernel needs a size (members, parameters,
 * returns), and small enum members it sizes wrong, mended in a merged BTF:
 * see sizeless.c.
 */
#ifndef D2B_MERGE_SIZELESS_H
#define D2B_MERGE_SIZELESS_H

#include <stdint.h>

#include "dwarf2btf.h"

struct diag;

/*
 * Mend btf in place (members of no size become arrays of bytes; pointers
 * and typedefs to prototypes that cannot be said point to void).  Returns
 * how many types must still go (0: none), with *ret_drop (malloc()ed, one
 * byte per own type) marking them for prune__funcs(); or a negative errno.
 */
int sizeless__repair(struct d2b_btf *btf, uint8_t **ret_drop, struct diag *diag);

#endif
