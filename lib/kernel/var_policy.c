// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Variables the kernel wants: with D2B_VARS_PERCPU, those in .data..percpu,
 * less the compiler- and macro-made ones that pahole leaves out by name
 * (their names say they carry nothing a BPF program could use).
 */
#include <string.h>

#include "kernel/var_policy.h"

static bool is_noise(const char *name)
{
	static const char *const prefixes[] = {
		"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_",
		"__func_stack_frame_non_standard_",
	};
	size_t i;

	if (name[0] != '_')
		return false;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

bool var_policy__wanted(enum d2b_vars vars, const char *name, const char *secname)
{
	switch (vars) {
	case D2B_VARS_ALL:
		return true;
	case D2B_VARS_PERCPU:
		return secname && !strcmp(secname, KERNEL_PERCPU_SECTION) && !is_noise(name);
	default:
		return false;
	}
}
