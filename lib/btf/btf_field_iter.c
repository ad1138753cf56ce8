// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The shape of each kind, written once: how many words a type takes
 * (btf_type_words()) and where its type-ID and string-offset fields lie
 * (struct btf_field_iter), so that every pass that reads, copies or
 * renumbers types (the parser's range checks, copies between BTFs, the
 * dedup's remapping, the verifier's references) walks the same fields.
 *
 * A field set is at most two segments of evenly spaced words: a fixed
 * field (t->type) and one field per trailing record (a member's type), or
 * two per record (a LOCSEC site's FUNC and LOC_PROTO).  What follows a
 * LOC_PARAM is flags and values, neither a type nor a string.
 */
#include <string.h>

#include "btf/btf.h"

size_t btf_type_words(const struct d2b_type *t)
{
	size_t vlen = d2b_vlen(t);

	switch (d2b_kind(t)) {
	case D2B_KIND_INT:
	case D2B_KIND_VAR:
	case D2B_KIND_DECL_TAG:
		return 4;
	case D2B_KIND_ARRAY:
		return 6;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_ENUM64:
	case D2B_KIND_DATASEC:
	case D2B_KIND_LOCSEC:
		return 3 + 3 * vlen;
	case D2B_KIND_ENUM:
	case D2B_KIND_FUNC_PROTO:
		return 3 + 2 * vlen;
	case D2B_KIND_LOC_PARAM:
		return 4 + vlen;	/* flags, then the values */
	case D2B_KIND_LOC_PROTO:
		return 3 + vlen;
	default:
		return 3;
	}
}

static void add_seg(struct btf_field_iter *it, uint32_t off, uint32_t stride, uint32_t count)
{
	it->seg[it->nseg].off = off;
	it->seg[it->nseg].stride = stride;
	it->seg[it->nseg].count = count;
	it->nseg++;
}

static void init_strs(struct btf_field_iter *it, unsigned int kind, uint32_t vlen)
{
	add_seg(it, 0, 1, 1);	/* the name (0 for the kinds that have none) */
	switch (kind) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_ENUM64:
		add_seg(it, 3, 3, vlen);
		break;
	case D2B_KIND_ENUM:
	case D2B_KIND_FUNC_PROTO:
		add_seg(it, 3, 2, vlen);
		break;
	default:
		break;
	}
}

void btf_field_iter__init(struct btf_field_iter *it, struct d2b_type *t, enum btf_field_kind which)
{
	unsigned int vlen = d2b_vlen(t), kind = d2b_kind(t);

	memset(it, 0, sizeof(*it));
	it->words = (uint32_t *)t;
	if (which == BTF_FIELD_STRS) {
		init_strs(it, kind, vlen);
		return;
	}
	switch (kind) {
	case D2B_KIND_PTR:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_CONST:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_FUNC:
	case D2B_KIND_VAR:
	case D2B_KIND_DECL_TAG:
	case D2B_KIND_TYPE_TAG:
		add_seg(it, 2, 1, 1);
		break;
	case D2B_KIND_ARRAY:
		add_seg(it, 3, 1, 2);
		break;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		add_seg(it, 4, 3, vlen);
		break;
	case D2B_KIND_FUNC_PROTO:
		add_seg(it, 2, 1, 1);
		add_seg(it, 4, 2, vlen);
		break;
	case D2B_KIND_DATASEC:
		add_seg(it, 3, 3, vlen);
		break;
	case D2B_KIND_LOC_PROTO:
		add_seg(it, 3, 1, vlen);	/* its LOC_PARAMs (t->type is 0) */
		break;
	case D2B_KIND_LOCSEC:
		add_seg(it, 3, 3, vlen);	/* each site's FUNC */
		add_seg(it, 4, 3, vlen);	/* ...and LOC_PROTO */
		break;
	default:
		break;
	}
}
