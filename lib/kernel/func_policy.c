// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's function policy, as pahole applies it to kernel builds: its
 * release 1.32's rules (the default), or 1.31's (func_policy_opts).
 *
 * Input: the merged BTF, and one record per (unit, function) with its FUNC
 * there, the address of its code (0: an inline-only DIE) and what
 * func_judge.c saw of its parameters as the unit was walked.  The merge made equal FUNCs one, so a
 * name with several FUNC IDs has prototypes that differ in some way.
 *
 * Pass 1: sort the records by (name, unit order).
 * Pass 2, per name: the name must be an ELF function symbol (when the file
 * has any; a file without function symbols keeps its external functions).
 *
 *   pahole 1.31: with consistent_funcs, the name is left out when its
 *   prototypes differ (compared loosely, as pahole does: named types by
 *   name, a const on one side ignored, function pointers by return type
 *   and arity), or a unit saw a parameter in another register than the
 *   ABI's, or its ELF symbols have several addresses.  Otherwise the first
 *   record met stands for the name.
 *
 *   pahole 1.32: the records with code come first (in unit order); the
 *   first whose code is at one of the name's symbols stands for the name,
 *   preferring one that did not lose parameters where its ABI changed (so
 *   a strong definition wins over a __weak one, whose code no symbol
 *   names, and code over an inline-only DIE); else the first with code.
 *   The name is left out, consistent_funcs or not, when its symbols have
 *   several addresses, when the record standing for it lost parameters
 *   and its ABI changed (a .isra/.constprop symbol at its code, or clang's
 *   DW_CC_nocall: a prototype would mislead a tracer), when a unit's code
 *   takes the parameters in another order, or in another register than
 *   the ABI's.  With consistent_funcs, also when the prototypes differ
 *   (compared as 1.31 does, but function pointers' parameters too).
 *
 *   pahole 1.32 with true_signature, first: the records are met in unit
 *   order, each one's register and location flags joined with those of
 *   the records met before it (the first one's: with all of them, as
 *   pahole combines them).  The first record whose code is at a symbol of
 *   the name that has a '.' (foo.isra.0, foo.constprop.1) and whose
 *   joined flags say its parameters are in the ABI's registers stands for
 *   the name, renamed to that symbol's name -- even where the name's
 *   symbols have several addresses, since the clone's address is the
 *   one.  Its prototype is what func_judge.c made of the clone's DWARF.
 *   Otherwise the rules above decide.
 *
 * Output: a drop mark per FUNC, and the FUNC that stays; when ef says the
 * name is a kfunc, that FUNC is listed for func_policy__tag_kfuncs() (the
 * lookup made once, here).  lib/finish/prune.c removes the dropped FUNCs with
 * their DECL_TAGs and the prototypes nothing else uses.  In split BTF (a
 * module), a record whose FUNC the merge found in the base takes part in
 * the comparison, and a FUNC equal to the base's is not repeated -- but
 * under 1.32 one whose prototype refers to a typedef is (func_copies):
 * pahole 1.32 never merges a module's typedefs, nor what refers to them,
 * into the base's.
 *
 * Notes, in words and as data (struct d2b_func_note), name by name, so
 * that a front end can say them as pahole --verbose does: where the
 * prototypes differ, consistent_func or not, as pahole's combining finds
 * it -- the first record (1.32: the first with code) against each next,
 * until one differs or until a record met so far has a parameter in an
 * unexpected register (1.32: or reordered ones), after which pahole
 * compares no further; then why the name is left out, the reasons
 * checked in pahole's precedence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "btf/btf.h"
#include "base/vec.h"
#include "kernel/elf_funcs.h"
#include "kernel/func_policy.h"

bool func_policy__known(enum d2b_kernel_policy p)
{
	switch (p) {
	case D2B_KERNEL_POLICY_NEWEST:
	case D2B_KERNEL_POLICY_PAHOLE_1_31:
	case D2B_KERNEL_POLICY_PAHOLE_1_32:
		return true;
	default:
		return false;
	}
}

void func_policy_opts__init(struct func_policy_opts *po, const struct d2b_opts *opts)
{
	*po = (struct func_policy_opts){
		.consistent = opts->consistent_funcs,
		.pahole_1_31 = opts->kernel_policy == D2B_KERNEL_POLICY_PAHOLE_1_31,
		.true_signature = opts->true_signature,
	};
}

enum {
	LOOSE_MAX_STEPS = 64,	/* reference chains followed when comparing */
	LOOSE_MAX_DEPTH = 8,	/* function pointers' prototypes nested (1.32) */
	/* the flags after which pahole 1.32 compares a name's prototypes no
	 * further (1.31: FUNC_REC_UNEXPECTED_REG alone) */
	STOP_132 = FUNC_REC_UNEXPECTED_REG | FUNC_REC_ORIGIN_UNEXPECTED | FUNC_REC_REORDERED,
};

/* dwarf2btf's words for each enum d2b_func_why */
static const char *const why_said[] = {
	[D2B_FUNC_NO_SYMBOL] = "no ELF function symbol",
	[D2B_FUNC_STATIC_NO_SYMBOLS] = "static, and the file has no function symbols",
	[D2B_FUNC_AMBIGUOUS] = "its symbols have several addresses",
	[D2B_FUNC_OPTIMIZED] = "parameters optimized out where its ABI changed",
	[D2B_FUNC_REORDERED] = "its code takes its parameters in another order",
	[D2B_FUNC_UNEXPECTED_REG] = "a parameter is not in the ABI's register",
	[D2B_FUNC_CLONE_CHANGED] = "a clone of it takes other parameters",
	[D2B_FUNC_INCONSISTENT] = "prototypes differ between compile units",
};

struct entry {
	const char *name;
	uint64_t prefix[2];	/* name_prefix(name) */
	uint64_t addr;
	uint32_t id;
	uint32_t flags;
	uint32_t seq;
};

/*
 * A name's first 16 bytes (NUL-padded) as two big-endian numbers: two
 * names' prefixes compare as strcmp() compares the names, unless they are
 * equal, so the sort reads the names themselves only then (kernel function
 * names share their first 8 bytes often: __x64_sys_, trace_event_).
 */
static void name_prefix(const char *s, uint64_t ret[2])
{
	int i, w;

	for (w = 0; w < 2; w++) {
		ret[w] = 0;
		for (i = 0; i < 8; i++) {
			ret[w] = ret[w] << 8 | (unsigned char)*s;
			if (*s)
				s++;
		}
	}
}

/* strcmp(a->name, b->name), from the prefixes where they differ */
static int entry_name_cmp(const struct entry *a, const struct entry *b)
{
	if (a->prefix[0] != b->prefix[0])
		return a->prefix[0] < b->prefix[0] ? -1 : 1;
	if (a->prefix[1] != b->prefix[1])
		return a->prefix[1] < b->prefix[1] ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = entry_name_cmp(a, b);

	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* STRUCT for a FWD of a struct, UNION for one of a union */
static unsigned int kind_fwd_as(const struct d2b_type *t)
{
	return d2b_kind(t) == D2B_KIND_FWD ? btf_fwd_kind(t) : d2b_kind(t);
}

/* pahole's types__match(): equal enough to be one function's prototype.
 * depth: how deep a function pointer's parameters are still compared
 * (pahole 1.32); 0 compares a prototype by return type and arity only
 * (pahole 1.31). */
static bool loose_equal(const struct d2b_btf *btf, uint32_t a, uint32_t b, int depth)
{
	int steps;

	for (steps = 0; steps < LOOSE_MAX_STEPS; steps++) {
		const struct d2b_type *ta, *tb;
		unsigned int ka, kb;

		if (a == b)
			return true;
		if (!a || !b)
			return false;
		ta = d2b_btf__type(btf, a);
		tb = d2b_btf__type(btf, b);
		if (!ta || !tb)
			return false;
		ka = kind_fwd_as(ta);
		kb = kind_fwd_as(tb);
		if (ka != kb) {
			if (ka == D2B_KIND_CONST) {
				a = ta->type;
				continue;
			}
			if (kb == D2B_KIND_CONST) {
				b = tb->type;
				continue;
			}
			return false;
		}
		switch (ka) {
		case D2B_KIND_INT:
			if (ta->size != tb->size || btf_int_word(ta) != btf_int_word(tb))
				return false;
			return !strcmp(d2b_btf__name(btf, a), d2b_btf__name(btf, b));
		case D2B_KIND_FLOAT:
			if (ta->size != tb->size)
				return false;
			return !strcmp(d2b_btf__name(btf, a), d2b_btf__name(btf, b));
		case D2B_KIND_TYPEDEF:
		case D2B_KIND_STRUCT:
		case D2B_KIND_UNION:
		case D2B_KIND_ENUM:
		case D2B_KIND_ENUM64:
			return !strcmp(d2b_btf__name(btf, a), d2b_btf__name(btf, b));
		case D2B_KIND_PTR:
		case D2B_KIND_VOLATILE:
		case D2B_KIND_CONST:
		case D2B_KIND_RESTRICT:
		case D2B_KIND_TYPE_TAG:
			a = ta->type;
			b = tb->type;
			break;
		case D2B_KIND_ARRAY:
			if (btf_array(ta)->nelems != btf_array(tb)->nelems)
				return false;
			a = btf_array(ta)->type;
			b = btf_array(tb)->type;
			break;
		case D2B_KIND_FUNC_PROTO: {
			unsigned int i, n = d2b_vlen(ta);

			if (n != d2b_vlen(tb))
				return false;
			for (i = 0; depth > 0 && i < n; i++) {
				if (!loose_equal(btf, btf_params(ta)[i].type, btf_params(tb)[i].type,
						 depth - 1))
					return false;
			}
			a = ta->type;
			b = tb->type;
			break;
		}
		default:
			return false;
		}
	}
	return false;
}

/*
 * Two FUNCs of one name: where do their prototypes differ (loosely), as
 * pahole looks, first the number of parameters, then the return type,
 * then each parameter's type?  0 where they match; *ret_param: the
 * parameter that differs.
 */
static enum d2b_proto_diff protos_diff(const struct d2b_btf *btf, uint32_t fa, uint32_t fb,
				       int depth, unsigned int *ret_param)
{
	const struct d2b_type *pa = d2b_btf__type(btf, d2b_btf__type(btf, fa)->type);
	const struct d2b_type *pb = d2b_btf__type(btf, d2b_btf__type(btf, fb)->type);
	unsigned int i, n;

	if (!pa || !pb || d2b_kind(pa) != D2B_KIND_FUNC_PROTO || d2b_kind(pb) != D2B_KIND_FUNC_PROTO)
		return D2B_PROTO_RETURN;
	n = d2b_vlen(pa);
	if (n != d2b_vlen(pb))
		return D2B_PROTO_PARAM_COUNT;
	if (!loose_equal(btf, pa->type, pb->type, depth))
		return D2B_PROTO_RETURN;
	for (i = 0; i < n; i++) {
		if (!loose_equal(btf, btf_params(pa)[i].type, btf_params(pb)[i].type, depth)) {
			*ret_param = i;
			return D2B_PROTO_PARAM_TYPE;
		}
	}
	return 0;
}

/* The name of parameter i of FUNC func's prototype ("" if none) */
static const char *param_name(const struct d2b_btf *btf, uint32_t func, unsigned int i)
{
	const struct d2b_type *p = d2b_btf__type(btf, d2b_btf__type(btf, func)->type);
	const char *name;

	if (!p || d2b_kind(p) != D2B_KIND_FUNC_PROTO || i >= d2b_vlen(p))
		return "";
	name = d2b_btf__str(btf, btf_params(p)[i].name_off);
	return name ? name : "";
}

/* How many parameters pahole counts for record e: those its DIE lists
 * where they differ from its declaration's (a clone's; with
 * true_signature its FUNC is the clone's own), else its FUNC's */
static unsigned int own_params(const struct d2b_btf *btf, const struct entry *e, bool true_sig)
{
	const struct d2b_type *p = d2b_btf__type(btf, d2b_btf__type(btf, e->id)->type);

	if ((e->flags & FUNC_REC_CLONE_CHANGED) && !true_sig)
		return (e->flags >> FUNC_REC_OWN_PARAMS_SHIFT) & 0xff;
	return p ? d2b_vlen(p) : 0;
}

/*
 * pahole's combining of one name's records e[0, n), in that order: the
 * first one's prototype against each next one's, until one differs, or
 * until a record met so far has a flag of stop (pahole compares no
 * further then).  A clone whose DIE lists other parameters than its
 * declaration is compared by their number only.  The record that differs
 * (*ret saying how), or n.
 */
static size_t first_difference(const struct d2b_btf *btf, const struct entry *e, size_t n,
			       uint32_t stop, int depth, bool true_sig, struct d2b_func_note *ret)
{
	uint32_t joined = e[0].flags;
	unsigned int param = 0, nr0 = own_params(btf, &e[0], true_sig), nr;
	size_t i;

	for (i = 1; i < n; i++) {
		joined |= e[i].flags;
		if (joined & stop)
			return n;
		nr = own_params(btf, &e[i], true_sig);
		if (nr != nr0)
			ret->diff = D2B_PROTO_PARAM_COUNT;
		else if (e[i].id == e[0].id || ((e[0].flags | e[i].flags) & FUNC_REC_CLONE_CHANGED))
			continue;
		else
			ret->diff = protos_diff(btf, e[0].id, e[i].id, depth, &param);
		if (!ret->diff)
			continue;
		ret->what = D2B_FUNC_PROTOS_DIFFER;
		ret->name = e[0].name;
		ret->nr_params[0] = nr0;
		ret->nr_params[1] = nr;
		ret->param = param;
		ret->param_name[0] = param_name(btf, e[0].id, param);
		ret->param_name[1] = param_name(btf, e[i].id, param);
		return i;
	}
	return n;
}

/* Pass 2 of pahole 1.32: a name's records with code first (in unit order),
 * then the others; the one whose code is at a symbol of the name stands
 * for it (a strong definition over a __weak one, whose code no symbol
 * names), preferring one whose lost parameters do not change its ABI. */
static size_t order_by_code(struct entry *e, size_t n)
{
	size_t i, j;

	for (i = 0, j = 0; i < n; i++) {
		if (e[i].addr) {
			struct entry t = e[i];

			memmove(&e[j + 1], &e[j], (i - j) * sizeof(*e));
			e[j++] = t;
		}
	}
	return j;
}

/* pahole 1.32: lost parameters where its ABI changed (a .isra/.constprop
 * clone's symbol at its address, or clang's DW_CC_nocall)?  Never with
 * true_signature, whose prototypes say what the code takes (func_judge.c
 * made them: a clone's from its DWARF, clang's from its parameters'
 * locations, true_sig.c). */
static bool abi_changed(const struct elf_funcs *ef, const struct elf_func_info *info,
			const struct entry *e, bool true_sig)
{
	if (!(e->flags & FUNC_REC_OPTIMIZED) || true_sig)
		return false;
	return (e->flags & FUNC_REC_NOCALL) ||
	       (e->addr && (elf_funcs__at(ef, info, e->addr) & ELF_AT_CLONE));
}

static size_t canonical(const struct elf_funcs *ef, const struct elf_func_info *info,
			const struct entry *e, size_t n, bool true_sig)
{
	size_t i, first = n;

	for (i = 0; i < n; i++) {
		if (!e[i].addr || !(elf_funcs__at(ef, info, e[i].addr) & ELF_AT_SYMBOL))
			continue;
		if (first == n)
			first = i;
		if (!abi_changed(ef, info, &e[i], true_sig))
			return i;
	}
	return first < n ? first : 0;
}

/*
 * Why pahole 1.32 leaves the name of records e out, or 0; *keep: the
 * record that stands for it; *diff: where its prototypes differ, if they
 * do.  pahole's precedence, from the last it checks: several addresses,
 * parameters optimized out where the ABI changed, reordered, prototypes
 * that differ (consistent_func; found before a reordered or unexpected
 * one stopped the comparing), a parameter in another register.
 */
static enum d2b_func_why why_132(const struct d2b_btf *btf, struct entry *e, size_t n,
				 const struct elf_funcs *ef, const struct elf_func_info *info,
				 bool consistent, bool true_sig, size_t *keep,
				 struct d2b_func_note *diff)
{
	uint32_t flags = 0;
	size_t i, ncode, end, differ;

	ncode = order_by_code(e, n);
	*keep = canonical(ef, info, e, n, true_sig);
	for (i = 0; i < n; i++)
		flags |= e[i].flags;
	/* (with true_signature, pahole 1.32's binary compares the definitions
	 * with code among themselves, and those without only where none has
	 * code) */
	end = true_sig && ncode ? ncode : n;
	differ = first_difference(btf, e, end, STOP_132, LOOSE_MAX_DEPTH, true_sig, diff);
	if (info->ambiguous)
		return D2B_FUNC_AMBIGUOUS;
	if (abi_changed(ef, info, &e[*keep], true_sig))
		return D2B_FUNC_OPTIMIZED;
	if (flags & FUNC_REC_REORDERED)
		return D2B_FUNC_REORDERED;
	if (consistent && differ < end)
		return e[differ].flags & FUNC_REC_CLONE_CHANGED ? D2B_FUNC_CLONE_CHANGED :
		       D2B_FUNC_INCONSISTENT;
	/* (ORIGIN_UNEXPECTED: only with true_signature, where pahole reads a
	 * clone's locations into its origin) */
	if (flags & (FUNC_REC_UNEXPECTED_REG | FUNC_REC_ORIGIN_UNEXPECTED))
		return D2B_FUNC_UNEXPECTED_REG;
	if (consistent && (flags & FUNC_REC_CLONE_CHANGED))
		return D2B_FUNC_CLONE_CHANGED;
	return 0;
}

/*
 * Why pahole 1.31 leaves the name of records e out, or 0 (consistent_func
 * decides it all); *diff as for why_132(), the records in unit order.
 */
static enum d2b_func_why why_131(const struct d2b_btf *btf, const struct entry *e, size_t n,
				 const struct elf_func_info *info, bool consistent,
				 struct d2b_func_note *diff)
{
	uint32_t flags = 0;
	size_t i, differ;

	for (i = 0; i < n; i++)
		flags |= e[i].flags;
	differ = first_difference(btf, e, n, FUNC_REC_UNEXPECTED_REG, 0, false, diff);
	if (!consistent)
		return 0;
	if (flags & FUNC_REC_UNEXPECTED_REG)
		return D2B_FUNC_UNEXPECTED_REG;
	if (flags & FUNC_REC_CLONE_CHANGED)
		return D2B_FUNC_CLONE_CHANGED;
	if (info->ambiguous)
		return D2B_FUNC_AMBIGUOUS;
	return differ < n ? D2B_FUNC_INCONSISTENT : 0;
}

/*
 * Does type id lead to a TYPEDEF through the kinds that dedup merges by
 * what they refer to (pointers, qualifiers, arrays, prototypes)?  pahole
 * 1.32's split BTF never merges a typedef into the base's, nor anything
 * so referring to one: such a function stays the module's own.
 */
static bool reaches_typedef(const struct d2b_btf *btf, uint32_t id, int depth)
{
	int steps;

	for (steps = 0; steps < LOOSE_MAX_STEPS && id; steps++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);
		unsigned int i;

		if (!t)
			return false;
		switch (d2b_kind(t)) {
		case D2B_KIND_TYPEDEF:
			return true;
		case D2B_KIND_PTR:
		case D2B_KIND_CONST:
		case D2B_KIND_VOLATILE:
		case D2B_KIND_RESTRICT:
		case D2B_KIND_TYPE_TAG:
			id = t->type;
			break;
		case D2B_KIND_ARRAY:
			id = btf_array(t)->type;
			break;
		case D2B_KIND_FUNC_PROTO:
			for (i = 0; depth > 0 && i < d2b_vlen(t); i++) {
				if (reaches_typedef(btf, btf_params(t)[i].type, depth - 1))
					return true;
			}
			id = t->type;
			break;
		default:
			return false;
		}
	}
	return false;
}

/* pahole 1.32's true_signature: the record (index) whose clone symbol
 * stands for the name, or n; *ret_name: the clone's name. */
static size_t true_signature(const struct entry *e, size_t n, const struct elf_funcs *ef,
			     const struct elf_func_info *info, const char **ret_name)
{
	uint32_t all = 0, joined = 0;
	size_t i;

	for (i = 0; i < n; i++)
		all |= e[i].flags;
	for (i = 0; i < n; i++) {
		const char *dotted;

		joined |= e[i].flags;
		if (!e[i].addr)
			continue;
		dotted = elf_funcs__dotted_at(ef, info, e[i].addr);
		if (!dotted || ((i ? joined : all) &
				(FUNC_REC_UNEXPECTED_REG | FUNC_REC_ORIGIN_UNEXPECTED)))
			continue;
		*ret_name = dotted;
		return i;
	}
	return n;
}

/* The FUNC of a name that true_signature describes by its clone: renamed,
 * or (the base's FUNC, in split BTF) repeated under the clone's name. */
static int keep_clone(const struct func_policy_opts *po, uint32_t start, uint32_t id,
		      const char *name)
{
	if (id >= start) {
		struct func_renames *fr = po->renames;

		if (VEC_RESERVE(fr->v, fr->cap, fr->nr, 1))
			return -ENOMEM;
		fr->v[fr->nr].id = id;
		fr->v[fr->nr++].name = name;
	} else if (po->copies) {
		struct func_copies *fc = po->copies;

		if (VEC_RESERVE(fc->v, fc->cap, fc->nr, 1))
			return -ENOMEM;
		memset(&fc->v[fc->nr], 0, sizeof(fc->v[fc->nr]));
		fc->v[fc->nr].id = id;
		fc->v[fc->nr++].name = name;
	}
	return 0;
}

/* Say what select_name() found: where the prototypes differ, then why the
 * name is left out (either may be absent: .what 0, why 0) */
static void say(struct diag *diag, const struct d2b_func_note *diff, enum d2b_func_why why,
		const char *name)
{
	struct d2b_func_note left = { .what = D2B_FUNC_LEFT_OUT, .name = name, .why = why };

	if (diff->what == D2B_FUNC_PROTOS_DIFFER) {
		if (diff->diff == D2B_PROTO_PARAM_COUNT)
			diag__func(diag, diff, "function '%s': its prototypes differ: %u "
				   "parameters and %u", name, diff->nr_params[0], diff->nr_params[1]);
		else if (diff->diff == D2B_PROTO_RETURN)
			diag__func(diag, diff, "function '%s': its prototypes differ: the "
				   "return type", name);
		else
			diag__func(diag, diff, "function '%s': its prototypes differ: parameter "
				   "%u ('%s' and '%s')", name, diff->param + 1, diff->param_name[0],
				   diff->param_name[1]);
	}
	if (why)
		diag__func(diag, &left, "function '%s' left out: %s", name, why_said[why]);
}

/* Decide one name's records [first, end). */
static int select_name(const struct d2b_btf *btf, struct entry *e, size_t n,
		       const struct elf_funcs *ef, const struct func_policy_opts *po, uint8_t *drop,
		       struct diag *diag, struct func_kfuncs *kfuncs)
{
	uint32_t start = d2b_btf__start_id(btf), keep = e[0].id, flags = 0;
	struct elf_func_info info = { 0 };
	struct d2b_func_note diff = { 0 };
	enum d2b_func_why why = 0;
	const char *clone = NULL;
	int dropped = 0, err;
	size_t i, k;

	for (i = 0; i < n; i++)
		flags |= e[i].flags;
	if (elf_funcs__count(ef)) {
		if (!elf_funcs__find(ef, e[0].name, &info))
			why = D2B_FUNC_NO_SYMBOL;
	} else if (!(flags & FUNC_REC_EXTERNAL)) {
		why = D2B_FUNC_STATIC_NO_SYMBOLS;
	}
	if (!why && !po->pahole_1_31 && po->true_signature && po->renames &&
	    (k = true_signature(e, n, ef, &info, &clone)) < n) {
		keep = e[k].id;
		err = keep_clone(po, start, keep, clone);
		if (err < 0)
			return err;
		/* (pahole compares the prototypes before it looks for the clone) */
		first_difference(btf, e, order_by_code(e, n) ?: n, STOP_132, LOOSE_MAX_DEPTH, true,
				 &diff);
	} else if (!why && !po->pahole_1_31) {
		why = why_132(btf, e, n, ef, &info, po->consistent, po->true_signature, &k, &diff);
		keep = e[k].id;
	} else if (!why) {
		why = why_131(btf, e, n, &info, po->consistent, &diff);
	}
	say(diag, &diff, why, e[0].name);
	if (why)
		keep = 0;
	if (po->copies && !po->pahole_1_31 && keep && keep < start && !clone &&
	    reaches_typedef(btf, d2b_btf__type(btf, keep)->type, LOOSE_MAX_DEPTH)) {
		struct func_copies *fc = po->copies;

		if (VEC_RESERVE(fc->v, fc->cap, fc->nr, 1))
			return -ENOMEM;
		fc->v[fc->nr++] = (struct func_copy){
			.id = keep, .kfunc = info.kfunc, .kfunc_flags = info.kfunc_flags,
		};
	}
	/* (pahole tags no clone as a kfunc) */
	if (kfuncs && keep >= start && info.kfunc && !clone) {
		if (VEC_RESERVE(kfuncs->v, kfuncs->cap, kfuncs->nr, 1))
			return -ENOMEM;
		kfuncs->v[kfuncs->nr].id = keep;
		kfuncs->v[kfuncs->nr++].flags = info.kfunc_flags;
	}
	for (i = 0; i < n; i++) {
		/* a FUNC the merge found in the base (split BTF) is not ours to
		 * drop: it only took part in the comparison */
		if (e[i].id < start)
			continue;
		if (e[i].id != keep && !drop[e[i].id - start]) {
			drop[e[i].id - start] = 1;
			dropped++;
		}
	}
	return dropped;
}

int func_policy__select(const struct d2b_btf *btf, const struct func_rec *recs, size_t nr,
			const struct elf_funcs *ef, const struct func_policy_opts *po, uint8_t *drop,
			struct diag *diag, struct func_kfuncs *kfuncs)
{
	struct entry *e = calloc(nr ? nr : 1, sizeof(*e));
	size_t i, j;
	int r, dropped = 0;

	if (!e)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		e[i].name = d2b_btf__name(btf, recs[i].id);
		if (!e[i].name || i >= UINT32_MAX) {
			free(e);
			return -EINVAL;
		}
		name_prefix(e[i].name, e[i].prefix);
		e[i].id = recs[i].id;
		e[i].flags = recs[i].flags;
		e[i].addr = recs[i].addr;
		e[i].seq = (uint32_t)i;
	}
	qsort(e, nr, sizeof(*e), entry_cmp);
	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && !entry_name_cmp(&e[j], &e[i]); j++)
			;
		r = select_name(btf, &e[i], j - i, ef, po, drop, diag, kfuncs);
		if (r < 0) {
			free(e);
			return r;
		}
		dropped += r;
	}
	free(e);
	return dropped;
}

int func_policy__add_copies(struct d2b_btf *btf, const struct func_copies *fc,
			    struct func_kfuncs *kfuncs)
{
	size_t i;
	int id;

	for (i = 0; i < fc->nr; i++) {
		const struct d2b_type *t = d2b_btf__type(btf, fc->v[i].id);

		id = d2b_btf__add_func(btf, fc->v[i].name ? fc->v[i].name :
					    d2b_btf__name(btf, fc->v[i].id), D2B_LINKAGE_STATIC, t->type);
		if (id < 0)
			return id;
		if (!kfuncs || !fc->v[i].kfunc)
			continue;
		if (VEC_RESERVE(kfuncs->v, kfuncs->cap, kfuncs->nr, 1))
			return -ENOMEM;
		kfuncs->v[kfuncs->nr].id = (uint32_t)id;
		kfuncs->v[kfuncs->nr++].flags = fc->v[i].kfunc_flags;
	}
	return 0;
}

void func_copies__release(struct func_copies *fc)
{
	free(fc->v);
	memset(fc, 0, sizeof(*fc));
}

void func_renames__release(struct func_renames *fr)
{
	free(fr->v);
	memset(fr, 0, sizeof(*fr));
}

int func_policy__rename(struct d2b_btf *btf, const struct func_renames *fr)
{
	size_t i;
	int off;

	for (i = 0; i < fr->nr; i++) {
		struct d2b_type *t = btf_type_mut(btf, fr->v[i].id);

		if (!t || d2b_kind(t) != D2B_KIND_FUNC)
			return -EINVAL;
		off = d2b_btf__add_str(btf, fr->v[i].name);
		if (off < 0)
			return off;
		t->name_off = (uint32_t)off;
	}
	return 0;
}

void func_kfuncs__release(struct func_kfuncs *kf)
{
	free(kf->v);
	memset(kf, 0, sizeof(*kf));
}

static int kfunc_cmp(const void *pa, const void *pb)
{
	const struct func_kfunc *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

void func_kfuncs__remap(struct func_kfuncs *kf, const uint32_t *map)
{
	size_t i, n = 0;

	for (i = 0; i < kf->nr; i++) {
		uint32_t id = map ? map[kf->v[i].id] : kf->v[i].id;

		if (id) {
			kf->v[n].id = id;
			kf->v[n++].flags = kf->v[i].flags;
		}
	}
	kf->nr = n;
	if (n)
		qsort(kf->v, n, sizeof(*kf->v), kfunc_cmp);
}

/*
 * An arena kfunc's pointer (KF_ARENA_RET/ARG1/ARG2): PTR -> TYPE_TAG with
 * kind_flag 1 (an attribute) "address_space(1)" -> the pointee.  Returns
 * the new PTR, or ptr unchanged when it is not a pointer.
 */
static int arena_ptr(struct d2b_btf *btf, uint32_t ptr)
{
	static const char attr[] = "address_space(1)";
	const struct d2b_type *t = d2b_btf__type(btf, ptr);
	uint32_t id, end = d2b_btf__end_id(btf), pointee, tag = 0;
	int r;

	if (!t || d2b_kind(t) != D2B_KIND_PTR)
		return (int)ptr;
	pointee = t->type;
	/* reuse the tag and the pointer another arena kfunc made: the few
	 * arena kfuncs make this scan of their own types cheap */
	for (id = d2b_btf__start_id(btf); id < end && !tag; id++) {
		t = d2b_btf__type(btf, id);
		if (d2b_kind(t) == D2B_KIND_TYPE_TAG && d2b_kflag(t) && t->type == pointee &&
		    !strcmp(d2b_btf__name(btf, id), attr))
			tag = id;
	}
	for (id = tag + 1; tag && id < end; id++) {
		t = d2b_btf__type(btf, id);
		if (d2b_kind(t) == D2B_KIND_PTR && t->type == tag)
			return (int)id;
	}
	if (!tag) {
		r = d2b_btf__add_type_tag(btf, attr, pointee);
		if (r < 0)
			return r;
		tag = (uint32_t)r;
		btf_type_mut(btf, tag)->info = d2b_info(D2B_KIND_TYPE_TAG, true, 0);
	}
	return d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, tag);
}

/* Does any type but FUNC func refer to proto? */
static bool proto_shared(const struct d2b_btf *btf, uint32_t proto, uint32_t func)
{
	uint32_t id, end = d2b_btf__end_id(btf);

	for (id = d2b_btf__start_id(btf); id < end; id++) {
		struct btf_field_iter it;
		uint32_t *f;

		if (id == func)
			continue;
		btf_field_iter__init(&it, (struct d2b_type *)d2b_btf__type(btf, id), BTF_FIELD_IDS);
		while ((f = btf_field_iter__next(&it)) != NULL) {
			if (*f == proto)
				return true;
		}
	}
	return proto < d2b_btf__start_id(btf);	/* the base's: never ours to change */
}

/* Give FUNC id a prototype whose arena pointers carry the attribute. */
static int tag_arena(struct d2b_btf *btf, uint32_t id, uint32_t flags)
{
	uint32_t proto = d2b_btf__type(btf, id)->type, types[3], i, n;
	int r, nproto;

	n = d2b_vlen(d2b_btf__type(btf, proto));
	types[0] = d2b_btf__type(btf, proto)->type;
	for (i = 0; i < 2; i++)
		types[i + 1] = i < n ? btf_params(d2b_btf__type(btf, proto))[i].type : 0;
	for (i = 0; i < 3; i++) {
		if (!(flags & (ELF_KF_ARENA_RET << i)))
			continue;
		if (i > n)
			return -EINVAL;
		r = arena_ptr(btf, types[i]);
		if (r < 0)
			return r;
		types[i] = (uint32_t)r;
	}
	/* a prototype only this FUNC uses is changed in place (pahole makes
	 * the tagged one only); a shared one is left to its other users */
	if (!proto_shared(btf, proto, id)) {
		struct d2b_type *p = btf_type_mut(btf, proto);
		struct d2b_param *params = (struct d2b_param *)(p + 1);

		p->type = types[0];
		for (i = 0; i < n && i < 2; i++)
			params[i].type = types[i + 1];
		return 0;
	}
	nproto = d2b_btf__add_func_proto(btf, types[0]);
	for (i = 0; i < n && nproto >= 0; i++) {
		const struct d2b_param *p = &btf_params(d2b_btf__type(btf, proto))[i];

		r = d2b_btf__add_param(btf, d2b_btf__str(btf, p->name_off),
				       i < 2 ? types[i + 1] : p->type);
		if (r < 0)
			return r;
	}
	if (nproto < 0)
		return nproto;
	btf_type_mut(btf, id)->type = (uint32_t)nproto;
	return 0;
}

int func_policy__tag_kfuncs(struct d2b_btf *btf, const struct func_kfuncs *kfuncs, bool decl_tags,
			    bool arena_attrs)
{
	size_t i;
	int err;

	for (i = 0; i < kfuncs->nr; i++) {
		uint32_t id = kfuncs->v[i].id, flags = kfuncs->v[i].flags;
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (!t || d2b_kind(t) != D2B_KIND_FUNC)
			return -EINVAL;
		if (arena_attrs && (flags & ELF_KF_ARENA_MASK)) {
			err = tag_arena(btf, id, flags);
			if (err < 0)
				return err;
		}
		if (!decl_tags)
			continue;
		err = d2b_btf__add_decl_tag(btf, "bpf_kfunc", id, -1);
		if (err < 0)
			return err;
		if (flags & ELF_KF_FASTCALL) {
			err = d2b_btf__add_decl_tag(btf, "bpf_fastcall", id, -1);
			if (err < 0)
				return err;
		}
	}
	return (int)kfuncs->nr;
}
