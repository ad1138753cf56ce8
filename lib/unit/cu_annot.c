// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BTF annotations in DWARF, in the three encodings compilers use:
 *
 *  1. clang (14 and later): DW_TAG_LLVM_annotation children named
 *     "btf_decl_tag" on declarations, and "btf_type_tag" on a
 *     DW_TAG_pointer_type, where they describe the *pointee*.
 *  2. "btf:type_tag" (the v2 placement): DW_TAG_LLVM_annotation children
 *     named "btf:type_tag" on the annotated type itself.  Producers emit
 *     form 1 beside it for old consumers; a pointer whose pointee carries
 *     form 2 tags therefore has its form 1 children ignored (cu_types.c),
 *     so no tag is counted twice and the new form wins where they differ.
 *  3. GCC 16: the DIE has a DW_AT_GNU_annotation reference to a
 *     DW_TAG_GNU_annotation DIE (name "btf_decl_tag" or "btf_type_tag",
 *     value in DW_AT_const_value), which may chain to the next one through
 *     its own DW_AT_GNU_annotation.  Type tags sit on the annotated type,
 *     as in form 2.
 *
 * Whatever the encoding, tags are returned in source order (clang writes
 * children in source order; a GCC chain starts with the last tag written,
 * so it is reversed), and TYPE_TAG chains are built with the first tag
 * nearest to the type, which is what LLVM's BPF backend writes for the
 * same source.
 *
 * Forms 1 and 2 are told apart per unit: once a unit has any
 * "btf:type_tag", its "btf_type_tag" children are compatibility copies and
 * are ignored everywhere in it.
 */
#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "btf/btf.h"
#include "dwarf/dwarf_ext.h"
#include "unit/cu_annot.h"

static const char *annot_value(struct cu *w, const struct cu_die *die)
{
	struct die_attr attr;

	if (!cu__attr(w, die, DW_AT_const_value, &attr))
		return NULL;
	return cu__str(w, &attr);
}

int cu_annot__collect(struct cu *w, const struct cu_die *die, enum annot_kind kind,
		      const char **vals, int max)
{
	const char *llvm_name, *gnu_name;
	struct cu_die child, ann, cur;
	int n = 0, gnu = 0, hops;

	if (!w->has_annotations)
		return 0;
	switch (kind) {
	case ANNOT_DECL_TAG:
		llvm_name = gnu_name = "btf_decl_tag";
		break;
	case ANNOT_TYPE_TAG_PTR:
		llvm_name = "btf_type_tag";
		gnu_name = NULL;
		break;
	default:
		llvm_name = "btf:type_tag";
		gnu_name = "btf_type_tag";
		break;
	}

	if (cu__child(w, die, &child)) {
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
	/* the chain is bounded: a malformed file may make it a cycle */
	cur = *die;
	for (hops = 0; hops < UNIT_MAX_TAGS && cu__ref_attr(w, &cur, D2B_DW_AT_GNU_annotation, &ann);
	     hops++) {
		const char *name, *val;

		if (ann.d.tag != D2B_DW_TAG_GNU_annotation)
			break;
		name = cu__name(w, &ann);
		val = annot_value(w, &ann);
		if (name && !strcmp(name, gnu_name) && val && *val) {
			if (n < max)
				vals[n] = val;
			n++;
			gnu++;
		}
		if (!cu__has_attr(&ann, D2B_DW_AT_GNU_annotation))
			break;
		cur = ann;
	}
	/* GCC chains run from the last tag written to the first */
	if (vals) {
		int lo = n - gnu, hi = (n < max ? n : max) - 1;

		for (; lo < hi; lo++, hi--) {
			const char *t = vals[lo];

			vals[lo] = vals[hi];
			vals[hi] = t;
		}
	}
	return n;
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
		err = d2b_btf__add_decl_tag(w->btf, vals[i], target, component_idx);
		if (err < 0)
			return err;
	}
	return 0;
}

int cu_annot__wrap(struct cu *w, uint32_t type, const char **vals, int n)
{
	int i, id = (int)type;

	for (i = 0; i < n; i++) {
		id = d2b_btf__add_type_tag(w->btf, vals[i], id);
		if (id < 0)
			return id;
	}
	return id;
}
