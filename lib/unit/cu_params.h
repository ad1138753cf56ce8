/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cu_params.c: how a function's code receives its parameters (pahole 1.32's
 * judgement, for the kernel's function policy). */
#ifndef D2B_UNIT_CU_PARAMS_H
#define D2B_UNIT_CU_PARAMS_H

#include <stdint.h>

#include "unit/cu.h"
#include "unit/unit.h"

/* The enum unit_func_flags that die's parameters earn: UNIT_FUNC_OPTIMIZED,
 * _UNEXPECTED_REG, _REORDERED, _NOCALL. */
uint32_t cu_params__judge(struct cu *w, const struct cu_die *die);

#endif
