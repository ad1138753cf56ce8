/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cu_truesig.c: clang's changed signatures (DW_CC_nocall) as what the code
 * takes, pahole 1.32's true_signature. */
#ifndef D2B_UNIT_CU_TRUESIG_H
#define D2B_UNIT_CU_TRUESIG_H

#include <stdint.h>

#include "unit/cu.h"

/*
 * The FUNC_PROTO of what the code of die (clang's, DW_CC_nocall) takes,
 * returning decl's type; *flags gets UNIT_FUNC_OPTIMIZED and
 * UNIT_FUNC_UNEXPECTED_REG as the rebuilding found the parameters.
 * Returns the prototype's ID or a negative errno.
 */
int cu_truesig__proto(struct cu *w, const struct cu_die *die, const struct cu_die *decl,
		      uint32_t *flags);

#endif
