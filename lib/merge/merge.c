// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Merging one source into a deduplicated BTF: the theory
 * =======================================================
 *
 * Every compile unit carries its own copy of each type it uses; two types
 * are the same when their whole reachable graphs are equivalent.  Struct
 * graphs are cyclic (through pointers) and a unit may only know a forward
 * declaration (FWD) of a struct another unit defines.
 *
 * libbpf's dedup (which pahole runs) concatenates every unit first and
 * deduplicates millions of types at once.  Here units are merged one at a
 * time into a "work" BTF that is deduplicated at all times, so time and
 * memory follow the size of the result plus one unit.
 *
 * One ID space.  While a unit (a "source") is merged, its type s gets the
 * virtual ID dst_end + (s - s_start), right after the destination's last
 * type, so destination and source types mix freely in the side arrays.
 * map[] gives each source type its canonical type: 0 while unknown, itself
 * when the type is new ("canonical"), else a destination type or another
 * canonical source type.  Invariant: the destination is deduplicated, so
 * two different canonical IDs are different types, except for the
 * FWD ~ STRUCT "compatibility" resolved at the end.
 *
 * Pass 1, strings: each distinct source string is interned in the
 * destination once (smap[], indexed by source offset; a hash map instead
 * for the final merge, whose source reaches over all of .debug_str, where
 * a flat map costs tens of times what the types use); from then on names
 * compare as offsets.  A source over the destination's names base shares
 * its strings by offset but for the tails (names a linker kept only inside
 * longer strings, str_adder__use_names()): one name can lie at several places, so
 * each becomes the destination's own string of its bytes, remembered by
 * place (map_tail()).
 *
 * Pass 2, primitives (INT FLOAT ENUM ENUM64 LOC_PARAM, then FWD and forward
 * enums):
 * hash of the whole type, exact compare against the destination index and
 * against the unit's own canonical types (a per-unit index).  A forward
 * enum (no values) takes the full enum of the same name if there is one.
 *
 * Pass 3, structs and unions, in source order: candidates share a shallow
 * hash (name, size, member names and offsets, not member types).  For each
 * candidate, both graphs are walked in lock-step from the pair (source,
 * candidate) with an explicit stack of pairs and a hypothetical map keyed by
 * the canonical side; a pair met again closes a cycle.  A pair whose two
 * sides are already canonical compares by ID, so walks stop at everything
 * mapped before (primitives, structs committed earlier).  The walk is a
 * pure conjunction, so its order does not change the answer.  On success
 * the struct/union pairs are committed (one side canonical, the other
 * unmapped); reference types met on the way are only "compatible" (FWD vs
 * STRUCT below them), so they are left to pass 4.  A struct with no
 * equivalent candidate becomes canonical.  Committed mappings are final:
 * like libbpf, the first compatible candidate wins.  Two shortcuts keep
 * the answers (merge_walk.c): past the second candidate, one whose member
 * shapes differ is not walked (the walk would fail, and failed walks
 * change nothing); and a reference type a committed walk paired with a
 * canonical type is not walked down again when met with that same type.
 *
 * Forward declarations in walks, as libbpf's btf_dedup_is_equiv() treats
 * them: a FWD on the source side is equivalent to any STRUCT/UNION of its
 * name and kind.  A FWD on the canonical side is paired through the
 * hypothetical map like a struct, so one walk cannot match it with two
 * different definitions.  Every FWD a successful walk paired with a
 * definition, if it has none yet, is resolved to that definition for good
 * (res[], by name and kind; a source struct's entry names its destination
 * ID once appended): the first walk decides, in unit order, even when the
 * name has several definitions -- libbpf maps its canonical FWD the same
 * way.  From then on a canonical-side FWD stands for its definition only,
 * so a struct pointing to another definition of the name never merges
 * with one that points to the FWD.  FWDs stay FWDs in the work BTF (the
 * types built on them merge at finish); a base FWD is never resolved.
 *
 * Pass 4, reference kinds (PTR TYPEDEF modifiers TYPE_TAG ARRAY FUNC_PROTO
 * FUNC DECL_TAG LOC_PROTO; VAR, DATASEC and LOCSEC are only renumbered):
 * depth-first, bottom-up, with an explicit stack; a type's
 * form with its referenced IDs made canonical is hashed and compared
 * exactly.  The most common of them, an unnamed PTR, CONST, VOLATILE or
 * RESTRICT or a TYPEDEF, is first looked for in an exact index by the type
 * it refers to (over_index, merge_internal.h), which gives the hash
 * index's answer without probing it; and a form naming a type new in this
 * unit is looked for among the unit's own only (no destination type
 * refers to one).  A cycle that does not pass through
 * a struct (malformed input) is cut by declaring the type met again
 * canonical.
 *
 * Pass 5, append: canonical source types go to the destination in source
 * order (first met order), their IDs and strings remapped, and are indexed
 * for the units to come.
 *
 * Finish and groups (dedup.c) merge whole work BTFs as one source each,
 * through the same passes.
 *
 * Split BTF: the destination's base types are indexed like its own and
 * never change; source types map onto them; a base FWD is never upgraded.
 *
 * Cost: each unit costs about its own size (walks stop at mapped types,
 * side arrays are sized by the unit, the per-unit index is cleared, not
 * rebuilt), plus the candidates sharing a shallow hash; nothing is
 * proportional to the work BTF's size except its index, which grows with
 * it.  No recursion: walks, identity checks and the reference DFS use
 * explicit stacks, so deep kernel graphs cannot overflow the C stack.
 *
 * Determinism: every loop runs in ID order and the hash map returns
 * entries sharing a key in insertion order, so the output depends only on
 * the sequence of units.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "base/clock.h"
#include "merge/merge_internal.h"
#include "base/hmap.h"
#include "base/ptr_cache.h"
#include "base/vec.h"

/* ---- setup ---- */

/* index_base() indexes each type this many types after hashing it and
 * prefetching its slot (hmap__prefetch()) */
enum { INDEX_AHEAD = 16 };

/*
 * Index the base's types 1 .. start - 1, in ID order, as merge_index_type()
 * would one by one; but the keys of INDEX_AHEAD types are made (and their
 * slots prefetched) before any of them is added, so that the cache misses
 * of the adds overlap.  The table is reserved first and does not move.
 */
int merge_index_base(struct merge *m, struct hmap *base, struct over_index *base_over,
		     uint32_t start)
{
	uint64_t keys[INDEX_AHEAD];
	uint32_t id, j, n;
	int err;

	err = hmap__reserve(base, start - 1);
	if (!err)
		err = over_index_reserve(base_over, start - 1);
	for (id = 1; id < start && !err; id += n) {
		n = start - id < INDEX_AHEAD ? start - id : INDEX_AHEAD;
		for (j = 0; j < n && !err; j++) {
			err = merge_type_key(m, &m->w.fa, id + j, &keys[j]);
			hmap__prefetch(base, keys[j]);
		}
		for (j = 0; j < n && !err; j++)
			err = merge_index_keyed(base, base_over, d2b_btf__type(m->d.dst, id + j),
						id + j, keys[j]);
	}
	return err;
}

/*
 * base: the index of dst's base's types (split BTF), which dst's merges
 * share; filled here if fill_base (the first merge over that base).
 */
int merge_init(struct merge *m, struct d2b_btf *dst, bool force_collisions, bool append_only,
	       struct hmap *base, struct over_index *base_over, struct base_buckets *bb,
	       bool fill_base)
{
	uint32_t id, start = d2b_btf__start_id(dst);
	int err = 0;

	memset(m, 0, sizeof(*m));
	m->d.dst = dst;
	btf_view_init(&m->d.vd, dst);
	m->d.base = base;
	m->d.base_over = base_over;
	m->d.bb = bb;
	m->d.append_only = append_only;
	hmap__init(&m->d.index, force_collisions);
	hmap__init(&m->d.res_index, force_collisions);
	m->d.dst_start = start;
	m->d.dst_end = d2b_btf__end_id(dst);
	m->d.over.sparse = start > 1;
	hmap__init(&m->s.local, force_collisions);
	hmap__init(&m->s.smap_sparse, false);
	if (append_only)
		return 0;
	/* the base's types (split BTF) are candidates like our own */
	if (fill_base && start > 1)
		err = merge_index_base(m, base, base_over, start);
	for (id = start; id < m->d.dst_end && !err; id++)
		err = merge_index_type(m, &m->d.index, id);
	return err;
}

static void dest_release(struct merge_dest *d)
{
	hmap__release(&d->index);
	over_index_release(&d->over);
	hmap__release(&d->res_index);
	free(d->res);
	ptr_cache__free(d->tails);
	free(d->shape);
}

static void source_release(struct merge_source *s)
{
	free(s->map);
	free(s->real);
	free(s->busy);
	free(s->kc_own);
	free(s->ref_ok);
	free(s->smap);
	hmap__release(&s->smap_sparse);
	hmap__release(&s->local);
	free(s->vshape);
}

static void scratch_release(struct merge_scratch *w)
{
	free(w->hypot);
	free(w->touched);
	free(w->stack);
	free(w->fwds);
	free(w->istack);
	free(w->dfs);
	free(w->fa.w);
	free(w->fa.ids);
	free(w->fb.w);
	free(w->fb.ids);
}

void merge_release(struct merge *m)
{
	dest_release(&m->d);
	source_release(&m->s);
	scratch_release(&m->w);
}

/* s takes src (over a destination that ends at dst_end): its arrays sized
 * and reset. */
static int source_begin(struct merge_source *s, const struct merge_dest *d,
			const struct d2b_btf *src, const uint32_t *alias)
{
	int err;

	s->src = src;
	btf_view_init(&s->vs, src);
	s->alias = alias;
	s->s_start = d2b_btf__start_id(src);
	s->s_end = d2b_btf__end_id(src);
	s->n = s->s_end - s->s_start;
	/* base strings are shared when src and dst are over one base */
	s->s_str_start = d2b_btf__base(src) == d2b_btf__base(d->dst) ? btf_start_str(src) : 0;
	s->tails_start = s->s_str_start ? btf_names_tails(d2b_btf__base(src)) : 0;
	s->str_same_below = s->tails_start ? s->tails_start : s->s_str_start ? s->s_str_start : 1;
	s->smap_n = btf_end_str(src) - s->s_str_start;
	/* a flat map costs 4 bytes per byte of string, written once: for the
	 * final merge, over .debug_str, tens of times what its types use */
	s->sparse_strs = s->smap_n > SPARSE_MIN && s->smap_n / SPARSE_STRS > s->n;
	if ((uint64_t)d->dst_end + s->n > UINT32_MAX / 2)
		return -E2BIG;
	/* + 1: never a NULL array, even for an empty source */
	err = VEC_RESERVE(s->map, s->map_cap, 0, s->n + 1);
	if (!err)
		err = VEC_RESERVE(s->real, s->real_cap, 0, s->n + 1);
	if (!err)
		err = VEC_RESERVE(s->busy, s->busy_cap, 0, s->n + 1);
	if (!err)
		err = VEC_RESERVE(s->ref_ok, s->ref_ok_cap, 0, s->n + 1);
	if (!err)
		err = VEC_RESERVE(s->vshape, s->vshape_cap, 0, s->n + 1);
	if (!err)
		err = VEC_RESERVE(s->smap, s->smap_cap, 0, s->sparse_strs ? 1 : s->smap_n + 1);
	if (err)
		return err;
	memset(s->map, 0, s->n * sizeof(*s->map));
	memset(s->real, 0, s->n * sizeof(*s->real));
	memset(s->busy, 0, s->n);
	memset(s->ref_ok, 0, s->n * sizeof(*s->ref_ok));
	memset(s->vshape, 0, s->n * sizeof(*s->vshape));
	if (s->sparse_strs)
		hmap__clear(&s->smap_sparse);
	else
		memset(s->smap, 0xff, s->smap_n * sizeof(*s->smap));
	hmap__clear(&s->local);
	return 0;
}

static int merge_begin(struct merge *m, const struct d2b_btf *src, const uint32_t *alias)
{
	size_t need;
	int err;

	btf_view_init(&m->d.vd, m->d.dst);
	m->d.dst_end = d2b_btf__end_id(m->d.dst);
	m->d.res_unit = m->d.nr_res;
	err = source_begin(&m->s, &m->d, src, alias);
	/* the walks' hypothetical map spans the combined ID space */
	need = (size_t)m->d.dst_end + m->s.n;
	if (!err && need > m->w.hypot_len) {
		err = VEC_RESERVE(m->w.hypot, m->w.hypot_cap, 0, need);
		if (!err) {
			memset(m->w.hypot + m->w.hypot_len, 0xff, (need - m->w.hypot_len) * 4);
			m->w.hypot_len = need;
		}
	}
	return err;
}


/* ---- pass 2: primitives ---- */

/* A destination type (the base's first) equal to m->w.fa, under key; 0 if none. */
static uint32_t find_dst(struct merge *m, uint64_t key)
{
	const struct hmap *dsts[2] = { m->d.base, &m->d.index };
	struct hmap_iter it;
	unsigned int h;
	uint64_t v;

	for (h = 0; h < 2; h++) {
		hmap__iter_init(dsts[h], key, &it);
		while (hmap__next(dsts[h], &it, &v)) {
			const struct d2b_type *t = type_of(m, v);

			if (t && btf_type_words(t) == m->w.fa.nw &&
			    memcmp(t, m->w.fa.p, m->w.fa.nw * 4) == 0)
				return (uint32_t)v;
		}
	}
	return 0;
}

/* The canonical type of the unit's own equal to m->w.fa, under key; *ret = 0 if none. */
static int find_local(struct merge *m, uint64_t key, uint32_t *ret)
{
	struct hmap_iter it;
	uint64_t v;
	int err;

	*ret = 0;
	hmap__iter_init(&m->s.local, key, &it);
	while (hmap__next(&m->s.local, &it, &v)) {
		if (!is_canon(m, v))
			continue;
		err = merge_form_fill(m, &m->w.fb, v, FORM_RESOLVE);
		if (err)
			return err;
		if (form_equal(&m->w.fa, &m->w.fb)) {
			*ret = v;
			return 0;
		}
	}
	return 0;
}

/*
 * A canonical type whose resolved form equals m->w.fa, under key: destination
 * candidates first, then the unit's own.  *ret = 0 if none.
 */
static int find_equal(struct merge *m, uint64_t key, uint32_t *ret)
{
	*ret = find_dst(m, key);
	return *ret ? 0 : find_local(m, key, ret);
}

/* The first full enum named name_off, for a forward enum. */
static int find_full_enum(struct merge *m, uint32_t name_off, uint32_t *ret)
{
	const struct hmap *maps[3] = { m->d.base, &m->d.index, &m->s.local };
	struct hmap_iter it;
	unsigned int h;
	uint64_t v;
	int err;

	*ret = 0;
	for (h = 0; h < 3; h++) {
		hmap__iter_init(maps[h], enum_name_key(name_off), &it);
		while (hmap__next(maps[h], &it, &v)) {
			const struct d2b_type *t = type_of(m, v);
			uint32_t name;

			if (!t || !is_full_enum(t) || !is_canon(m, v))
				continue;
			err = merge_name_of(m, v, &name);
			if (err)
				return err;
			if (name == name_off) {
				*ret = v;
				return 0;
			}
		}
	}
	return 0;
}

static int dedup_prim(struct merge *m, uint32_t i)
{
	const struct d2b_type *t;
	uint32_t found = 0;
	uint64_t key;
	int err;

	err = merge_type_key(m, &m->w.fa, vid(m, i), &key);
	if (err)
		return err;
	t = (const struct d2b_type *)m->w.fa.p;
	if (btf_kind_is_enum(d2b_kind(t)) && d2b_vlen(t) == 0 && t->name_off) {
		err = find_full_enum(m, t->name_off, &found);
		if (err)
			return err;
	}
	if (!found) {
		err = find_equal(m, key, &found);
		if (err)
			return err;
	}
	if (found) {
		m->s.map[i] = found;
		return 0;
	}
	return merge_make_canonical(m, i, (const struct d2b_type *)m->w.fa.p, key);
}

static int pass_prims(struct merge *m)
{
	enum kclass want;
	uint32_t i;
	int err;

	/* full types first, so that forward enums find a full enum of this unit */
	for (want = KC_PRIM; want <= KC_FWD; want++) {
		for (i = 0; i < m->s.n; i++) {
			if (m->s.map[i] || m->s.kc[i] != want)
				continue;
			if (m->s.alias && m->s.alias[i])
				continue;
			err = dedup_prim(m, i);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- pass 4: reference kinds ---- */

/*
 * The destination's first type of slot k over m->w.fa's type, through o: it
 * if it equals m->w.fa, 0 if o has none, UNSET if it is a TYPEDEF of another
 * name (the hash index must answer).
 */
static uint32_t over_lookup(struct merge *m, const struct over_index *o, int k)
{
	uint32_t id = over_index_find(o, k, m->w.fa.p[2]);

	if (id && k == OVER_TYPEDEF && memcmp(type_of(m, id), m->w.fa.p, 3 * 4))
		return UNSET;
	return id;
}

/* Does resolved form f name a canonical type of the source's own? */
static bool refers_to_own(const struct merge *m, const struct form *f)
{
	struct btf_field_iter it;
	uint32_t *p;

	btf_field_iter__init(&it, (struct d2b_type *)f->p, BTF_FIELD_IDS);
	while ((p = btf_field_iter__next(&it))) {
		if (is_virt(m, *p))
			return true;
	}
	return false;
}

static int dedup_ref(struct merge *m, uint32_t i)
{
	const struct d2b_type *t = type_of(m, vid(m, i));
	uint32_t found;
	uint64_t key = 0;
	int err, k;

	if (kclass(t) == KC_KEEP) {	/* VAR, DATASEC, LOCSEC: never merged */
		m->s.map[i] = vid(m, i);
		return 0;
	}
	err = merge_form_fill(m, &m->w.fa, vid(m, i), FORM_RESOLVE);
	if (err)
		return err;
	/* a kind the exact index answers for: the destination's type from it
	 * (there is none over a virtual ID), else the hash index's answer */
	found = 0;
	k = m->w.fa.nw == 3 ? over_slot_of((const struct d2b_type *)m->w.fa.p) : -1;
	if (k >= 0 && !is_virt(m, m->w.fa.p[2])) {
		found = over_lookup(m, m->d.base_over, k);
		if (!found)
			found = over_lookup(m, &m->d.over, k);
	}
	if (!found || found == UNSET) {
		key = hash_bytes(m->w.fa.p, m->w.fa.nw * 4, 0);
		/* the destination has none: no type of it refers to a type of
		 * this unit's own, and the exact index said so for the rest */
		if ((k >= 0 && found != UNSET) || refers_to_own(m, &m->w.fa))
			err = find_local(m, key, &found);
		else
			err = find_equal(m, key, &found);
	}
	if (err)
		return err;
	if (found) {
		m->s.map[i] = found;
		return 0;
	}
	return merge_make_canonical(m, i, (const struct d2b_type *)m->w.fa.p, key);
}

/* The first referenced type of slot i still unmapped, or 0. */
static uint32_t first_unmapped_ref(struct merge *m, uint32_t i)
{
	const struct d2b_type *t = type_of(m, vid(m, i));
	struct btf_field_iter it;
	uint32_t *p;

	btf_field_iter__init(&it, (struct d2b_type *)t, BTF_FIELD_IDS);
	while ((p = btf_field_iter__next(&it))) {
		uint32_t r = resolve(m, translate(m, *p));

		if (is_unmapped(m, r))
			return r;
	}
	return 0;
}

static int map_ref(struct merge *m, uint32_t i0)
{
	int err;

	m->w.nr_dfs = 0;
	err = VEC_RESERVE(m->w.dfs, m->w.dfs_cap, 0, 1);
	if (err)
		return err;
	m->w.dfs[m->w.nr_dfs++] = i0;
	m->s.busy[i0] = 1;
	while (m->w.nr_dfs) {
		uint32_t i = m->w.dfs[m->w.nr_dfs - 1], r, j;

		if (m->s.map[i]) {	/* made canonical to cut a cycle */
			m->s.busy[i] = 0;
			m->w.nr_dfs--;
			continue;
		}
		r = first_unmapped_ref(m, i);
		if (r) {
			j = vslot(m, r);
			if (m->s.busy[j]) {
				/* a cycle of reference types: malformed, cut it here */
				m->s.map[j] = r;
				continue;
			}
			err = VEC_RESERVE(m->w.dfs, m->w.dfs_cap, m->w.nr_dfs, 1);
			if (err)
				return err;
			m->w.dfs[m->w.nr_dfs++] = j;
			m->s.busy[j] = 1;
			continue;
		}
		m->s.busy[i] = 0;
		m->w.nr_dfs--;
		err = dedup_ref(m, i);
		if (err)
			return err;
	}
	return 0;
}

static int pass_refs(struct merge *m)
{
	uint32_t i;
	int err;

	for (i = 0; i < m->s.n; i++) {
		enum kclass kc;

		if (m->s.map[i] || (m->s.alias && m->s.alias[i]))
			continue;
		kc = m->s.kc[i];
		if (kc != KC_REF && kc != KC_KEEP)
			continue;
		err = map_ref(m, i);
		if (err)
			return err;
	}
	return 0;
}

/* ---- pass 5: append ---- */

static int pass_append(struct merge *m)
{
	uint32_t i, next = m->d.dst_end;
	int id, err;

	for (i = 0; i < m->s.n; i++) {
		if (m->s.map[i] == vid(m, i))
			m->s.real[i] = next++;
	}
	for (i = 0; i < m->s.n; i++) {
		if (m->s.map[i] != vid(m, i))
			continue;
		err = merge_form_fill(m, &m->w.fa, vid(m, i), FORM_FINAL);
		if (err)
			return err;
		id = d2b_btf__add_raw(m->d.dst, (const struct d2b_type *)m->w.fa.p);
		if (id < 0)
			return id;
		btf_view_init(&m->d.vd, m->d.dst);
		if ((uint32_t)id != m->s.real[i])
			return -EINVAL;
	}
	return 0;
}

/* Index what pass_append added, now that virtual IDs are gone. */
static int index_appended(struct merge *m, uint32_t from)
{
	uint32_t id, end = d2b_btf__end_id(m->d.dst);
	int err = 0;

	m->d.dst_end = end;
	m->s.n = 0;
	for (id = from; id < end && !err; id++)
		err = merge_index_type(m, &m->d.index, id);
	return err;
}

/* Add the time since *t to step's, and start the next step's at now. */
static void step_done(struct merge *m, enum dedup_step step, double *t)
{
	double t1 = clock_now();

	m->d.step_s[step] += t1 - *t;
	*t = t1;
}

/*
 * Merge one source into the destination, in two halves: merge_map() maps
 * each source type to a destination type or makes it canonical (passes 1
 * to 4), merge_append() appends the canonical ones and indexes them (pass
 * 5); map_out[s] (s in the source's own ID range) receives each source
 * type's destination ID.  kc: the source's kclass per type, as
 * dedup__check_unit() made it, or NULL.  Between the two, merge_abandon()
 * drops the source instead: the passes before appending leave the
 * destination as it was but for the forward declarations the walks
 * resolved (which it takes back) and strings (which no type uses, and
 * which the final merge does not copy).
 */
int merge_map(struct merge *m, const struct d2b_btf *src, const uint32_t *alias, const uint8_t *kc)
{
	double t0 = clock_now();
	uint32_t i;
	int err;

	err = merge_begin(m, src, alias);
	/* the last source is the whole work BTF, nearly all of it canonical:
	 * its index is sized once, not doubled a dozen times */
	if (!err && m->d.last)
		err = hmap__reserve(&m->s.local, m->s.n);
	if (err)
		return err;
	if (!kc) {
		err = VEC_RESERVE(m->s.kc_own, m->s.kc_cap, 0, m->s.n + 1);
		if (err)
			return err;
	}
	m->s.kc = kc ? kc : m->s.kc_own;
	for (i = 0; !kc && i < m->s.n; i++) {
		const struct d2b_type *t = type_of(m, vid(m, i));

		m->s.kc_own[i] = t ? kclass(t) : KC_BAD;
		if (m->s.kc_own[i] == KC_BAD)
			return -EINVAL;
	}
	step_done(m, DEDUP_STEP_SETUP, &t0);
	if (m->d.append_only) {
		for (i = 0; i < m->s.n; i++)
			m->s.map[i] = vid(m, i);
		return 0;
	}
	err = pass_prims(m);
	step_done(m, DEDUP_STEP_PRIMS, &t0);
	if (!err)
		err = merge_pass_composites(m);
	step_done(m, DEDUP_STEP_COMPOSITES, &t0);
	if (!err)
		err = pass_refs(m);
	step_done(m, DEDUP_STEP_REFS, &t0);
	return err;
}

int merge_append(struct merge *m, uint32_t *map_out)
{
	uint32_t i, from = d2b_btf__end_id(m->d.dst);
	double t0 = clock_now();
	int err;

	err = pass_append(m);
	if (err)
		return err;
	merge_fwd_res_finalize(m);
	if (map_out) {
		for (i = 0; i < m->s.n; i++)
			map_out[m->s.s_start + i] = final_id(m, translate(m, m->s.s_start + i));
	}
	step_done(m, DEDUP_STEP_APPEND, &t0);
	if (m->d.append_only || m->d.last) {
		m->d.dst_end = d2b_btf__end_id(m->d.dst);
		return 0;
	}
	err = index_appended(m, from);
	step_done(m, DEDUP_STEP_INDEX, &t0);
	return err;
}

int merge_abandon(struct merge *m)
{
	size_t j;
	int err = 0;

	m->d.nr_res = m->d.res_unit;
	hmap__clear(&m->d.res_index);
	for (j = 0; j < m->d.nr_res && !err; j++)
		err = merge_fwd_res_index(m, j);
	m->s.n = 0;
	return err;
}

int merge_source(struct merge *m, const struct d2b_btf *src, const uint32_t *alias,
		 const uint8_t *kc, uint32_t *map_out)
{
	return merge_map(m, src, alias, kc) ?: merge_append(m, map_out);
}
