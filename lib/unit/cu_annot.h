/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cu_annot.c: BTF annotations in their three DWARF encodings. */
#ifndef D2B_UNIT_CU_ANNOT_H
#define D2B_UNIT_CU_ANNOT_H

#include <stdbool.h>
#include <stdint.h>

#include "unit/cu.h"

enum annot_kind {
	ANNOT_DECL_TAG,		/* btf_decl_tag: on declarations */
	ANNOT_TYPE_TAG_UNDER,	/* btf_type_tag on a pointer (the pointee's tags) or,
				 * from clang 23, a typedef (its DW_AT_type's) */
	ANNOT_TYPE_TAG_SELF,	/* btf:type_tag, GCC's type tags: the DIE's own tags */
};

/* Collect die's annotation values of one kind, in source order, storing the
 * first max of them; returns how many there are (possibly more than max). */
int cu_annot__collect(struct cu *w, const struct cu_die *die, enum annot_kind kind,
		      const char **vals, int max);
/* Add DECL_TAGs for die's btf_decl_tag annotations, on target/idx. */
int cu_annot__decl_tags(struct cu *w, const struct cu_die *die, uint32_t target,
			int component_idx);
/* Wrap type in TYPE_TAGs: vals[0] ends up nearest to type. */
int cu_annot__wrap(struct cu *w, uint32_t type, const char **vals, int n);
/* type wrapped in the TYPE_TAGs that die, a pointer or a typedef, gives the
 * type under it (ANNOT_TYPE_TAG_UNDER); type itself if none or skipped. */
int cu_annot__wrap_under(struct cu *w, const struct cu_die *die, int type);
/* Does the unit use the btf:type_tag form anywhere? */
bool cu_annot__unit_has_v2(struct cu *w);

#endif
