/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's variable policy: which variables become VARs when only the
 * per-CPU ones are wanted (D2B_VARS_PERCPU).
 */
#ifndef D2B_KERNEL_VAR_POLICY_H
#define D2B_KERNEL_VAR_POLICY_H

#include <stdbool.h>

#include "dwarf2btf.h"

/* The section the kernel keeps per-CPU variables in */
#define KERNEL_PERCPU_SECTION ".data..percpu"

/* Is the variable name, in section secname (NULL: unknown), wanted? */
bool var_policy__wanted(enum d2b_vars vars, const char *name, const char *secname);

#endif
