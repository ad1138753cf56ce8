// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The merge's strings and forms: a type copied with its strings as
 * destination offsets and its IDs as a mode wants them, the index key
 * made from it, and the indexing of canonical types (theory in merge.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "merge/merge_internal.h"
#include "base/hmap.h"
#include "base/pages.h"
#include "base/ptr_cache.h"
#include "base/vec.h"

/* ---- strings and forms ---- */

/* map_tail()'s cache: 2^TAIL_ORDER slots, enough that a kernel's tails
 * rarely miss it (tests/bench/README) */
enum { TAIL_ORDER = 16 };

/*
 * A tail of the shared names base (str_adder__use_names()): the destination's own
 * string of its bytes, which no whole string of the base has, one offset
 * for each of its places (and for the same bytes from elsewhere).  In a
 * section that GNU ld merged each name has one place, which m->d.tails
 * remembers across sources.
 */
static int map_tail(struct merge *m, uint32_t off, uint32_t *ret)
{
	const char *s;
	int r;

	if (!m->d.tails) {
		/* the base's bytes, which the tails range repeats */
		m->d.tails = ptr_cache__new(d2b_btf__str(m->s.src, m->s.tails_start),
					    m->s.tails_start, TAIL_ORDER);
		if (!m->d.tails)
			return -ENOMEM;
	}
	s = (const char *)ptr_cache__lo(m->d.tails) + (off - m->s.tails_start);
	if (ptr_cache__get(m->d.tails, s, ret))
		return 0;
	r = btf_add_str_apart(m->d.dst, s);
	if (r < 0)
		return r;
	ptr_cache__put(m->d.tails, s, (uint32_t)r);
	*ret = (uint32_t)r;
	return 0;
}

/* merge_str() past its inline case ("" and the base's strings shared with
 * the destination, below m->s.str_same_below): a tail, or an own string */
int merge_str_slow(struct merge *m, uint32_t off, uint32_t *ret)
{
	const char *s;
	size_t i;
	int r;

	if (off < m->s.s_str_start)
		return map_tail(m, off, ret);
	i = off - m->s.s_str_start;
	if (i >= m->s.smap_n)
		return -EINVAL;
	if (m->s.sparse_strs) {
		uint64_t v;

		if (hmap__find(&m->s.smap_sparse, i, &v)) {
			*ret = (uint32_t)v;
			return 0;
		}
	} else if (m->s.smap[i] != UNSET) {
		*ret = m->s.smap[i];
		return 0;
	}
	s = d2b_btf__str(m->s.src, off);
	if (!s)
		return -EINVAL;
	/* an own string of a source over dst's base that was looked for in
	 * it already is not there */
	r = m->s.s_str_start && btf_strs_apart(m->s.src) ? btf_add_str_apart(m->d.dst, s) :
						       d2b_btf__add_str(m->d.dst, s);
	if (r < 0)
		return r;
	if (m->s.sparse_strs) {
		int err = hmap__add(&m->s.smap_sparse, i, (uint32_t)r);

		if (err)
			return err;
	} else {
		m->s.smap[i] = r;
	}
	*ret = r;
	return 0;
}

int merge_name_of(struct merge *m, uint32_t id, uint32_t *ret)
{
	const struct d2b_type *t = type_of(m, id);

	if (!t)
		return -EINVAL;
	if (!is_virt(m, id)) {
		*ret = t->name_off;
		return 0;
	}
	return merge_str(m, t->name_off, ret);
}

int merge_form_fill(struct merge *m, struct form *f, uint32_t id, enum form_mode mode)
{
	const struct d2b_type *t = type_of(m, id);
	bool own = is_virt(m, id);
	struct btf_field_iter it;
	uint32_t *p;
	int err;

	if (!t)
		return -EINVAL;
	f->nw = btf_type_words(t);
	f->nids = 0;
	if (!own && mode == FORM_RESOLVE) {
		f->p = (const uint32_t *)t;
		return 0;
	}
	err = VEC_RESERVE(f->w, f->w_cap, 0, f->nw);
	if (!err)
		err = VEC_RESERVE(f->ids, f->ids_cap, 0, f->nw);
	if (err)
		return err;
	if (own && mode == FORM_RESOLVE && f->nw == 3 && is_single_ref(d2b_kind(t))) {
		/* what the general path below makes of it, for pass 4's
		 * commonest kinds: the name, the info, the resolved target */
		f->w[1] = t->info;
		f->w[2] = resolve(m, translate(m, t->type));
		f->p = f->w;
		return merge_str(m, t->name_off, &f->w[0]);
	}
	memcpy(f->w, t, f->nw * 4);
	f->p = f->w;
	if (own) {
		btf_field_iter__init(&it, (struct d2b_type *)f->w, BTF_FIELD_STRS);
		while ((p = btf_field_iter__next(&it))) {
			err = merge_str(m, *p, p);
			if (err)
				return err;
		}
	}
	btf_field_iter__init(&it, (struct d2b_type *)f->w, BTF_FIELD_IDS);
	while ((p = btf_field_iter__next(&it))) {
		uint32_t v = own ? translate(m, *p) : *p;

		switch (mode) {
		case FORM_RESOLVE:
			*p = resolve(m, v);
			break;
		case FORM_SHALLOW:
			f->ids[f->nids++] = v;
			*p = 0;
			break;
		case FORM_FINAL:
			*p = final_id(m, v);
			break;
		}
	}
	return 0;
}


/* The index key of a type: shallow for structs/unions, full otherwise. */
int merge_type_key(struct merge *m, struct form *f, uint32_t id, uint64_t *ret)
{
	const struct d2b_type *t = type_of(m, id);
	int err;

	if (!t)
		return -EINVAL;
	err = merge_form_fill(m, f, id, btf_kind_is_composite(d2b_kind(t)) ? FORM_SHALLOW : FORM_RESOLVE);
	if (err)
		return err;
	*ret = hash_bytes(f->p, f->nw * 4, 0);
	return 0;
}

void over_index_release(struct over_index *o)
{
	int k;

	for (k = 0; k < NR_OVER; k++)
		free(o->first[k]);
	memset(o, 0, sizeof(*o));
}

int over_index_reserve(struct over_index *o, uint32_t type)
{
	size_t cap = o->cap ? o->cap : 1024;
	int j;

	if (type < o->cap)
		return 0;
	while (cap <= type)
		cap *= 2;
	for (j = 0; j < NR_OVER; j++) {
		/* (the first time fresh zero pages, no memset) */
		bool had = o->first[j] != NULL;
		uint32_t *f;

		if (o->sparse) {
			/* (zero pages, touched only where written) */
			f = calloc(cap, sizeof(*f));
			if (f && had)
				memcpy(f, o->first[j], o->cap * sizeof(*f));
			if (f)
				free(o->first[j]);
		} else {
			f = had ? realloc(o->first[j], cap * sizeof(*f)) :
				  pages__zalloc(cap, sizeof(*f));
			if (f && had)
				memset(f + o->cap, 0, (cap - o->cap) * sizeof(*f));
		}
		if (!f)
			return -ENOMEM;
		o->first[j] = f;
	}
	o->cap = cap;
	return 0;
}

int over_index_add(struct over_index *o, const struct d2b_type *t, uint32_t id)
{
	int k = over_slot_of(t);
	int err;

	if (k < 0)
		return 0;
	err = over_index_reserve(o, t->type);
	if (err)
		return err;
	if (!o->first[k][t->type])
		o->first[k][t->type] = id;
	return 0;
}

int merge_index_keyed(struct hmap *h, struct over_index *over, const struct d2b_type *t,
		      uint32_t id, uint64_t key)
{
	int err = hmap__add(h, key, id);

	if (!err && over)
		err = over_index_add(over, t, id);
	if (!err && is_full_enum(t) && t->name_off)
		err = hmap__add(h, enum_name_key(t->name_off), id);
	return err;
}

int merge_index_name(struct merge *m, uint32_t id)
{
	const struct d2b_type *t = type_of(m, id);

	if (!t || !btf_kind_is_composite(d2b_kind(t)) || !t->name_off)
		return 0;
	return hmap__add(&m->d.index, composite_name_key(t->name_off, d2b_kind(t)), id);
}

int merge_index_type(struct merge *m, struct hmap *h, uint32_t id)
{
	uint64_t key;
	int err;

	err = merge_type_key(m, &m->w.fa, id, &key);
	if (err)
		return err;
	/* (for the kinds over indexes, a destination type's form is the type
	 * itself) */
	err = merge_index_keyed(h, h == &m->d.index ? &m->d.over : NULL,
				(const struct d2b_type *)m->w.fa.p, id, key);
	if (!err && h == &m->d.index && m->d.index_names)
		err = merge_index_name(m, id);
	return err;
}

int merge_make_canonical(struct merge *m, uint32_t i, const struct d2b_type *form, uint64_t key)
{
	m->s.map[i] = vid(m, i);
	return merge_index_keyed(&m->s.local, NULL, form, vid(m, i), key);
}
