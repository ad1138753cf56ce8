/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * func_judge.c: how each function's code receives its parameters, and the
 * prototype a changed one gets, as pahole judges them -- the kernel's
 * struct unit_func_policy, which lib/unit calls as it walks.
 */
#ifndef D2B_KERNEL_FUNC_JUDGE_H
#define D2B_KERNEL_FUNC_JUDGE_H

#include "dwarf2btf.h"
#include "unit/func_facts.h"

/* The policy for opts (kernel_policy, true_signature; opts must outlive
 * the walks), into *ret: its flags are enum func_rec_flags. */
void func_judge__policy(const struct d2b_opts *opts, struct unit_func_policy *ret);

#endif
