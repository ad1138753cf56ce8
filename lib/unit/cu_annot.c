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

static const char *annot_value(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(die, DW_AT_const_value, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

int cu_annot__collect(struct cu *w, Dwarf_Die *die, enum annot_kind kind,
		      const char **vals, int max)
{
	const char *llvm_name, *gnu_name;
	Dwarf_Attribute attr;
	Dwarf_Die child, ann;
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

	if (dwarf_haschildren(die) && dwarf_child(die, &child) == 0) {
		do {
			const char *name, *val;

			if (dwarf_tag(&child) != D2B_DW_TAG_LLVM_annotation)
				continue;
			name = dwarf_diename(&child);
			if (!name || strcmp(name, llvm_name))
				continue;
			val = annot_value(&child);
			if (!val || !*val) {
				cu__diag(w, D2B_INFO, &child, "%s annotation without a string value", name);
				continue;
			}
			if (n < max)
				vals[n] = val;
			n++;
		} while (cu__next(w, &child));
	}

	if (!gnu_name || !dwarf_attr(die, D2B_DW_AT_GNU_annotation, &attr))
		return n;
	/* the chain is bounded: a malformed file may make it a cycle */
	for (hops = 0; hops < UNIT_MAX_TAGS && dwarf_formref_die(&attr, &ann); hops++) {
		const char *name, *val;

		if (dwarf_tag(&ann) != D2B_DW_TAG_GNU_annotation)
			break;
		name = dwarf_diename(&ann);
		val = annot_value(&ann);
		if (name && !strcmp(name, gnu_name) && val && *val) {
			if (n < max)
				vals[n] = val;
			n++;
			gnu++;
		}
		if (!dwarf_attr(&ann, D2B_DW_AT_GNU_annotation, &attr))
			break;
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

static bool has_v2_child(Dwarf_Die *die)
{
	Dwarf_Die child;

	if (!dwarf_haschildren(die) || dwarf_child(die, &child) != 0)
		return false;
	do {
		const char *name;

		if (dwarf_tag(&child) != D2B_DW_TAG_LLVM_annotation)
			continue;
		name = dwarf_diename(&child);
		if (name && !strcmp(name, "btf:type_tag"))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * Producers put types at the top of a unit, so looking at the unit's
 * children and their children finds a btf:type_tag without walking
 * function bodies; a type declared inside a function is the rare miss.
 */
bool cu_annot__unit_has_v2(struct cu *w, Dwarf_Die *cu_die)
{
	Dwarf_Die child;

	(void)w;
	if (!dwarf_haschildren(cu_die) || dwarf_child(cu_die, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram)
			continue;
		if (has_v2_child(&child))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int cu_annot__decl_tags(struct cu *w, Dwarf_Die *die, uint32_t target, int component_idx)
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
