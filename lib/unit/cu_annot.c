// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BTF annotations in DWARF, in the three encodings compilers use:
 *
 *  1. clang (14 and later): DW_TAG_LLVM_annotation children named
 *     "btf_decl_tag" on declarations, and "btf_type_tag" on a
 *     DW_TAG_pointer_type, where they describe the *pointee*.  From
 *     clang 23 (llvm-project #203089) also on a DW_TAG_typedef, where
 *     they describe the type under it: "typedef struct s __a s_t" is a
 *     typedef s_t of DW_AT_type struct s with a child "btf_type_tag" a
 *     (LLVM's BPF backend writes TYPEDEF s_t -> TYPE_TAG a -> STRUCT s;
 *     cu_types.c lifts the tag above the typedef, as for GCC's).
 *  2. "btf:type_tag" (the v2 placement): DW_TAG_LLVM_annotation children
 *     named "btf:type_tag" on the annotated type itself.  Producers emit
 *     form 1 beside it for old consumers; in a unit that has any form 2
 *     tag, form 1 children are ignored (collect() below), so no tag is
 *     counted twice and the new form wins where they differ.
 *  3. GCC 16: the DIE has a DW_AT_GNU_annotation reference to a
 *     DW_TAG_GNU_annotation DIE (name "btf_decl_tag" or "btf_type_tag",
 *     value in DW_AT_const_value), which may chain to the next one through
 *     its own DW_AT_GNU_annotation.  On a pointer the type tags are the
 *     pointee's, as in form 1 (GCC's own BTF and pahole read them so:
 *     "struct task __rcu *p" is PTR -> TYPE_TAG rcu -> STRUCT task).  On
 *     any other type (a variant copy of a base type, typedef, array,
 *     struct, union or enum) they are that type's own, as in form 2;
 *     pahole and GCC's BTF drop those, we keep them (cu_types.c lifts them
 *     above modifiers and typedefs, where the kernel wants them).
 *
 * GCC's chains.  A chain starts with the last tag written (source
 * "__a __b" chains b -> a), and GCC shares the tails of chains between
 * DIEs.  A type variant's chain goes on into the chain of the type it is
 * made from ("typedef int __t1 tfoo; tfoo __t2 x;": the copy of tfoo has
 * t2 -> t1, t1 being the int's own): where a type's chain reaches the
 * head of its DW_AT_type's chain, the rest is that type's and is read
 * there.  A chain is read to its end, so that a cycle or a reference out
 * of the unit (a malformed file) is always met: it marks the unit corrupt
 * (the conversion fails, saying why), it never loops.
 *
 * Whatever the encoding, tags are returned in source order (clang writes
 * children in source order; a GCC chain is reversed), and TYPE_TAG chains
 * are built with the first tag nearest to the type: for "struct s __a __b
 * *p", PTR -> TYPE_TAG b -> TYPE_TAG a -> STRUCT s, which is what LLVM's
 * BPF backend, GCC's BTF and pahole write.
 *
 * Forms 1 and 2 are told apart per unit: once a unit has any
 * "btf:type_tag", its "btf_type_tag" children are compatibility copies and
 * are ignored everywhere in it.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "btf/btf.h"
#include "dwarf/dwarf_ext.h"
#include "unit/cu_annot.h"

/* GCC annotations one chain may hold: longer is taken for a cycle */
enum { ANNOT_MAX_CHAIN = 4096 };

static const char *annot_value(struct cu *w, const struct cu_die *die)
{
	struct die_attr attr;

	if (!cu__attr(w, die, DW_AT_const_value, &attr))
		return NULL;
	return cu__str(w, &attr);
}

static bool is_pointer(const struct cu_die *die)
{
	return die->d.tag == DW_TAG_pointer_type || die->d.tag == DW_TAG_reference_type ||
	       die->d.tag == DW_TAG_rvalue_reference_type;
}

static bool bad_chain(struct cu *w, const struct cu_die *die, const char *why)
{
	cu__corrupt(w, "DW_AT_GNU_annotation chain of DIE 0x%" PRIx64 ": %s", die->d.off, why);
	return false;
}

/* The annotation that die's DW_AT_GNU_annotation points at, checked. */
static bool gnu_next(struct cu *w, const struct cu_die *head, const struct cu_die *die,
		     struct cu_die *ret)
{
	if (!cu__ref_attr(w, die, D2B_DW_AT_GNU_annotation, ret))
		return bad_chain(w, head, cu__why(w));
	if (ret->du != die->du)
		return bad_chain(w, head, "reference out of its unit");
	if (ret->d.tag != D2B_DW_TAG_GNU_annotation)
		return bad_chain(w, head, "reference to a DIE that is no DW_TAG_GNU_annotation");
	return true;
}

/*
 * Where die's own part of its GCC chain ends: the head of its DW_AT_type's
 * chain (type tags only), else nowhere (*ret_off = UINT64_MAX).
 */
static void gnu_inherited(struct cu *w, const struct cu_die *die, uint64_t *ret_off)
{
	struct cu_die type, ann;

	*ret_off = UINT64_MAX;
	if (cu__ref_attr(w, die, DW_AT_type, &type) &&
	    cu__has_attr(&type, D2B_DW_AT_GNU_annotation) &&
	    cu__ref_attr(w, &type, D2B_DW_AT_GNU_annotation, &ann) && ann.du == die->du)
		*ret_off = ann.d.off;
}

/*
 * Append die's GCC annotations named name to vals[n..] (storing up to max),
 * in source order; returns the new n.
 */
static int gnu_collect(struct cu *w, const struct cu_die *die, const char *name, bool types,
		       const char **vals, int n, int max)
{
	struct cu_die cur = *die, ann;
	uint64_t stop = UINT64_MAX;
	int first = n, hops, lo, hi;
	bool own = true;

	if (types)
		gnu_inherited(w, die, &stop);
	for (hops = 0; cu__has_attr(&cur, D2B_DW_AT_GNU_annotation); hops++) {
		const char *aname, *val;

		if (hops == ANNOT_MAX_CHAIN) {
			bad_chain(w, die, "it loops (or is longer than 4096 annotations)");
			break;
		}
		if (!gnu_next(w, die, &cur, &ann))
			break;
		if (ann.d.off == stop)
			own = false;	/* read on only to check the chain */
		aname = cu__name(w, &ann);
		val = annot_value(w, &ann);
		if (own && aname && !strcmp(aname, name) && val && *val) {
			if (n < max)
				vals[n] = val;
			n++;
		}
		cur = ann;
	}
	/* GCC chains run from the last tag written to the first */
	for (lo = first, hi = (n < max ? n : max) - 1; lo < hi; lo++, hi--) {
		const char *t = vals[lo];

		vals[lo] = vals[hi];
		vals[hi] = t;
	}
	return n;
}

int cu_annot__collect(struct cu *w, const struct cu_die *die, enum annot_kind kind,
		      const char **vals, int max)
{
	const char *llvm_name, *gnu_name;
	struct cu_die child;
	int n = 0;

	if (!w->has_annotations)
		return 0;
	switch (kind) {
	case ANNOT_DECL_TAG:
		llvm_name = gnu_name = "btf_decl_tag";
		break;
	case ANNOT_TYPE_TAG_UNDER:
		llvm_name = w->has_v2_type_tags ? NULL : "btf_type_tag";
		/* GCC's tags on a typedef are its own (ANNOT_TYPE_TAG_SELF) */
		gnu_name = is_pointer(die) ? "btf_type_tag" : NULL;
		break;
	default:
		llvm_name = "btf:type_tag";
		gnu_name = is_pointer(die) ? NULL : "btf_type_tag";
		break;
	}

	if (llvm_name && cu__child(w, die, &child)) {
		do {
			const char *name, *val;

			if (child.d.tag != D2B_DW_TAG_LLVM_annotation)
				continue;
			name = cu__name(w, &child);
			if (!name || strcmp(name, llvm_name))
				continue;
			val = annot_value(w, &child);
			if (!val || !*val) {
				cu__diag(w, D2B_INFO, &child, "%s annotation without a string value", name);
				continue;
			}
			if (n < max)
				vals[n] = val;
			n++;
		} while (cu__next(w, &child));
	}

	if (!gnu_name || !cu__has_attr(die, D2B_DW_AT_GNU_annotation))
		return n;
	return gnu_collect(w, die, gnu_name, kind != ANNOT_DECL_TAG, vals, n, max);
}

static bool has_v2_child(struct cu *w, const struct cu_die *die)
{
	struct cu_die child;

	if (!cu__child(w, die, &child))
		return false;
	do {
		const char *name;

		if (child.d.tag != D2B_DW_TAG_LLVM_annotation)
			continue;
		name = cu__name(w, &child);
		if (name && !strcmp(name, "btf:type_tag"))
			return true;
	} while (cu__next(w, &child));
	return false;
}

/*
 * Producers put types at the top of a unit, so looking at the unit's
 * children and their children finds a btf:type_tag without walking
 * function bodies; a type declared inside a function is the rare miss.
 */
bool cu_annot__unit_has_v2(struct cu *w)
{
	struct cu_die child;

	if (!cu__child(w, &w->root, &child))
		return false;
	do {
		if (child.d.tag == DW_TAG_subprogram)
			continue;
		if (has_v2_child(w, &child))
			return true;
	} while (cu__next(w, &child));
	return false;
}

int cu_annot__decl_tags(struct cu *w, const struct cu_die *die, uint32_t target,
			int component_idx)
{
	const char *vals[UNIT_MAX_TAGS];
	int i, n, err;

	if (w->opts->skip_decl_tags)
		return 0;
	n = cu_annot__collect(w, die, ANNOT_DECL_TAG, vals, UNIT_MAX_TAGS);
	if (n > UNIT_MAX_TAGS)
		n = UNIT_MAX_TAGS;
	for (i = 0; i < n; i++) {
		err = btf_add_decl_tag_off(w->btf, cu__add_str(w, vals[i]), target, component_idx);
		if (err < 0)
			return err;
	}
	return 0;
}

int cu_annot__wrap_under(struct cu *w, const struct cu_die *die, int type)
{
	const char *vals[UNIT_MAX_TAGS];
	int n;

	if (w->opts->skip_type_tags || !w->has_annotations ||
	    !(die->d.has_children || cu__has_attr(die, D2B_DW_AT_GNU_annotation)))
		return type;
	n = cu_annot__collect(w, die, ANNOT_TYPE_TAG_UNDER, vals, UNIT_MAX_TAGS);
	if (n > UNIT_MAX_TAGS)
		n = UNIT_MAX_TAGS;
	return n ? cu_annot__wrap(w, (uint32_t)type, vals, n) : type;
}

int cu_annot__wrap(struct cu *w, uint32_t type, const char **vals, int n)
{
	int i, id = (int)type;

	for (i = 0; i < n; i++) {
		id = btf_add_ref_off(w->btf, D2B_KIND_TYPE_TAG, cu__add_str(w, vals[i]), id);
		if (id < 0)
			return id;
	}
	return id;
}
