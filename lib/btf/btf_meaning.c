// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The meaning of each type, for comparing two BTF graphs by meaning
 * (btf_compare.c has the theory; this is its pass 1): a 64-bit Merkle
 * hash of a type's canonical form, a reference to a named type being its
 * key (class and name), a reference to an anonymous type its meaning,
 * memoized per ID; anonymous cycles hash as their distance up the stack of
 * types in progress, and such results are not memoized.  Then each side's
 * named and anonymous entries, for pass 2 to sort and merge.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/compare_internal.h"
#include "base/hmap.h"
#include "base/vec.h"

/* ---- hashing ---- */

static inline uint64_t feed(uint64_t h, uint64_t v)
{
	return hash_mix64(h ^ hash_mix64(v + 0x9e3779b97f4a7c15ULL));
}

static uint64_t feed_str(uint64_t h, const char *s)
{
	return feed(h, hash_str(s ? s : ""));
}

static bool compared(const struct cmp *c, unsigned int kind)
{
	return !c->opts.kinds || (c->opts.kinds & (1u << kind));
}

/* Named kinds are identified by (class, name). */
static bool kind_is_named(unsigned int kind)
{
	switch (kind) {
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
	case D2B_KIND_FWD:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_FUNC:
	case D2B_KIND_VAR:
	case D2B_KIND_DATASEC:
	case D2B_KIND_LOCSEC:		/* by its section */
		return true;
	default:
		return false;
	}
}

const char *cmp_type_name(const struct cmp_side *s, const struct d2b_type *t)
{
	const char *n = d2b_btf__str(s->btf, t->name_off);

	return n ? n : "";
}

bool cmp_type_is_named(const struct cmp_side *s, const struct d2b_type *t)
{
	return kind_is_named(d2b_kind(t)) && *cmp_type_name(s, t);
}

static uint32_t key_class(unsigned int kind)
{
	return kind == D2B_KIND_ENUM64 ? D2B_KIND_ENUM : kind;
}

/* What a reference to the named type t means: its class and name. */
static uint64_t ref_token(const struct cmp *c, const struct cmp_side *s, const struct d2b_type *t)
{
	uint64_t cls = key_class(d2b_kind(t));

	if (cls == D2B_KIND_FWD) {
		if (c->opts.fwd_as_struct)
			cls = btf_fwd_kind(t);
		else
			cls = d2b_kflag(t) ? TOK_FWD_UNION : TOK_FWD_STRUCT;
	}
	return feed_str(feed(TOK_REF, cls), cmp_type_name(s, t));
}

static int meaning_of(struct cmp *c, struct cmp_side *s, uint32_t id, uint32_t depth,
		      uint32_t *low, uint64_t *ret);

/* Flattened view of an ARRAY chain: total count and innermost element. */
static void array_flatten(const struct cmp_side *s, const struct d2b_type *t,
			  uint64_t *nelems, uint32_t *elem)
{
	const struct d2b_array *a = btf_array(t);
	uint64_t n = a->nelems;
	int i;

	*elem = a->type;
	for (i = 0; i < MAX_ARRAY_CHAIN; i++) {
		const struct d2b_type *in = d2b_btf__type(s->btf, *elem);

		if (!in || d2b_kind(in) != D2B_KIND_ARRAY)
			break;
		n *= btf_array(in)->nelems;
		*elem = btf_array(in)->type;
	}
	*nelems = n;
}

/*
 * A LOCSEC's sites as a multiset: each (its FUNC, by name; its offset; the
 * meaning of its LOC_PROTO) hashed alone, the hashes summed, so that the
 * order of the sites does not matter.
 */
static int locsec_hash(struct cmp *c, struct cmp_side *s, const struct d2b_type *t,
		       uint32_t depth, uint32_t *low, uint64_t *ret)
{
	uint64_t sum = 0, f, p;
	uint32_t i;
	int err;

	for (i = 0; i < d2b_vlen(t); i++) {
		const struct d2b_loc *l = d2b_locsec_locs(t) + i;

		err = meaning_of(c, s, l->func, depth, low, &f);
		if (!err)
			err = meaning_of(c, s, l->loc_proto, depth, low, &p);
		if (err)
			return err;
		sum += hash_mix64(feed(feed(feed(TOK_LOC, f), l->offset), p));
	}
	*ret = feed(feed(*ret, d2b_vlen(t)), sum);
	return 0;
}

/* The hash of t's own body; referenced types through meaning_of(). */
static int body_hash(struct cmp *c, struct cmp_side *s, const struct d2b_type *t,
		     uint32_t depth, uint32_t *low, uint64_t *ret)
{
	unsigned int kind = d2b_kind(t), vlen = d2b_vlen(t), i;
	uint64_t h = feed(feed(TOK_BODY, kind), hash_str(cmp_type_name(s, t))), sub;
	uint64_t n;
	uint32_t elem;
	int err = 0;

#define SUB(id) do {						\
		err = meaning_of(c, s, (id), depth, low, &sub);	\
		if (err)					\
			return err;				\
		h = feed(h, sub);				\
	} while (0)
	switch (kind) {
	case D2B_KIND_INT:
		h = feed(feed(h, t->size), btf_int_word(t));
		break;
	case D2B_KIND_FLOAT:
		h = feed(h, t->size);
		break;
	case D2B_KIND_FWD:
		h = feed(h, d2b_kflag(t));
		break;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		h = feed(feed(h, t->size), vlen);
		for (i = 0; i < vlen; i++) {
			const struct d2b_member *m = btf_members(t) + i;

			h = feed(h, TOK_MEMBER);
			h = feed_str(h, d2b_btf__str(s->btf, m->name_off));
			h = feed(h, d2b_member_bit_offset(t, m));
			h = feed(h, d2b_member_bitfield_size(t, m));
			SUB(m->type);
		}
		break;
	case D2B_KIND_ENUM:
		h = feed(feed(feed(h, t->size), d2b_kflag(t)), vlen);
		for (i = 0; i < vlen; i++) {
			const struct d2b_enum *e = btf_enums(t) + i;
			/* kind_flag: signed */
			int64_t v = d2b_kflag(t) ? (int64_t)e->val : (int64_t)(uint32_t)e->val;

			h = feed(h, TOK_VALUE);
			h = feed(feed_str(h, d2b_btf__str(s->btf, e->name_off)), (uint64_t)v);
		}
		break;
	case D2B_KIND_ENUM64:
		h = feed(feed(feed(h, t->size), d2b_kflag(t)), vlen);
		for (i = 0; i < vlen; i++) {
			const struct d2b_enum64 *e = btf_enums64(t) + i;

			h = feed(h, TOK_VALUE);
			h = feed(feed_str(h, d2b_btf__str(s->btf, e->name_off)), btf_enum64_val(e));
		}
		break;
	case D2B_KIND_ARRAY:
		if (c->opts.flatten_arrays) {
			array_flatten(s, t, &n, &elem);
		} else {
			n = btf_array(t)->nelems;
			elem = btf_array(t)->type;
		}
		h = feed(h, n);
		SUB(elem);
		if (!c->opts.ignore_index_type)
			SUB(btf_array(t)->index_type);
		break;
	case D2B_KIND_FUNC_PROTO:
		SUB(t->type);
		h = feed(h, vlen);
		for (i = 0; i < vlen; i++) {
			const struct d2b_param *p = btf_params(t) + i;

			h = feed_str(feed(h, TOK_PARAM), d2b_btf__str(s->btf, p->name_off));
			SUB(p->type);
		}
		break;
	case D2B_KIND_FUNC:
		h = feed(h, c->opts.ignore_linkage ? 0 : vlen);	/* linkage */
		SUB(t->type);
		break;
	case D2B_KIND_VAR:
		h = feed(h, c->opts.ignore_linkage ? 0 : btf_var_linkage(t));
		SUB(t->type);
		break;
	case D2B_KIND_DATASEC:
		h = feed(feed(h, t->size), vlen);
		for (i = 0; i < vlen; i++) {
			const struct d2b_var_secinfo *v = btf_secinfos(t) + i;

			h = feed(feed(feed(h, TOK_SECINFO), v->offset), v->size);
			SUB(v->type);
		}
		break;
	case D2B_KIND_DECL_TAG:
		h = feed(feed(h, (uint32_t)btf_decl_tag_idx(t)), d2b_kflag(t));
		SUB(t->type);
		break;
	case D2B_KIND_TYPE_TAG:
		h = feed(h, d2b_kflag(t));	/* 1: an attribute */
		SUB(t->type);
		break;
	case D2B_KIND_PTR:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_CONST:
	case D2B_KIND_RESTRICT:
		SUB(t->type);
		break;
	case D2B_KIND_LOC_PARAM:
		h = feed(feed(feed(h, t->size), d2b_loc_param_flags(t)), vlen);
		for (i = 0; i < vlen; i++)
			h = feed(h, d2b_loc_param_values(t)[i]);
		break;
	case D2B_KIND_LOC_PROTO:
		h = feed(h, vlen);
		for (i = 0; i < vlen; i++)
			SUB(d2b_loc_proto_params(t)[i]);
		break;
	case D2B_KIND_LOCSEC:
		err = locsec_hash(c, s, t, depth, low, &h);
		break;
	default:
		h = feed(h, t->info);
		break;
	}
#undef SUB
	*ret = h;
	return 0;
}

/*
 * The meaning of a reference to id, at anonymous nesting depth.  *low
 * collects the lowest stack depth a back edge reached, so that a caller can
 * tell whether its result is self-contained.
 */
static int meaning_of(struct cmp *c, struct cmp_side *s, uint32_t id, uint32_t depth,
		      uint32_t *low, uint64_t *ret)
{
	const struct d2b_type *t;
	uint32_t sub_low = UINT32_MAX;
	uint64_t h;
	int err;

	if (id == 0) {
		*ret = TOK_VOID;
		return 0;
	}
	t = id < s->end ? d2b_btf__type(s->btf, id) : NULL;
	if (!t) {
		*ret = feed(TOK_INVALID, id);
		return 0;
	}
	if (cmp_type_is_named(s, t)) {
		*ret = ref_token(c, s, t);
		return 0;
	}
	switch (s->state[id]) {
	case MEMO_DONE:
		*ret = s->memo[id];
		return 0;
	case MEMO_BUSY:
		if (s->depth[id] < *low)
			*low = s->depth[id];
		*ret = feed(TOK_CYCLE, depth - s->depth[id]);
		return 0;
	default:
		break;
	}
	if (depth >= MAX_ANON_DEPTH)
		return -ELOOP;
	if (!c->budget)
		return -E2BIG;
	c->budget--;
	s->state[id] = MEMO_BUSY;
	s->depth[id] = depth;
	err = body_hash(c, s, t, depth + 1, &sub_low, &h);
	if (err) {
		s->state[id] = MEMO_NONE;
		return err;
	}
	if (sub_low >= depth) {
		s->state[id] = MEMO_DONE;
		s->memo[id] = h;
	} else {
		s->state[id] = MEMO_NONE;
		if (sub_low < *low)
			*low = sub_low;
	}
	*ret = h;
	return 0;
}

/* Meaning of a reference from outside any walk (pass 3). */
uint64_t cmp_ref_meaning(struct cmp *c, struct cmp_side *s, uint32_t id)
{
	uint32_t low = UINT32_MAX;
	uint64_t h = 0;

	if (meaning_of(c, s, id, 0, &low, &h))
		return feed(TOK_INVALID, id);	/* already hashed in pass 1: unreachable */
	return h;
}

/* ---- pass 1: hash every own type ---- */

/* flatten_arrays: mark ARRAYs that are referenced only as an ARRAY element. */
static int mark_elem_only(struct cmp_side *s)
{
	uint8_t *other;
	uint32_t id;

	s->elem_only = calloc(s->end, 1);
	other = calloc(s->end, 1);
	if (!s->elem_only || !other) {
		free(other);
		return -ENOMEM;
	}
	for (id = s->start; id < s->end; id++) {
		struct d2b_type *t = (struct d2b_type *)d2b_btf__type(s->btf, id);
		struct btf_field_iter it;
		uint32_t *f;

		if (!t)
			continue;
		btf_field_iter__init(&it, t, BTF_FIELD_IDS);
		while ((f = btf_field_iter__next(&it))) {
			bool as_elem = d2b_kind(t) == D2B_KIND_ARRAY && f == &((struct d2b_array *)(t + 1))->type;

			if (*f >= s->end)
				continue;
			if (as_elem)
				s->elem_only[*f] = 1;
			else
				other[*f] = 1;
		}
	}
	for (id = 0; id < s->end; id++)
		if (other[id])
			s->elem_only[id] = 0;
	free(other);
	return 0;
}

int cmp_side_hash(struct cmp *c, struct cmp_side *s)
{
	uint32_t id;
	int err;

	s->start = d2b_btf__start_id(s->btf);
	s->fwd_as_struct = c->opts.fwd_as_struct;
	s->end = d2b_btf__end_id(s->btf);
	s->memo = calloc(s->end, sizeof(*s->memo));
	s->state = calloc(s->end, sizeof(*s->state));
	s->depth = calloc(s->end, sizeof(*s->depth));
	if (!s->memo || !s->state || !s->depth)
		return -ENOMEM;
	if (c->opts.flatten_arrays) {
		err = mark_elem_only(s);
		if (err)
			return err;
	}
	for (id = s->start; id < s->end; id++) {
		const struct d2b_type *t = d2b_btf__type(s->btf, id);
		struct d2b_compare_kind_stats *ks;
		unsigned int kind;
		uint32_t low = UINT32_MAX;
		uint64_t h;

		if (!t)
			return -EINVAL;
		kind = d2b_kind(t);
		ks = &c->sum.kind[kind > D2B_KIND_MAX ? 0 : kind];
		if (s == &c->side[0])
			ks->nr_a++;
		else
			ks->nr_b++;
		if (cmp_type_is_named(s, t)) {
			if (!compared(c, kind))
				continue;
			err = body_hash(c, s, t, 0, &low, &h);
			if (err)
				return err;
			err = VEC_RESERVE(s->named, s->named_cap, s->nnamed, 1);
			if (err)
				return err;
			s->named[s->nnamed++] = (struct named_ent){
				.name = cmp_type_name(s, t), .hash = h,
				.cls = key_class(kind), .kind = kind, .id = id,
			};
			continue;
		}
		if (s == &c->side[0])
			ks->anon_a++;
		else
			ks->anon_b++;
		if (c->opts.no_anon || !compared(c, kind))
			continue;
		if (s->elem_only && s->elem_only[id] && kind == D2B_KIND_ARRAY)
			continue;
		err = meaning_of(c, s, id, 0, &low, &h);
		if (err)
			return err;
		err = VEC_RESERVE(s->anon, s->anon_cap, s->nanon, 1);
		if (err)
			return err;
		s->anon[s->nanon++] = (struct anon_ent){ .hash = h, .kind = kind, .id = id };
	}
	return 0;
}

int cmp_key_order(const struct named_ent *a, const struct named_ent *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return strcmp(a->name, b->name);
}

int cmp_named_sort(const void *pa, const void *pb)
{
	const struct named_ent *a = pa, *b = pb;
	int r = cmp_key_order(a, b);

	if (r)
		return r;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int cmp_anon_key_order(const struct anon_ent *a, const struct anon_ent *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return 0;
}

int cmp_anon_sort(const void *pa, const void *pb)
{
	const struct anon_ent *a = pa, *b = pb;
	int r = cmp_anon_key_order(a, b);

	return r ? r : a->id < b->id ? -1 : a->id > b->id;
}

void cmp_side_release(struct cmp_side *s)
{
	free(s->memo);
	free(s->state);
	free(s->depth);
	free(s->elem_only);
	free(s->named);
	free(s->anon);
}
