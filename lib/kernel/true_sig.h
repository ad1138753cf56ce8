/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* true_sig.c: clang's changed signatures (DW_CC_nocall) as what the code
 * takes, pahole 1.32's true_signature. */
#ifndef D2B_KERNEL_TRUE_SIG_H
#define D2B_KERNEL_TRUE_SIG_H

#include <stdint.h>

#include "kernel/abi_regs.h"
#include "unit/func_facts.h"

/*
 * The FUNC_PROTO of what the code of fn (clang's, DW_CC_nocall) takes,
 * returning its declared type; *flags gets FUNC_REC_OPTIMIZED and
 * FUNC_REC_UNEXPECTED_REG as the rebuilding found the parameters.
 * Returns the prototype's ID or a negative errno.
 */
int true_sig__proto(struct fn_facts *fn, const struct abi_regs *abi, uint32_t *flags);

#endif
