// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The DIE reader's forms and attributes (the reader is die_reader.c, its
 * theory there): how each form is skipped, how a value is decoded, and the
 * attribute lookups.  A DIE's bytes were all checked when it was read, so
 * decoding works inside [attrs, end); values that point into other
 * sections (strings, string offsets, addresses) are checked here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <dwarf.h>

#include "dwarf/die_internal.h"

const char *const die_section_names[DIE_SEC_NR] = {
	[DIE_SEC_INFO] = "info",
	[DIE_SEC_TYPES] = "types",
	[DIE_SEC_ABBREV] = "abbrev",
	[DIE_SEC_STR] = "str",
	[DIE_SEC_LINE_STR] = "line_str",
	[DIE_SEC_STR_OFFSETS] = "str_offsets",
	[DIE_SEC_ADDR] = "addr",
};

/* ---- errors ---- */

int die_unit_err(struct die_unit *u, int err, const uint8_t *die, const char *fmt, ...)
{
	char why[ERR_WHY_LEN];
	va_list ap;

	if (!u->diag)
		return err;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (die)
		diag__say(u->diag, D2B_ERROR, "unit 0x%llx: DIE 0x%llx: %s",
			  (unsigned long long)u->hdr.off, (unsigned long long)(die - u->base), why);
	else
		diag__say(u->diag, D2B_ERROR, "unit 0x%llx: %s", (unsigned long long)u->hdr.off, why);
	return err;
}
/* ---- forms ---- */

bool die_form_shape(unsigned int form, const struct die_unit_header *h, uint8_t *skip,
		       uint8_t *size)
{
	*skip = SKIP_FIXED;
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		*size = 0;
		return true;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
	case DW_FORM_strx1: case DW_FORM_addrx1:
		*size = 1;
		return true;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		*size = 2;
		return true;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		*size = 3;
		return true;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4:
	case DW_FORM_strx4: case DW_FORM_addrx4:
		*size = 4;
		return true;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		*size = 8;
		return true;
	case DW_FORM_data16:
		*size = 16;
		return true;
	case DW_FORM_addr:
		*size = h->addr_size;
		return true;
	case DW_FORM_ref_addr:
		*size = h->version == 2 ? h->addr_size : h->offset_size;
		return true;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		*size = h->offset_size;
		return true;
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_ref_udata:
	case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		*skip = SKIP_LEB;
		break;
	case DW_FORM_string:
		*skip = SKIP_STRING;
		break;
	case DW_FORM_block1:
		*skip = SKIP_BLOCK1;
		break;
	case DW_FORM_block2:
		*skip = SKIP_BLOCK2;
		break;
	case DW_FORM_block4:
		*skip = SKIP_BLOCK4;
		break;
	case DW_FORM_block: case DW_FORM_exprloc:
		*skip = SKIP_BLOCK_LEB;
		break;
	case DW_FORM_indirect:
		*skip = SKIP_INDIRECT;
		break;
	default:
		*skip = SKIP_BAD;
		return false;
	}
	*size = 0;
	return true;
}

int die_skip_slow(struct die_unit *u, const uint8_t *die, unsigned int form,
		     unsigned int skip, const uint8_t **p, const uint8_t *end)
{
	const uint8_t *q = *p;
	uint64_t len, f;
	uint8_t s, sz;

	switch (skip) {
	case SKIP_BLOCK1:
	case SKIP_BLOCK2:
	case SKIP_BLOCK4:
		sz = skip == SKIP_BLOCK1 ? 1 : skip == SKIP_BLOCK2 ? 2 : 4;
		if ((size_t)(end - q) < sz)
			goto trunc;
		len = rd_n(q, sz, u->r->big_endian);
		q += sz;
		break;
	case SKIP_BLOCK_LEB:
		if (uleb(&q, end, &len))
			goto trunc;
		break;
	case SKIP_INDIRECT:
		if (uleb(&q, end, &f))
			goto trunc;
		if (f == DW_FORM_indirect || f == DW_FORM_implicit_const || f > UINT16_MAX ||
		    !die_form_shape((unsigned int)f, &u->hdr, &s, &sz))
			return die_unit_err(u, -EINVAL, die, "DW_FORM_indirect names form 0x%llx",
					(unsigned long long)f);
		*p = q;
		return skip_one(u, die, (unsigned int)f, s, sz, p, end);
	default:
		return die_unit_err(u, -EINVAL, die, "unknown attribute form 0x%x", form);
	}
	if ((uint64_t)(end - q) < len)
		goto trunc;
	*p = q + len;
	return 0;
trunc:
	return die_unit_err(u, -EINVAL, die, "attribute of form 0x%x runs past the unit's end", form);
}
/* ---- attributes ---- */

static int str_at(struct die_unit *u, const uint8_t *die, enum die_section sec, uint64_t off,
		  const char **ret)
{
	const struct die_bytes *b = &u->r->sec[sec];
	bool ended = sec == DIE_SEC_STR ? u->r->str_nul_ended : u->r->line_str_nul_ended;

	if (off >= b->size)
		return die_unit_err(u, -EINVAL, die, "string offset 0x%llx past .debug_%s's end",
				(unsigned long long)off, die_section_names[sec]);
	if (!ended && !memchr(b->buf + off, 0, b->size - off))
		return die_unit_err(u, -EINVAL, die, "string at 0x%llx of .debug_%s is not terminated",
				(unsigned long long)off, die_section_names[sec]);
	*ret = (const char *)b->buf + off;
	return 0;
}

static int strx(struct die_unit *u, const uint8_t *die, uint64_t idx, const char **ret)
{
	const struct die_bytes *b = &u->r->sec[DIE_SEC_STR_OFFSETS];
	unsigned int os = u->hdr.offset_size;
	uint64_t off;

	if (idx > (b->size / os) || u->str_offsets_base > b->size ||
	    idx * os > b->size - u->str_offsets_base ||
	    b->size - u->str_offsets_base - idx * os < os)
		return die_unit_err(u, -EINVAL, die, "string index %llu past .debug_str_offsets",
				(unsigned long long)idx);
	off = rd_n(b->buf + u->str_offsets_base + idx * os, os, u->r->big_endian);
	return str_at(u, die, DIE_SEC_STR, off, ret);
}

static int addrx(struct die_unit *u, const uint8_t *die, uint64_t idx, uint64_t *ret)
{
	const struct die_bytes *b = &u->r->sec[DIE_SEC_ADDR];
	unsigned int as = u->hdr.addr_size;

	if (idx > b->size / as || u->addr_base > b->size || idx * as > b->size - u->addr_base ||
	    b->size - u->addr_base - idx * as < as)
		return die_unit_err(u, -EINVAL, die, "address index %llu past .debug_addr",
				(unsigned long long)idx);
	*ret = rd_n(b->buf + u->addr_base + idx * as, as, u->r->big_endian);
	return 0;
}

int die_unit__addrx(struct die_unit *u, uint64_t idx, uint64_t *ret)
{
	if (!u->loaded)
		return die_unit_err(u, -EINVAL, NULL, "no unit loaded");
	return addrx(u, NULL, idx, ret);
}

int die_reader__str(const struct die_reader *r, uint64_t off, const char **ret)
{
	const struct die_bytes *b = &r->sec[DIE_SEC_STR];

	*ret = NULL;
	if (off >= b->size || (!r->str_nul_ended && !memchr(b->buf + off, 0, b->size - off)))
		return -EINVAL;
	*ret = (const char *)b->buf + off;
	return 0;
}

/*
 * Decode one value of form (skipped as skip/size) at p: the raw value,
 * then what the form makes of it.  The DIE's bytes were checked when it
 * was read, so lengths inside [p, d->end) hold; other sections are checked.
 */
static int decode(struct die_unit *u, const struct die *d, unsigned int form, unsigned int skip,
		  unsigned int size, const uint8_t *p, int64_t implicit, struct die_attr *ret)
{
	const uint8_t *die = u->base + d->off, *end = d->end;
	bool be = u->r->big_endian;

	ret->form = form;
	ret->u = 0;
	ret->str = NULL;
	ret->block = NULL;
	ret->len = 0;
	switch (skip) {
	case SKIP_FIXED:
		if (size <= 8)
			ret->u = rd_n(p, size, be);
		break;
	case SKIP_LEB:
		if (form == DW_FORM_sdata ? sleb(&p, end, &ret->s) : uleb(&p, end, &ret->u))
			goto trunc;
		break;
	case SKIP_STRING:
		ret->str = (const char *)p;
		return 0;
	case SKIP_BLOCK1:
	case SKIP_BLOCK2:
	case SKIP_BLOCK4:
		size = skip == SKIP_BLOCK1 ? 1 : skip == SKIP_BLOCK2 ? 2 : 4;
		ret->len = rd_n(p, size, be);
		ret->block = p + size;
		return 0;
	case SKIP_BLOCK_LEB:
		if (uleb(&p, end, &ret->len))
			goto trunc;
		ret->block = p;
		return 0;
	default:
		return die_unit_err(u, -EINVAL, die, "unknown attribute form 0x%x", form);
	}
	if (die_form_is_unit_ref(form))
		ret->u += u->hdr.off;
	switch (form) {
	case DW_FORM_flag:
		ret->u = ret->u != 0;
		break;
	case DW_FORM_flag_present:
		ret->u = 1;
		break;
	case DW_FORM_implicit_const:
		ret->s = implicit;
		break;
	case DW_FORM_data16:
		ret->block = p;
		ret->len = 16;
		break;
	case DW_FORM_strp:
		return str_at(u, die, DIE_SEC_STR, ret->u, &ret->str);
	case DW_FORM_line_strp:
		return str_at(u, die, DIE_SEC_LINE_STR, ret->u, &ret->str);
	case DW_FORM_strx: case DW_FORM_GNU_str_index:
	case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4:
		return strx(u, die, ret->u, &ret->str);
	case DW_FORM_addrx: case DW_FORM_GNU_addr_index:
	case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx3: case DW_FORM_addrx4:
		return addrx(u, die, ret->u, &ret->u);
	}
	return 0;
trunc:
	return die_unit_err(u, -EINVAL, die, "attribute of form 0x%x runs past the DIE's end", form);
}

/*
 * decode() for the forms most attributes have (type references, names in
 * .debug_str, small constants, flags), in a file of the host's byte order:
 * false leaves the others, and any string that needs a check, to decode().
 */
static inline bool decode_fast(const struct die_unit *u, unsigned int form, const uint8_t *p,
			       struct die_attr *ret)
{
	const struct die_bytes *str;
	uint64_t v;

	if (u->r->swap)
		return false;
	switch (form) {
	case DW_FORM_ref4:
		v = rd32(p, false) + u->hdr.off;
		break;
	case DW_FORM_data1:
		v = p[0];
		break;
	case DW_FORM_data2:
		v = rd16(p, false);
		break;
	case DW_FORM_data4:
		v = rd32(p, false);
		break;
	case DW_FORM_flag_present:
		v = 1;
		break;
	case DW_FORM_strp:
		str = &u->r->sec[DIE_SEC_STR];
		v = u->hdr.offset_size == 4 ? rd32(p, false) : rd64(p, false);
		if (v >= str->size || !u->r->str_nul_ended)
			return false;
		ret->form = form;
		ret->u = v;
		ret->str = (const char *)str->buf + v;
		ret->block = NULL;
		ret->len = 0;
		return true;
	default:
		return false;
	}
	ret->form = form;
	ret->u = v;
	ret->str = NULL;
	ret->block = NULL;
	ret->len = 0;
	return true;
}

/* Decode attribute i of d's abbreviation, whose bytes start at p. */
static int decode_attr(struct die_unit *u, const struct die *d, const struct abbrev *a,
		       uint32_t i, const uint8_t *p, struct die_attr *ret)
{
	const struct abbrev_attr *at = &u->tab.attrs[a->first + i];
	uint8_t skip = at->skip, size = at->size;
	uint64_t f = at->form;

	ret->name = at->name;
	/* an indirect form was checked when the DIE was read */
	if (f == DW_FORM_indirect && (uleb(&p, d->end, &f) || f > UINT16_MAX ||
				      !die_form_shape((unsigned int)f, &u->hdr, &skip, &size)))
		return die_unit_err(u, -EINVAL, u->base + d->off, "bad DW_FORM_indirect");
	return decode(u, d, (unsigned int)f, skip, size, p, u->tab.implicit[a->first + i], ret);
}

bool die__has_attr(const struct die_unit *u, const struct die *d, unsigned int name)
{
	const struct abbrev *a = &u->tab.abbrevs[d->abbrev];
	uint32_t i;

	if (name < 128)
		return !abbrev_lacks(a, name);
	for (i = 0; i < a->nattr; i++)
		if (u->tab.attrs[a->first + i].name == name)
			return true;
	return false;
}

int die__attrs(struct die_unit *u, const struct die *d, struct die_attr *want, size_t n)
{
	const struct abbrev *a = &u->tab.abbrevs[d->abbrev];
	/* (no attributes in the whole table: attrs is NULL) */
	const struct abbrev_attr *at = a->nattr ? &u->tab.attrs[a->first] : NULL;
	const uint8_t *die = u->base + d->off, *p = d->attrs, *q;
	uint32_t i, done = 0;	/* attributes [0, done) skipped: p is at done's */
	size_t j, found = 0;
	int err;

	for (j = 0; j < n; j++) {
		want[j].form = 0;
		if (abbrev_lacks(a, want[j].name))
			continue;
		for (i = 0; i < a->nattr && at[i].name != want[j].name; i++)
			;
		if (i == a->nattr)
			continue;
		q = attr_fixed_pos(&at[i], d);
		if (!q) {
			if (i < done) {
				p = d->attrs;
				done = 0;
			}
			err = skip_attrs(u, die, a, done, i, &p, d->end);
			if (err)
				return err;
			done = i;
			q = p;
		}
		err = decode_attr(u, d, a, i, q, &want[j]);
		if (err)
			return err;
		found++;
	}
	return (int)found;
}

/* die__attr() for attribute i (of a's), when decode_fast() cannot. */
static __attribute__((noinline)) int attr_slow(struct die_unit *u, const struct die *d,
					       const struct abbrev *a, uint32_t i,
					       struct die_attr *ret)
{
	const struct abbrev_attr *at = &u->tab.attrs[a->first];
	const uint8_t *p = attr_fixed_pos(&at[i], d);
	uint32_t j = i;
	int err = 0;

	/* past a variable size: skip from the last attribute at a fixed
	 * offset (the first always is, at 0) */
	if (!p) {
		while (at[j].fixed_off == VAR_OFF)
			j--;
		p = d->attrs + at[j].fixed_off;
		err = skip_attrs(u, u->base + d->off, a, j, i, &p, d->end);
	}
	if (!err)
		err = decode_attr(u, d, a, i, p, ret);
	return err ? err : 1;
}

/* die__attr() for an attribute that is not hot: found by a search. */
static __attribute__((noinline)) int attr_search(struct die_unit *u, const struct die *d,
						 const struct abbrev *a, unsigned int name,
						 struct die_attr *ret)
{
	const struct abbrev_attr *at = &u->tab.attrs[a->first];
	const uint8_t *p;
	uint32_t i;

	for (i = 0; i < a->nattr && at[i].name != name; i++)
		;
	if (i == a->nattr)
		return 0;
	p = attr_fixed_pos(&at[i], d);
	if (p && decode_fast(u, at[i].form, p, ret))
		return 1;
	return attr_slow(u, d, a, i, ret);
}

int die_attr_at(struct die_unit *u, const struct die *d, uint32_t i, struct die_attr *ret)
{
	const struct abbrev *a = &u->tab.abbrevs[d->abbrev];
	const struct abbrev_attr *at = &u->tab.attrs[a->first + i];
	const uint8_t *p = attr_fixed_pos(at, d);

	ret->name = at->name;
	ret->form = 0;
	if (p && decode_fast(u, at->form, p, ret))
		return 1;
	return attr_slow(u, d, a, i, ret);
}

/*
 * One attribute: a hot one's position is kept by its abbreviation, and
 * one at an offset the abbreviation fixes is decoded there; the rest as
 * die__attrs() reads them.  Small, for the common case: the rest is out
 * of line.
 */
int die__attr(struct die_unit *u, const struct die *d, unsigned int name, struct die_attr *ret)
{
	const struct abbrev *a = &u->tab.abbrevs[d->abbrev];
	const struct abbrev_attr *at;
	const uint8_t *p;
	int h;

	ret->name = name;
	ret->form = 0;
	if (abbrev_lacks(a, name))
		return 0;
	h = abbrev_hot(name);
	if (h < 0 || !a->hot[h])
		return a->nattr ? attr_search(u, d, a, name, ret) : 0;
	at = &u->tab.attrs[a->first + a->hot[h] - 1u];
	p = attr_fixed_pos(at, d);
	if (p && decode_fast(u, at->form, p, ret))
		return 1;
	return attr_slow(u, d, a, a->hot[h] - 1u, ret);
}

void die__attr_iter_init(const struct die *d, struct die_attr_iter *it)
{
	it->i = 0;
	it->pos = d->attrs;
}

int die__next_attr(struct die_unit *u, const struct die *d, struct die_attr_iter *it,
		   struct die_attr *ret)
{
	const struct abbrev *a = &u->tab.abbrevs[d->abbrev];
	int err;

	if (it->i >= a->nattr)
		return 0;
	err = decode_attr(u, d, a, it->i, it->pos, ret);
	if (!err)
		err = skip_attrs(u, u->base + d->off, a, it->i, it->i + 1, &it->pos, d->end);
	if (err)
		return err;
	it->i++;
	return 1;
}

bool die_attr__is_constant(const struct die_attr *a)
{
	switch (a->form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_implicit_const:
		return true;
	}
	return false;
}

int64_t die_attr__sdata(const struct die_attr *a)
{
	switch (a->form) {
	case DW_FORM_data1:
		return (int8_t)a->u;
	case DW_FORM_data2:
		return (int16_t)a->u;
	case DW_FORM_data4:
		return (int32_t)a->u;
	}
	return a->s;
}

uint64_t die_attr__udata(const struct die_attr *a)
{
	return a->u;
}
