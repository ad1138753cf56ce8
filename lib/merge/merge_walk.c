// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pass 3 of the merge: structs and unions, by walking a source struct and
 * a candidate in lock-step (theory in merge.c), forward declarations the
 * walks resolve, and the member shapes that spare walks bound to fail.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "merge/merge_internal.h"
#include "base/hmap.h"
#include "base/vec.h"

/* ---- pass 3: structs and unions ---- */

static int push_pair(struct merge *m, struct pair **stack, size_t *nr, size_t *cap,
		     uint32_t c, uint32_t k)
{
	int err = VEC_RESERVE(*stack, *cap, *nr, 1);

	if (err)
		return err;
	(*stack)[*nr].c = c;
	(*stack)[*nr].k = k;
	(*nr)++;
	(void)m;
	return 0;
}

/* ---- forward declarations resolved by walks ---- */

static uint64_t fwd_res_key(uint32_t name_off, uint32_t kind)
{
	return hash_combine(hash_combine(0x66776472ULL, name_off), kind);
}

/* The entry for FWD name_off of kind, or -1. */
long merge_fwd_res_find(const struct merge *m, uint32_t name_off, uint32_t kind)
{
	struct hmap_iter it;
	uint64_t v;

	hmap__iter_init(&m->d.res_index, fwd_res_key(name_off, kind), &it);
	while (hmap__next(&m->d.res_index, &it, &v)) {
		if (m->d.res[v].name_off == name_off && m->d.res[v].kind == kind)
			return (long)v;
	}
	return -1;
}

static bool is_base(const struct merge *m, uint32_t id)
{
	return !is_virt(m, id) && id < m->d.dst_start;
}

/*
 * The canonical side of a walk sees a FWD that an earlier walk resolved as
 * its definition, as libbpf does: from then on the FWD stands for that
 * struct only.  A FWD of a group being merged (m->d.seed) that the
 * destination has not resolved stands for the group's resolution: the
 * group's walks made it before its later units were merged into it, as
 * they would have been into the destination.  *ret = id otherwise.
 */
static int fwd_target(struct merge *m, uint32_t id, uint32_t *ret)
{
	const struct d2b_type *t = type_of(m, id);
	uint32_t name;
	long j = -1;
	int err;

	*ret = id;
	if (!t || d2b_kind(t) != D2B_KIND_FWD || !t->name_off || is_base(m, id) ||
	    (!m->d.nr_res && !m->d.seed))
		return 0;
	if (m->d.nr_res) {
		err = merge_name_of(m, id, &name);
		if (err)
			return err;
		j = merge_fwd_res_find(m, name, btf_fwd_kind(t));
	}
	if (j >= 0)
		*ret = resolve(m, m->d.res[j].target);
	else if (m->d.seed && is_virt(m, id) &&
		 (j = merge_fwd_res_find(m->d.seed, t->name_off, btf_fwd_kind(t))) >= 0)
		*ret = resolve(m, translate(m, m->d.seed->d.res[j].target));
	return 0;
}

/* Remember that this walk pairs FWD fwd with struct/union def. */
static int note_fwd(struct merge *m, uint32_t fwd, uint32_t def)
{
	if (is_base(m, fwd))	/* a base FWD never changes */
		return 0;
	return push_pair(m, &m->w.fwds, &m->w.nr_fwds, &m->w.fwds_cap, fwd, def);
}

/* A successful walk: each FWD it paired, if still unresolved, takes its struct for good. */
static int commit_fwds(struct merge *m)
{
	size_t j;
	int err;

	for (j = 0; j < m->w.nr_fwds; j++) {
		const struct d2b_type *t = type_of(m, m->w.fwds[j].c);
		struct fwd_res r;

		err = merge_name_of(m, m->w.fwds[j].c, &r.name_off);
		if (err)
			return err;
		r.kind = btf_fwd_kind(t);
		if (merge_fwd_res_find(m, r.name_off, r.kind) >= 0)
			continue;
		r.target = m->w.fwds[j].k;
		err = merge_fwd_res_add(m, &r);
		if (err)
			return err;
	}
	return 0;
}

int merge_fwd_res_add(struct merge *m, const struct fwd_res *r)
{
	int err = VEC_RESERVE(m->d.res, m->d.res_cap, m->d.nr_res, 1);

	if (err)
		return err;
	m->d.res[m->d.nr_res] = *r;
	err = merge_fwd_res_index(m, m->d.nr_res);
	if (!err)
		m->d.nr_res++;
	return err;
}

int merge_fwd_res_index(struct merge *m, size_t j)
{
	return hmap__add(&m->d.res_index, fwd_res_key(m->d.res[j].name_off, m->d.res[j].kind), j);
}

/* After the source is appended: its entries name destination IDs. */
void merge_fwd_res_finalize(struct merge *m)
{
	size_t j;

	for (j = m->d.res_unit; j < m->d.nr_res; j++)
		m->d.res[j].target = final_id(m, m->d.res[j].target);
	m->d.res_unit = m->d.nr_res;
}

/*
 * Two types that are different canonical types, or a kind mismatch: equal
 * only through FWD ~ STRUCT/UNION or forward enum ~ enum compatibility.
 * Every FWD ~ STRUCT pair is noted: if the walk succeeds, the FWD resolves.
 */
static int compat(struct merge *m, uint32_t rc, uint32_t rk)
{
	const struct d2b_type *tc = type_of(m, rc), *tk = type_of(m, rk);
	unsigned int kc, kk;
	uint32_t nc, nk;
	int err;

	if (!tc || !tk)
		return -EINVAL;
	kc = d2b_kind(tc);
	kk = d2b_kind(tk);
	err = merge_name_of(m, rc, &nc);
	if (!err)
		err = merge_name_of(m, rk, &nk);
	if (err)
		return err;
	if (nc != nk || !nc)
		return 0;
	if (kc == D2B_KIND_FWD && btf_kind_is_composite(kk) && btf_fwd_kind(tc) == kk)
		return note_fwd(m, rc, rk) ?: 1;
	if (kk == D2B_KIND_FWD && btf_kind_is_composite(kc) && btf_fwd_kind(tk) == kc)
		return note_fwd(m, rk, rc) ?: 1;
	if (btf_kind_is_enum(kc) && btf_kind_is_enum(kk) && (!d2b_vlen(tc) || !d2b_vlen(tk)))
		return 1;
	return 0;
}

/*
 * Are a and b the same type, field by field?  A unit can hold several
 * copies of one type (two DIEs for int[4]); the hypothetical map then meets
 * a second candidate for a canonical type it has already paired.
 */
static int identical(struct merge *m, uint32_t a, uint32_t b)
{
	unsigned int budget = IDENT_BUDGET;
	size_t j;
	int err;

	m->w.nr_istack = 0;
	err = push_pair(m, &m->w.istack, &m->w.nr_istack, &m->w.istack_cap, a, b);
	while (!err && m->w.nr_istack) {
		struct pair p = m->w.istack[--m->w.nr_istack];

		p.c = resolve(m, p.c);
		p.k = resolve(m, p.k);
		if (p.c == p.k)
			continue;
		if ((is_canon(m, p.c) && is_canon(m, p.k)) || !budget--)
			return 0;
		err = merge_form_fill(m, &m->w.fa, p.c, FORM_SHALLOW);
		if (!err)
			err = merge_form_fill(m, &m->w.fb, p.k, FORM_SHALLOW);
		if (err)
			return err;
		if (!form_equal(&m->w.fa, &m->w.fb))
			return 0;
		for (j = 0; j < m->w.fa.nids && !err; j++)
			err = push_pair(m, &m->w.istack, &m->w.nr_istack, &m->w.istack_cap,
					m->w.fa.ids[j], m->w.fb.ids[j]);
	}
	return err ? err : 1;
}

/* Whether string fields oc of c and ok of k are one destination string:
 * 1 yes, 0 no, < 0 error. */
static inline int same_str(struct merge *m, uint32_t c, uint32_t oc, uint32_t k, uint32_t ok)
{
	int err = 0;

	if (is_virt(m, c))
		err = merge_str(m, oc, &oc);
	if (!err && is_virt(m, k))
		err = merge_str(m, ok, &ok);
	return err ? err : oc == ok;
}

static inline int push_side_ids(struct merge *m, uint32_t c, uint32_t fc, uint32_t k, uint32_t fk)
{
	return push_pair(m, &m->w.stack, &m->w.nr_stack, &m->w.stack_cap,
			 is_virt(m, c) ? translate(m, fc) : fc,
			 is_virt(m, k) ? translate(m, fk) : fk);
}

enum { SHALLOW_BY_FORMS = 2 };

/*
 * walk_pair()'s shallow compare of two types of one kind, for the kinds
 * walks meet most, read in place: what comparing their FORM_SHALLOW forms
 * says (every word equal, strings as destination offsets, ID fields aside),
 * with the ID pairs pushed in the forms' order.  SHALLOW_BY_FORMS for the
 * other kinds.  Pairs pushed before a mismatch do not matter: the walk
 * ends there.
 */
static int shallow_step(struct merge *m, uint32_t c, const struct d2b_type *tc, uint32_t k,
			const struct d2b_type *tk)
{
	const uint32_t *a = (const uint32_t *)tc, *b = (const uint32_t *)tk;
	unsigned int kind = d2b_kind(tc);
	uint32_t j, vlen = d2b_vlen(tc);
	int err;

	if (!is_single_ref(kind) && !btf_kind_is_composite(kind) && kind != D2B_KIND_FUNC_PROTO &&
	    kind != D2B_KIND_ARRAY)
		return SHALLOW_BY_FORMS;
	if (a[1] != b[1])
		return 0;	/* kind, vlen, kind_flag */
	err = same_str(m, c, a[0], k, b[0]);
	if (err <= 0)
		return err;
	switch (kind) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		if (a[2] != b[2])
			return 0;
		for (j = 0; j < vlen; j++) {
			const uint32_t *ma = a + 3 + 3 * j, *mb = b + 3 + 3 * j;

			if (ma[2] != mb[2])
				return 0;
			err = same_str(m, c, ma[0], k, mb[0]);
			if (err <= 0)
				return err;
		}
		for (j = 0; j < vlen; j++) {
			err = push_side_ids(m, c, a[4 + 3 * j], k, b[4 + 3 * j]);
			if (err)
				return err;
		}
		return 1;
	case D2B_KIND_FUNC_PROTO:
		for (j = 0; j < vlen; j++) {
			err = same_str(m, c, a[3 + 2 * j], k, b[3 + 2 * j]);
			if (err <= 0)
				return err;
		}
		err = push_side_ids(m, c, a[2], k, b[2]);
		for (j = 0; j < vlen && !err; j++)
			err = push_side_ids(m, c, a[4 + 2 * j], k, b[4 + 2 * j]);
		return err ? err : 1;
	case D2B_KIND_ARRAY:
		if (a[2] != b[2] || a[5] != b[5])
			return 0;
		err = push_side_ids(m, c, a[3], k, b[3]);
		if (!err)
			err = push_side_ids(m, c, a[4], k, b[4]);
		return err ? err : 1;
	default:	/* is_single_ref() */
		err = push_side_ids(m, c, a[2], k, b[2]);
		return err ? err : 1;
	}
}

/*
 * One pair of the walk: 1 equivalent so far, 0 not, < 0 error.  A FWD on
 * the candidate side is equivalent to any STRUCT/UNION of its name and
 * kind; on the canonical side it stands for its resolution if it has one,
 * else it is paired like a struct (hypot), so that one walk cannot match it
 * with two different definitions.
 */
static int walk_pair(struct merge *m, uint32_t c, uint32_t k)
{
	uint32_t rc = resolve(m, c), rk = resolve(m, k), h;
	const struct d2b_type *tc, *tk;
	size_t j;
	int err;

	if (rc == rk)
		return 1;
	err = fwd_target(m, rk, &rk);
	if (err)
		return err;
	if (rc == rk)
		return 1;
	tk = type_of(m, rk);
	if (!tk)
		return -EINVAL;
	if (is_canon(m, rc) && is_canon(m, rk) && d2b_kind(tk) != D2B_KIND_FWD)
		return compat(m, rc, rk);
	h = m->w.hypot[rk];
	if (h != UNSET)
		return h == rc ? 1 : identical(m, h, rc);
	err = VEC_RESERVE(m->w.touched, m->w.touched_cap, m->w.nr_touched, 1);
	if (err)
		return err;
	m->w.touched[m->w.nr_touched++] = rk;
	m->w.hypot[rk] = rc;
	if (is_virt(m, rc) && m->s.ref_ok[vslot(m, rc)] == rk + 1)
		return 1;	/* a walk committed before compared what is below */

	tc = type_of(m, rc);
	if (!tc)
		return -EINVAL;
	if (d2b_kind(tc) != d2b_kind(tk))
		return compat(m, rc, rk);
	if (kclass(tc) != KC_COMPOSITE && kclass(tc) != KC_REF) {
		err = merge_form_fill(m, &m->w.fa, rc, FORM_RESOLVE);
		if (!err)
			err = merge_form_fill(m, &m->w.fb, rk, FORM_RESOLVE);
		return err ? err : form_equal(&m->w.fa, &m->w.fb);
	}
	err = shallow_step(m, rc, tc, rk, tk);
	if (err != SHALLOW_BY_FORMS)
		return err;
	err = merge_form_fill(m, &m->w.fa, rc, FORM_SHALLOW);
	if (!err)
		err = merge_form_fill(m, &m->w.fb, rk, FORM_SHALLOW);
	if (err)
		return err;
	if (!form_equal(&m->w.fa, &m->w.fb))
		return 0;
	for (j = 0; j < m->w.fa.nids; j++) {
		err = push_pair(m, &m->w.stack, &m->w.nr_stack, &m->w.stack_cap, m->w.fa.ids[j],
				m->w.fb.ids[j]);
		if (err)
			return err;
	}
	return 1;
}

static int walk_commit(struct merge *m)
{
	size_t j;

	for (j = 0; j < m->w.nr_touched; j++) {
		uint32_t rk = m->w.touched[j], rc = m->w.hypot[rk];
		const struct d2b_type *tc = type_of(m, rc), *tk = type_of(m, rk);

		if (is_virt(m, rc) && m->s.kc[vslot(m, rc)] == KC_REF)
			m->s.ref_ok[vslot(m, rc)] = rk + 1;
		if (!tc || !tk || !btf_kind_is_composite(d2b_kind(tc)) || d2b_kind(tc) != d2b_kind(tk))
			continue;
		if (is_unmapped(m, rc) && is_canon(m, rk))
			m->s.map[vslot(m, rc)] = rk;
		else if (is_unmapped(m, rk) && is_canon(m, rc))
			m->s.map[vslot(m, rk)] = rc;
	}
	return commit_fwds(m);
}

/* Walk source type c against canonical k; commit if equivalent. */
static int walk(struct merge *m, uint32_t c, uint32_t k)
{
	size_t j;
	int ret;

	m->w.nr_stack = m->w.nr_touched = m->w.nr_fwds = 0;
	ret = push_pair(m, &m->w.stack, &m->w.nr_stack, &m->w.stack_cap, c, k);
	if (ret == 0)
		ret = 1;
	while (ret == 1 && m->w.nr_stack) {
		struct pair p = m->w.stack[--m->w.nr_stack];

		ret = walk_pair(m, p.c, p.k);
	}
	if (ret == 1) {
		int err = walk_commit(m);

		if (err)
			ret = err;
	}
	for (j = 0; j < m->w.nr_touched; j++)
		m->w.hypot[m->w.touched[j]] = UNSET;
	return ret;
}

/*
 * Member shapes: a filter for struct candidates that share a shallow key
 * (name, size, member names and offsets) but not their member types -- a
 * module can hold a thousand anonymous { event; handler; } unions.  A
 * member's shape hashes the kinds and names along its chain of reference
 * kinds down to the first struct, union, FWD or enum (by name alone: a FWD
 * is equivalent to its struct, a forward enum to its enum) or other kind.
 * Types a walk can find equivalent have equal shapes (the walk compares the
 * same kinds and names, and maps only equivalent types onto each other), so
 * skipping a candidate of another shape skips a walk that would fail, and
 * failed walks change nothing: the first equivalent candidate, hence the
 * output, is the same.  Computed only after SHAPE_AFTER candidates, so the
 * common struct with one candidate pays nothing.
 */
static int member_shape(struct merge *m, uint32_t id, uint64_t *ret)
{
	uint64_t h = 0;
	int depth, err;

	for (depth = 0; depth < SHAPE_DEPTH && id; depth++) {
		const struct d2b_type *t = type_of(m, id);
		unsigned int kind;
		uint32_t name, next;

		if (!t)
			return -EINVAL;
		err = merge_name_of(m, id, &name);
		if (err)
			return err;
		kind = d2b_kind(t);
		if (btf_kind_is_composite(kind) || kind == D2B_KIND_FWD) {
			h = hash_combine(h, 1ULL << 40 | name);
			break;
		}
		if (btf_kind_is_enum(kind)) {
			h = hash_combine(h, 2ULL << 40 | name);
			break;
		}
		h = hash_combine(h, (uint64_t)kind << 32 | name);
		if (kind == D2B_KIND_ARRAY) {
			h = hash_combine(h, btf_array(t)->nelems);
			next = btf_array(t)->type;
		} else if (is_single_ref(kind)) {
			next = t->type;
		} else {
			break;
		}
		id = is_virt(m, id) ? translate(m, next) : next;
	}
	*ret = h;
	return 0;
}

/* The hash of a composite's member shapes (never 0), cached: by ID for
 * the destination's types, which never change, and for the source's, which
 * do not while it is merged (shapes follow the source's own IDs, not the
 * mapping), by slot until the next source. */
static int composite_shape(struct merge *m, uint32_t id, uint64_t *ret)
{
	const struct d2b_type *t = type_of(m, id);
	const struct d2b_member *mem;
	uint64_t h = 0, sh;
	uint32_t j, n;
	int err;

	if (!t)
		return -EINVAL;
	if (!is_virt(m, id) && id < m->d.shape_cap && m->d.shape[id]) {
		*ret = m->d.shape[id];
		return 0;
	}
	if (is_virt(m, id) && m->s.vshape[vslot(m, id)]) {
		*ret = m->s.vshape[vslot(m, id)];
		return 0;
	}
	mem = btf_members(t);
	n = d2b_vlen(t);
	for (j = 0; j < n; j++) {
		err = member_shape(m, is_virt(m, id) ? translate(m, mem[j].type) : mem[j].type, &sh);
		if (err)
			return err;
		h = hash_combine(h, sh);
	}
	h |= 1;
	if (is_virt(m, id)) {
		m->s.vshape[vslot(m, id)] = h;
	} else {
		if (id >= m->d.shape_cap) {
			size_t cap = m->d.shape_cap ? m->d.shape_cap : 1024, old = m->d.shape_cap;
			uint64_t *p;

			while (cap <= id)
				cap *= 2;
			p = realloc(m->d.shape, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			memset(p + old, 0, (cap - old) * sizeof(*p));
			m->d.shape = p;
			m->d.shape_cap = cap;
		}
		m->d.shape[id] = h;
	}
	*ret = h;
	return 0;
}

/*
 * Base buckets: a module's composite can share its shallow key with
 * hundreds of the base's (vmlinux's anonymous unions), each of which the
 * shapes then skip, unit after unit: over a million candidates for
 * xfs.ko.  The first time a key is looked up in the base, its entries are
 * counted; past BUCKET_MIN, the base's composites under it are indexed
 * again by hash_combine(key, shape) (m->d.bb), in the base's order, and
 * lookups of that key take only the candidates of their own shape.  That
 * leaves out the early candidates the plain lookup walks before shapes
 * filter (SHAPE_AFTER), walks that fail: the answer is the same.
 */
enum {
	BUCKET_SMALL = 1,	/* m->d.bb->state: iterate the base's entries */
	BUCKET_BUILT = 2,	/* m->d.bb->state: take them from by_shape */
	BUCKET_MIN = 16,	/* entries under a key past which it is built */
};

static int base_bucket(struct merge *m, uint64_t key, uint64_t *ret)
{
	struct hmap_iter it;
	uint64_t v, sh;
	size_t n = 0;
	int err;

	if (hmap__find(&m->d.bb->state, key, ret))
		return 0;
	hmap__iter_init(m->d.base, key, &it);
	while (n <= BUCKET_MIN && hmap__next(m->d.base, &it, &v))
		n++;
	*ret = n > BUCKET_MIN ? BUCKET_BUILT : BUCKET_SMALL;
	hmap__iter_init(m->d.base, key, &it);
	while (*ret == BUCKET_BUILT && hmap__next(m->d.base, &it, &v)) {
		const struct d2b_type *t = type_of(m, (uint32_t)v);

		if (!t || !btf_kind_is_composite(d2b_kind(t)))
			continue;
		err = composite_shape(m, (uint32_t)v, &sh);
		if (!err)
			err = hmap__add(&m->d.bb->by_shape, hash_combine(key, sh), v);
		if (err)
			return err;
	}
	return hmap__add(&m->d.bb->state, key, *ret);
}

static int dedup_composite(struct merge *m, uint32_t i)
{
	const struct hmap *maps[3] = { m->d.base, &m->d.index, &m->s.local };
	struct hmap_iter it;
	unsigned int h, tried = 0;
	uint64_t key, v, shape = 0, cshape, state = BUCKET_SMALL;
	int err;

	err = merge_type_key(m, &m->w.fa, vid(m, i), &key);
	if (err)
		return err;
	if (m->d.bb && m->d.dst_start > 1) {
		err = base_bucket(m, key, &state);
		if (!err && state == BUCKET_BUILT)
			err = composite_shape(m, vid(m, i), &shape);
		if (err)
			return err;
	}
	for (h = 0; h < 3; h++) {
		const struct hmap *map = maps[h];

		if (h == 0 && state == BUCKET_BUILT) {
			map = &m->d.bb->by_shape;
			hmap__iter_init(map, hash_combine(key, shape), &it);
			/* the shapes filter from the first candidate on */
			tried = SHAPE_AFTER;
		} else {
			hmap__iter_init(map, key, &it);
		}
		while (hmap__next(map, &it, &v)) {
			const struct d2b_type *t = type_of(m, v);

			if (!t || !btf_kind_is_composite(d2b_kind(t)) || !is_canon(m, v))
				continue;
			if (++tried > SHAPE_AFTER) {
				if (!shape && (err = composite_shape(m, vid(m, i), &shape)))
					return err;
				err = composite_shape(m, (uint32_t)v, &cshape);
				if (err)
					return err;
				if (cshape != shape)
					continue;
			}
			err = walk(m, vid(m, i), v);
			if (err < 0)
				return err;
			if (err == 1 && m->s.map[i])
				return 0;
		}
	}
	return merge_make_canonical(m, i, type_of(m, vid(m, i)), key);
}

int merge_pass_composites(struct merge *m)
{
	uint32_t i;
	int err;

	for (i = 0; i < m->s.n; i++) {
		if (m->s.map[i] || m->s.kc[i] != KC_COMPOSITE)
			continue;
		err = dedup_composite(m, i);
		if (err)
			return err;
	}
	return 0;
}
