/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * lib/kernel: the kernel's encoding policy (what pahole's BTF encoder does
 * for kernel builds): which functions become FUNC, and the kfunc DECL_TAGs
 * from .BTF_ids.  Decided once all units are merged, because the rules
 * compare a function across units.
 */
#ifndef D2B_KERNEL_FUNC_POLICY_H
#define D2B_KERNEL_FUNC_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf2btf.h"

struct elf_funcs;

/* One FUNC of the merged BTF, as one unit saw it (unit order) */
struct func_rec {
	uint32_t id;		/* FUNC in the merged BTF */
	uint32_t flags;		/* enum unit_func_flags */
};

typedef void (*func_policy_note_fn)(void *arg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Decide which FUNCs of btf stay: drop[id - start_id] is set for each FUNC
 * to leave out (drop has d2b_btf__nr_types(btf) entries, zeroed by the
 * caller).  Returns the number of FUNCs dropped, or a negative errno.
 */
int func_policy__select(const struct d2b_btf *btf, const struct func_rec *recs, size_t nr,
			const struct elf_funcs *ef, bool consistent, uint8_t *drop,
			func_policy_note_fn note, void *note_arg);

/*
 * The FUNCs of btf that ef lists as kfuncs: with decl_tags, add DECL_TAG
 * "bpf_kfunc" (and "bpf_fastcall"); with arena_attrs, give the pointers an
 * arena kfunc's flags name (KF_ARENA_RET/ARG1/ARG2) the attribute
 * TYPE_TAG "address_space(1)".  Returns how many kfuncs there are.
 */
int func_policy__tag_kfuncs(struct d2b_btf *btf, const struct elf_funcs *ef, bool decl_tags,
			    bool arena_attrs);

#endif
