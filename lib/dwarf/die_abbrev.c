// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A unit's abbreviation table, decoded once (pass 1 of the DIE reader's
 * theory, in die_reader.c): struct abbrev per code, struct abbrev_attr per
 * attribute with how to skip it and, where the attributes before it (or
 * after it) have fixed sizes, where it is; a skip program with runs of
 * fixed-size attributes merged; codes indexed densely when small, else
 * sorted for bisection (find_abbrev(), die_internal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_internal.h"
#include "base/vec.h"

static int add_attr(struct die_unit *u, uint64_t name, uint64_t form, int64_t implicit)
{
	struct abbrev_attr *at;
	int err;

	err = VEC_RESERVE(u->tab.attrs, u->tab.cap_attrs, u->tab.nr_attrs, 1);
	if (!err)
		err = VEC_RESERVE(u->tab.implicit, u->tab.cap_implicit, u->tab.nr_attrs, 1);
	if (err)
		return die_unit_err(u, err, NULL, "out of memory for abbreviations");
	at = &u->tab.attrs[u->tab.nr_attrs];
	at->name = name > UINT16_MAX ? 0 : (uint16_t)name;
	at->form = (uint16_t)form;
	if (form > UINT16_MAX || !die_form_shape((unsigned int)form, &u->hdr, &at->skip, &at->size))
		at->skip = SKIP_BAD;
	at->fixed_off = VAR_OFF;
	at->tail_off = VAR_OFF;
	u->tab.implicit[u->tab.nr_attrs++] = implicit;
	return 0;
}

/*
 * Fixed offsets and sizes, and the skip program, once an abbreviation's
 * attributes are known.
 */
static int abbrev_layout(struct die_unit *u, struct abbrev *a)
{
	struct skip_op *op = NULL;
	uint32_t off = 0, i;
	bool fixed = true;
	int err;

	a->sibling = NO_ATTR;
	a->first_op = (uint32_t)u->tab.nr_ops;
	a->names[0] = a->names[1] = 0;
	memset(a->hot, 0, sizeof(a->hot));
	for (i = 0; i < a->nattr; i++) {
		struct abbrev_attr *at = &u->tab.attrs[a->first + i];
		int h = abbrev_hot(at->name);

		if (at->name == DW_AT_sibling && a->sibling == NO_ATTR)
			a->sibling = (uint16_t)i;
		/* a second one: the first counts, which the search finds */
		if (h >= 0 && i < UINT8_MAX && !(a->names[at->name >> 6] >> (at->name & 63) & 1))
			a->hot[h] = (uint8_t)(i + 1);
		if (at->name < 128)
			a->names[at->name >> 6] |= (uint64_t)1 << (at->name & 63);
		if (fixed && off < VAR_OFF)
			at->fixed_off = (uint16_t)off;
		if (at->skip == SKIP_FIXED)
			off += at->size;
		else
			fixed = false;
		if (at->skip == SKIP_FIXED && op && op->skip == SKIP_FIXED) {
			op->size += at->size;
			continue;
		}
		err = VEC_RESERVE(u->tab.ops, u->tab.cap_ops, u->tab.nr_ops, 1);
		if (err)
			return die_unit_err(u, err, NULL, "out of memory for abbreviations");
		op = &u->tab.ops[u->tab.nr_ops++];
		*op = (struct skip_op){ at->size, at->form, at->skip };
	}
	a->nops = (uint16_t)(u->tab.nr_ops - a->first_op);
	a->fixed_size = fixed ? off : VAR_SIZE;
	/* back from the end, over the attributes of fixed sizes after the
	 * last one whose size varies */
	for (off = 0, i = a->nattr; !fixed && i-- > 0;) {
		struct abbrev_attr *at = &u->tab.attrs[a->first + i];

		if (at->skip != SKIP_FIXED || off + at->size >= VAR_OFF)
			break;
		off += at->size;
		at->tail_off = (uint16_t)off;
	}
	return 0;
}

/* One abbreviation at *p (its code already read). */
static int parse_abbrev(struct die_unit *u, uint64_t code, const uint8_t **p, const uint8_t *end)
{
	struct abbrev *a;
	uint64_t tag, name, form;
	int64_t implicit;
	size_t first = u->tab.nr_attrs;
	int err;

	if (uleb(p, end, &tag) || *p >= end)
		goto trunc;
	if (tag > UINT16_MAX)
		return die_unit_err(u, -EINVAL, NULL, "abbreviation %llu: tag 0x%llx out of range",
				(unsigned long long)code, (unsigned long long)tag);
	err = VEC_RESERVE(u->tab.abbrevs, u->tab.cap_abbrevs, u->tab.nr_abbrevs, 1);
	if (err)
		return die_unit_err(u, err, NULL, "out of memory for abbreviations");
	a = &u->tab.abbrevs[u->tab.nr_abbrevs];
	a->code = code;
	a->tag = (uint16_t)tag;
	a->has_children = *(*p)++ != DW_CHILDREN_no;
	for (;;) {
		if (uleb(p, end, &name) || uleb(p, end, &form))
			goto trunc;
		if (!name && !form)
			break;
		implicit = 0;
		if (form == DW_FORM_implicit_const && sleb(p, end, &implicit))
			goto trunc;
		if (u->tab.nr_attrs - first >= UINT16_MAX - 1)
			return die_unit_err(u, -EINVAL, NULL, "abbreviation %llu: too many attributes",
					(unsigned long long)code);
		err = add_attr(u, name, form, implicit);
		if (err)
			return err;
	}
	a->first = (uint32_t)first;
	a->nattr = (uint16_t)(u->tab.nr_attrs - first);
	err = abbrev_layout(u, a);
	if (err)
		return err;
	u->tab.nr_abbrevs++;
	return 0;
trunc:
	return die_unit_err(u, -EINVAL, NULL, "abbreviation %llu runs past .debug_abbrev's end",
			(unsigned long long)code);
}

static int cmp_code(const void *a, const void *b)
{
	const struct code_index *x = a, *y = b;

	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The code -> entry map: dense when codes are small, else sorted. */
static int index_codes(struct die_unit *u, uint64_t max_code)
{
	size_t i, j;
	int err;

	u->tab.use_dense = max_code <= 2 * (uint64_t)u->tab.nr_abbrevs + DENSE_SLACK;
	if (u->tab.use_dense) {
		u->tab.nr_dense = (size_t)max_code + 1;
		err = VEC_RESERVE(u->tab.dense, u->tab.cap_dense, 0, u->tab.nr_dense);
		if (err)
			return die_unit_err(u, err, NULL, "out of memory for abbreviations");
		memset(u->tab.dense, 0, u->tab.nr_dense * sizeof(*u->tab.dense));
		/* the first definition of a code wins */
		for (i = u->tab.nr_abbrevs; i-- > 0;)
			u->tab.dense[u->tab.abbrevs[i].code] = (uint32_t)i + 1;
		return 0;
	}
	err = VEC_RESERVE(u->tab.sparse, u->tab.cap_sparse, 0, u->tab.nr_abbrevs);
	if (err)
		return die_unit_err(u, err, NULL, "out of memory for abbreviations");
	for (i = 0; i < u->tab.nr_abbrevs; i++)
		u->tab.sparse[i] = (struct code_index){ u->tab.abbrevs[i].code, (uint32_t)i };
	qsort(u->tab.sparse, u->tab.nr_abbrevs, sizeof(*u->tab.sparse), cmp_code);
	for (i = j = 0; i < u->tab.nr_abbrevs; i++)
		if (!j || u->tab.sparse[j - 1].code != u->tab.sparse[i].code)
			u->tab.sparse[j++] = u->tab.sparse[i];
	u->tab.nr_dense = j;	/* entries of sparse */
	return 0;
}

int die_unit_parse_abbrevs(struct die_unit *u)
{
	const struct die_bytes *b = &u->r->sec[DIE_SEC_ABBREV];
	const uint8_t *p, *end = b->buf + b->size;
	uint64_t code, max_code = 0;
	int err;

	u->tab.nr_abbrevs = u->tab.nr_attrs = u->tab.nr_ops = 0;
	if (u->abbrev_start > b->size || u->hdr.abbrev_off >= b->size - u->abbrev_start)
		return die_unit_err(u, -EINVAL, NULL, "abbreviation offset 0x%llx past .debug_abbrev",
				(unsigned long long)u->hdr.abbrev_off);
	p = b->buf + u->abbrev_start + u->hdr.abbrev_off;
	for (;;) {
		if (uleb(&p, end, &code))
			return die_unit_err(u, -EINVAL, NULL,
					"abbreviation table runs past .debug_abbrev's end");
		if (!code)
			break;
		if (u->tab.nr_abbrevs >= UINT32_MAX - 1)
			return die_unit_err(u, -EINVAL, NULL, "too many abbreviations");
		err = parse_abbrev(u, code, &p, end);
		if (err)
			return err;
		if (code > max_code)
			max_code = code;
	}
	return index_codes(u, max_code);
}

bool die_unit__has_abbrev_tag(const struct die_unit *u, unsigned int tag)
{
	size_t i;

	for (i = 0; u->loaded && i < u->tab.nr_abbrevs; i++)
		if (u->tab.abbrevs[i].tag == tag)
			return true;
	return false;
}

bool die_unit__has_abbrev_attr(const struct die_unit *u, unsigned int name)
{
	size_t i;

	for (i = 0; u->loaded && i < u->tab.nr_attrs; i++)
		if (u->tab.attrs[i].name == name)
			return true;
	return false;
}
