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
 * longer strings, btf_set_memo()): one name can lie at several places, so
 * each becomes the destination's own string of its bytes, remembered by
 * place (map_tail()).
 *
 * Pass 2, primitives (INT FLOAT ENUM ENUM64, then FWD and forward enums):
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
 * FUNC DECL_TAG): depth-first, bottom-up, with an explicit stack; a type's
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
			err = merge_type_key(m, &m->fa, id + j, &keys[j]);
			hmap__prefetch(base, keys[j]);
		}
		for (j = 0; j < n && !err; j++)
			err = merge_index_keyed(base, base_over, d2b_btf__type(m->dst, id + j),
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
	m->dst = dst;
	btf_view_init(&m->vd, dst);
	m->base = base;
	m->base_over = base_over;
	m->bb = bb;
	m->append_only = append_only;
	hmap__init(&m->index, force_collisions);
	hmap__init(&m->local, force_collisions);
	hmap__init(&m->res_index, force_collisions);
	hmap__init(&m->smap_sparse, false);
	m->dst_start = start;
	m->dst_end = d2b_btf__end_id(dst);
	m->over.sparse = start > 1;
	if (append_only)
		return 0;
	/* the base's types (split BTF) are candidates like our own */
	if (fill_base && start > 1)
		err = merge_index_base(m, base, base_over, start);
	for (id = start; id < m->dst_end && !err; id++)
		err = merge_index_type(m, &m->index, id);
	return err;
}

void merge_release(struct merge *m)
{
	free(m->shape);
	free(m->vshape);
	hmap__release(&m->index);
	over_index_release(&m->over);
	hmap__release(&m->local);
	hmap__release(&m->res_index);
	free(m->res);
	free(m->map);
	free(m->real);
	free(m->busy);
	free(m->kc_own);
	free(m->ref_ok);
	free(m->smap);
	hmap__release(&m->smap_sparse);
	ptr_cache__free(m->tails);
	free(m->hypot);
	free(m->touched);
	free(m->stack);
	free(m->fwds);
	free(m->istack);
	free(m->dfs);
	free(m->fa.w);
	free(m->fa.ids);
	free(m->fb.w);
	free(m->fb.ids);
}

static int merge_begin(struct merge *m, const struct d2b_btf *src, const uint32_t *alias)
{
	size_t need;
	int err;

	m->src = src;
	btf_view_init(&m->vs, src);
	btf_view_init(&m->vd, m->dst);
	m->alias = alias;
	m->s_start = d2b_btf__start_id(src);
	m->s_end = d2b_btf__end_id(src);
	m->n = m->s_end - m->s_start;
	m->dst_end = d2b_btf__end_id(m->dst);
	/* base strings are shared when src and dst are over one base */
	m->s_str_start = d2b_btf__base(src) == d2b_btf__base(m->dst) ? btf_start_str(src) : 0;
	m->tails_start = m->s_str_start ? btf_names_tails(d2b_btf__base(src)) : 0;
	m->str_same_below = m->tails_start ? m->tails_start : m->s_str_start ? m->s_str_start : 1;
	m->smap_n = btf_end_str(src) - m->s_str_start;
	/* a flat map costs 4 bytes per byte of string, written once: for the
	 * final merge, over .debug_str, tens of times what its types use */
	m->sparse_strs = m->smap_n > SPARSE_MIN && m->smap_n / SPARSE_STRS > m->n;
	if ((uint64_t)m->dst_end + m->n > UINT32_MAX / 2)
		return -E2BIG;
	/* + 1: never a NULL array, even for an empty source */
	err = VEC_RESERVE(m->map, m->map_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->real, m->real_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->busy, m->busy_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->ref_ok, m->ref_ok_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->vshape, m->vshape_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->smap, m->smap_cap, 0, m->sparse_strs ? 1 : m->smap_n + 1);
	need = (size_t)m->dst_end + m->n;
	if (!err && need > m->hypot_len) {
		err = VEC_RESERVE(m->hypot, m->hypot_cap, 0, need);
		if (!err) {
			memset(m->hypot + m->hypot_len, 0xff, (need - m->hypot_len) * 4);
			m->hypot_len = need;
		}
	}
	if (err)
		return err;
	memset(m->map, 0, m->n * sizeof(*m->map));
	memset(m->real, 0, m->n * sizeof(*m->real));
	memset(m->busy, 0, m->n);
	memset(m->ref_ok, 0, m->n * sizeof(*m->ref_ok));
	memset(m->vshape, 0, m->n * sizeof(*m->vshape));
	if (m->sparse_strs)
		hmap__clear(&m->smap_sparse);
	else
		memset(m->smap, 0xff, m->smap_n * sizeof(*m->smap));
	hmap__clear(&m->local);
	m->res_unit = m->nr_res;
	return 0;
}


/* ---- pass 2: primitives ---- */

/* A destination type (the base's first) equal to m->fa, under key; 0 if none. */
static uint32_t find_dst(struct merge *m, uint64_t key)
{
	const struct hmap *dsts[2] = { m->base, &m->index };
	struct hmap_iter it;
	unsigned int h;
	uint64_t v;

	for (h = 0; h < 2; h++) {
		hmap__iter_init(dsts[h], key, &it);
		while (hmap__next(dsts[h], &it, &v)) {
			const struct d2b_type *t = type_of(m, v);

			if (t && btf_type_words(t) == m->fa.nw &&
			    memcmp(t, m->fa.p, m->fa.nw * 4) == 0)
				return (uint32_t)v;
		}
	}
	return 0;
}

/* The canonical type of the unit's own equal to m->fa, under key; *ret = 0 if none. */
static int find_local(struct merge *m, uint64_t key, uint32_t *ret)
{
	struct hmap_iter it;
	uint64_t v;
	int err;

	*ret = 0;
	hmap__iter_init(&m->local, key, &it);
	while (hmap__next(&m->local, &it, &v)) {
		if (!is_canon(m, v))
			continue;
		err = merge_form_fill(m, &m->fb, v, FORM_RESOLVE);
		if (err)
			return err;
		if (form_equal(&m->fa, &m->fb)) {
			*ret = v;
			return 0;
		}
	}
	return 0;
}

/*
 * A canonical type whose resolved form equals m->fa, under key: destination
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
	const struct hmap *maps[3] = { m->base, &m->index, &m->local };
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

	err = merge_type_key(m, &m->fa, vid(m, i), &key);
	if (err)
		return err;
	t = (const struct d2b_type *)m->fa.p;
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
		m->map[i] = found;
		return 0;
	}
	return merge_make_canonical(m, i, (const struct d2b_type *)m->fa.p, key);
}

static int pass_prims(struct merge *m)
{
	enum kclass want;
	uint32_t i;
	int err;

	/* full types first, so that forward enums find a full enum of this unit */
	for (want = KC_PRIM; want <= KC_FWD; want++) {
		for (i = 0; i < m->n; i++) {
			if (m->map[i] || m->kc[i] != want)
				continue;
			if (m->alias && m->alias[i])
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
 * The destination's first type of slot k over m->fa's type, through o: it
 * if it equals m->fa, 0 if o has none, UNSET if it is a TYPEDEF of another
 * name (the hash index must answer).
 */
static uint32_t over_lookup(struct merge *m, const struct over_index *o, int k)
{
	uint32_t id = over_index_find(o, k, m->fa.p[2]);

	if (id && k == OVER_TYPEDEF && memcmp(type_of(m, id), m->fa.p, 3 * 4))
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

	if (kclass(t) == KC_KEEP) {	/* VAR, DATASEC: never merged */
		m->map[i] = vid(m, i);
		return 0;
	}
	err = merge_form_fill(m, &m->fa, vid(m, i), FORM_RESOLVE);
	if (err)
		return err;
	/* a kind the exact index answers for: the destination's type from it
	 * (there is none over a virtual ID), else the hash index's answer */
	found = 0;
	k = m->fa.nw == 3 ? over_slot_of((const struct d2b_type *)m->fa.p) : -1;
	if (k >= 0 && !is_virt(m, m->fa.p[2])) {
		found = over_lookup(m, m->base_over, k);
		if (!found)
			found = over_lookup(m, &m->over, k);
	}
	if (!found || found == UNSET) {
		key = hash_bytes(m->fa.p, m->fa.nw * 4, 0);
		/* the destination has none: no type of it refers to a type of
		 * this unit's own, and the exact index said so for the rest */
		if ((k >= 0 && found != UNSET) || refers_to_own(m, &m->fa))
			err = find_local(m, key, &found);
		else
			err = find_equal(m, key, &found);
	}
	if (err)
		return err;
	if (found) {
		m->map[i] = found;
		return 0;
	}
	return merge_make_canonical(m, i, (const struct d2b_type *)m->fa.p, key);
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

	m->nr_dfs = 0;
	err = VEC_RESERVE(m->dfs, m->dfs_cap, 0, 1);
	if (err)
		return err;
	m->dfs[m->nr_dfs++] = i0;
	m->busy[i0] = 1;
	while (m->nr_dfs) {
		uint32_t i = m->dfs[m->nr_dfs - 1], r, j;

		if (m->map[i]) {	/* made canonical to cut a cycle */
			m->busy[i] = 0;
			m->nr_dfs--;
			continue;
		}
		r = first_unmapped_ref(m, i);
		if (r) {
			j = vslot(m, r);
			if (m->busy[j]) {
				/* a cycle of reference types: malformed, cut it here */
				m->map[j] = r;
				continue;
			}
			err = VEC_RESERVE(m->dfs, m->dfs_cap, m->nr_dfs, 1);
			if (err)
				return err;
			m->dfs[m->nr_dfs++] = j;
			m->busy[j] = 1;
			continue;
		}
		m->busy[i] = 0;
		m->nr_dfs--;
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

	for (i = 0; i < m->n; i++) {
		enum kclass kc;

		if (m->map[i] || (m->alias && m->alias[i]))
			continue;
		kc = m->kc[i];
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
	uint32_t i, next = m->dst_end;
	int id, err;

	for (i = 0; i < m->n; i++) {
		if (m->map[i] == vid(m, i))
			m->real[i] = next++;
	}
	for (i = 0; i < m->n; i++) {
		if (m->map[i] != vid(m, i))
			continue;
		err = merge_form_fill(m, &m->fa, vid(m, i), FORM_FINAL);
		if (err)
			return err;
		id = d2b_btf__add_raw(m->dst, (const struct d2b_type *)m->fa.p);
		if (id < 0)
			return id;
		btf_view_init(&m->vd, m->dst);
		if ((uint32_t)id != m->real[i])
			return -EINVAL;
	}
	return 0;
}

/* Index what pass_append added, now that virtual IDs are gone. */
static int index_appended(struct merge *m, uint32_t from)
{
	uint32_t id, end = d2b_btf__end_id(m->dst);
	int err = 0;

	m->dst_end = end;
	m->n = 0;
	for (id = from; id < end && !err; id++)
		err = merge_index_type(m, &m->index, id);
	return err;
}

/* Add the time since *t to step's, and start the next step's at now. */
static void step_done(struct merge *m, enum dedup_step step, double *t)
{
	double t1 = clock_now();

	m->step_s[step] += t1 - *t;
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
	if (!err && m->last)
		err = hmap__reserve(&m->local, m->n);
	if (err)
		return err;
	if (!kc) {
		err = VEC_RESERVE(m->kc_own, m->kc_cap, 0, m->n + 1);
		if (err)
			return err;
	}
	m->kc = kc ? kc : m->kc_own;
	for (i = 0; !kc && i < m->n; i++) {
		const struct d2b_type *t = type_of(m, vid(m, i));

		m->kc_own[i] = t ? kclass(t) : KC_BAD;
		if (m->kc_own[i] == KC_BAD)
			return -EINVAL;
	}
	step_done(m, DEDUP_STEP_SETUP, &t0);
	if (m->append_only) {
		for (i = 0; i < m->n; i++)
			m->map[i] = vid(m, i);
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
	uint32_t i, from = d2b_btf__end_id(m->dst);
	double t0 = clock_now();
	int err;

	err = pass_append(m);
	if (err)
		return err;
	merge_fwd_res_finalize(m);
	if (map_out) {
		for (i = 0; i < m->n; i++)
			map_out[m->s_start + i] = final_id(m, translate(m, m->s_start + i));
	}
	step_done(m, DEDUP_STEP_APPEND, &t0);
	if (m->append_only || m->last) {
		m->dst_end = d2b_btf__end_id(m->dst);
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

	m->nr_res = m->res_unit;
	hmap__clear(&m->res_index);
	for (j = 0; j < m->nr_res && !err; j++)
		err = merge_fwd_res_index(m, j);
	m->n = 0;
	return err;
}

int merge_source(struct merge *m, const struct d2b_btf *src, const uint32_t *alias,
		 const uint8_t *kc, uint32_t *map_out)
{
	return merge_map(m, src, alias, kc) ?: merge_append(m, map_out);
}
