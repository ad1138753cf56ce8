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

struct diag;
struct elf_funcs;

/* What func_judge.c saw of a function's code in one unit */
enum func_rec_flags {
	FUNC_REC_EXTERNAL = 1 << 0,		/* DW_AT_external */
	FUNC_REC_UNEXPECTED_REG = 1 << 1,	/* a parameter not where the ABI puts it */
	FUNC_REC_OPTIMIZED = 1 << 2,		/* a parameter optimized out */
	FUNC_REC_CLONE_CHANGED = 1 << 3,	/* its code takes other parameters */
	FUNC_REC_REORDERED = 1 << 4,		/* its code takes them in another order */
	FUNC_REC_NOCALL = 1 << 5,		/* clang changed its signature (DW_CC_nocall) */
	/* true_signature: its abstract origin, read with this clone's
	 * locations in the origin's order, has a parameter not where the ABI
	 * puts it (pahole shares the locations so) */
	FUNC_REC_ORIGIN_UNEXPECTED = 1 << 6,
	/* bits 24-31, with FUNC_REC_CLONE_CHANGED: how many parameters the
	 * code's DIE itself lists, a varargs' "..." one of them (at most 255),
	 * which pahole compares */
	FUNC_REC_OWN_PARAMS_SHIFT = 24,
};

/* One FUNC of the merged BTF, as one unit saw it (unit order) */
struct func_rec {
	uint32_t id;		/* FUNC in the merged BTF */
	uint32_t flags;		/* enum func_rec_flags */
	uint64_t addr;		/* its code's address (DW_AT_low_pc), 0 if none */
};

/* The base's FUNCs that a split BTF repeats as its own (pahole 1.32): each
 * one's ID in the base, and whether .BTF_ids lists it as a kfunc (flags) */
struct func_copy {
	uint32_t id;
	const char *name;	/* its name in the split BTF; NULL: the base's */
	bool kfunc;
	uint32_t kfunc_flags;
};

struct func_copies {
	struct func_copy *v;
	size_t nr, cap;
};

void func_copies__release(struct func_copies *fc);
/* FUNCs to give another name (true_signature: the clone's), by ID */
struct func_rename {
	uint32_t id;
	const char *name;	/* lives as long as the struct elf_funcs */
};
struct func_renames {
	struct func_rename *v;
	size_t nr, cap;
};
void func_renames__release(struct func_renames *fr);
/* Rename the FUNCs of fr (before any pruning: the IDs are select's).
 * 0, or a negative errno. */
int func_policy__rename(struct d2b_btf *btf, const struct func_renames *fr);

/* Which rules (the theory in func_policy.c) */
struct func_policy_opts {
	bool consistent;	/* consistent_func: prototypes must agree */
	bool pahole_1_31;	/* pahole 1.31's rules, not 1.32's */
	/* 1.32, split BTF: where the FUNC that stays is the base's, it is
	 * added here, to be repeated in the split BTF (NULL: not) */
	struct func_copies *copies;
	/* 1.32's true_signature: a name whose code is a clone (foo.isra.0)
	 * keeps that clone's FUNC, to be renamed (renames) */
	bool true_signature;
	struct func_renames *renames;
};

/* Is p a release whose rules are here (D2B_KERNEL_POLICY_NEWEST: the newest)? */
bool func_policy__known(enum d2b_kernel_policy p);
/* The rules opts asks for (consistent_funcs, kernel_policy, true_signature);
 * copies and renames NULL. */
void func_policy_opts__init(struct func_policy_opts *po, const struct d2b_opts *opts);

/* The kfuncs among the FUNCs that stay: each FUNC, and its flags from
 * .BTF_ids (enum elf_kf_flags); by FUNC ID once func_kfuncs__remap()ped. */
struct func_kfunc {
	uint32_t id;
	uint32_t flags;
};

struct func_kfuncs {
	struct func_kfunc *v;
	size_t nr, cap;
};

void func_kfuncs__release(struct func_kfuncs *kf);
/* The FUNCs renumbered by map (ID -> new ID, 0: gone), in ID order. */
void func_kfuncs__remap(struct func_kfuncs *kf, const uint32_t *map);

/*
 * Decide which FUNCs of btf stay: drop[id - start_id] is set for each FUNC
 * to leave out (drop has d2b_btf__nr_types(btf) entries, zeroed by the
 * caller).  Each FUNC that stays (btf's own: not its base's) and that ef
 * lists as a kfunc is added to *kfuncs, if not NULL (the lookup is made
 * for the decision anyway).  Returns the number of FUNCs dropped, or a
 * negative errno.
 */
int func_policy__select(const struct d2b_btf *btf, const struct func_rec *recs, size_t nr,
			const struct elf_funcs *ef, const struct func_policy_opts *po, uint8_t *drop,
			struct diag *diag, struct func_kfuncs *kfuncs);

/*
 * Give btf (split BTF) its own FUNC for each of the base's in fc, over the
 * base's prototype; each kfunc among them joins kfuncs (after the others:
 * the IDs stay in order).  0, or a negative errno.
 */
int func_policy__add_copies(struct d2b_btf *btf, const struct func_copies *fc,
			    struct func_kfuncs *kfuncs);

/*
 * The kfuncs (in ID order): with decl_tags, add DECL_TAG "bpf_kfunc" (and
 * "bpf_fastcall"); with arena_attrs, give the pointers an arena kfunc's
 * flags name (KF_ARENA_RET/ARG1/ARG2) the attribute TYPE_TAG
 * "address_space(1)".  Returns how many kfuncs there are.
 */
int func_policy__tag_kfuncs(struct d2b_btf *btf, const struct func_kfuncs *kfuncs, bool decl_tags,
			    bool arena_attrs);

#endif
