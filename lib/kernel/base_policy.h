/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What converting over a base BTF that pahole made asks of ours
 * (base_policy.c).
 */
#ifndef D2B_KERNEL_BASE_POLICY_H
#define D2B_KERNEL_BASE_POLICY_H

#include <stdbool.h>

#include "dwarf2btf.h"

/*
 * Must multi-dimensional arrays be written flat over base (one ARRAY of
 * all the elements, as pahole writes them)?  Yes over a base that has no
 * ARRAY of ARRAY: none of the types above such arrays would match the
 * base's otherwise.
 */
bool base_policy__flat_arrays(const struct d2b_btf *base);

#endif
