// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Deduplication theory
 * ====================
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
 * destination once (smap[], indexed by source offset); from then on names
 * compare as offsets.
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
 * like libbpf, the first compatible candidate wins.
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
 * exactly.  A cycle that does not pass through a struct (malformed input)
 * is cut by declaring the type met again canonical.
 *
 * Pass 5, append: canonical source types go to the destination in source
 * order (first met order), their IDs and strings remapped, and are indexed
 * for the units to come.
 *
 * Finish: a FWD that a walk resolved takes its definition; any other FWD
 * with exactly one STRUCT/UNION of its name (a struct and a union of one
 * name are ambiguous) and of its kind is resolved to it (libbpf's
 * btf_dedup_resolve_fwds()), and a forward enum to the one full enum of its
 * name.  Then the work BTF is merged once more, as a single source, into
 * the caller's (empty) output BTF with the resolved FWDs aliased to their
 * targets: types that became equal merge, unreferenced strings are never
 * copied, and the result is compact.
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
#include "merge/dedup.h"
#include "base/hmap.h"
#include "base/vec.h"

enum {
	UNSET = UINT32_MAX,
	IDENT_BUDGET = 64,	/* pairs one "identical types" check may compare */
	SHAPE_AFTER = 2,	/* candidates walked before member shapes filter them */
	SHAPE_DEPTH = 16,	/* reference kinds followed per member shape */
	RESOLVE_MAX = 8,	/* map chains are at most FWD -> struct */
};

enum kclass { KC_BAD, KC_PRIM, KC_FWD, KC_COMPOSITE, KC_REF, KC_KEEP };

enum form_mode {
	FORM_RESOLVE,	/* ID fields canonical: the form prims and refs compare by */
	FORM_SHALLOW,	/* ID fields zero, listed in ids[]: structural compare */
	FORM_FINAL,	/* ID fields as destination IDs: for appending */
};

/* A type copied with its strings as destination offsets and its IDs per mode. */
struct form {
	uint32_t *w;
	size_t w_cap;
	uint32_t *ids;
	size_t ids_cap;
	const uint32_t *p;	/* w, or the destination's own words */
	size_t nw, nids;
};

struct pair {
	uint32_t c, k;		/* candidate (source) side, canonical side */
};

/* A forward declaration's chosen definition (pass 3): FWD name/kind -> struct */
struct fwd_res {
	uint32_t name_off;	/* destination string offset */
	uint32_t kind;		/* D2B_KIND_STRUCT or D2B_KIND_UNION */
	uint32_t target;	/* combined ID while its unit is merged, then destination ID */
};

struct merge {
	struct d2b_btf *dst;
	const struct hmap *base;	/* the base's types: key -> ID (read-only) */
	struct hmap index;	/* destination types, the base's excepted: key -> ID */
	bool append_only;
	uint32_t dst_start;	/* the destination's first own ID (after its base) */

	/* forward declarations resolved by walks, for good (see the theory) */
	struct fwd_res *res;
	size_t nr_res, res_cap;
	size_t res_unit;	/* first entry added while merging the current source */
	struct hmap res_index;	/* hash(name, kind) -> index in res */

	/* the source being merged */
	const struct d2b_btf *src;
	const uint32_t *alias;	/* per source type: another source ID, or 0 */
	uint32_t s_start, s_end, n;
	uint32_t dst_end;	/* first virtual ID */
	uint32_t s_str_start;
	uint32_t *map, *real;
	size_t map_cap, real_cap;
	uint8_t *busy;
	size_t busy_cap;
	uint8_t *kc;		/* per source type: its enum kclass */
	size_t kc_cap;
	uint32_t *smap;
	size_t smap_cap, smap_n;
	struct hmap local;	/* canonical source types: key -> virtual ID */

	/* struct walks */
	uint32_t *hypot;	/* canonical side -> candidate side, or UNSET */
	size_t hypot_len, hypot_cap;
	uint32_t *touched;
	size_t nr_touched, touched_cap;
	struct pair *stack, *fwds, *istack;	/* fwds: FWD ~ STRUCT pairs of a walk */
	size_t nr_stack, stack_cap, nr_fwds, fwds_cap, nr_istack, istack_cap;
	uint32_t *dfs;
	size_t nr_dfs, dfs_cap;

	/* member shapes of canonical non-virtual composites, by ID; 0: not yet */
	uint64_t *shape;
	size_t shape_cap;

	struct form fa, fb;
};

struct dedup {
	struct d2b_btf *out;
	struct d2b_btf *work;
	struct dedup_opts opts;
	struct hmap base_index;	/* the base's types (split BTF), for every merge */
	struct merge m;
	uint32_t *final_map;
	bool finished, failed;
	struct dedup_stats stats;
};

/* ---- kinds ---- */

static enum kclass kclass(const struct d2b_type *t)
{
	switch (d2b_kind(t)) {
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
		return KC_PRIM;
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		return d2b_vlen(t) ? KC_PRIM : KC_FWD;
	case D2B_KIND_FWD:
		return KC_FWD;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		return KC_COMPOSITE;
	case D2B_KIND_PTR:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_CONST:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_TYPE_TAG:
	case D2B_KIND_ARRAY:
	case D2B_KIND_FUNC_PROTO:
	case D2B_KIND_FUNC:
	case D2B_KIND_DECL_TAG:
		return KC_REF;
	case D2B_KIND_VAR:
	case D2B_KIND_DATASEC:
		return KC_KEEP;
	default:
		return KC_BAD;
	}
}

static bool is_full_enum(const struct d2b_type *t)
{
	return btf_kind_is_enum(d2b_kind(t)) && d2b_vlen(t) > 0;
}

/* Second key: a named full enum is also indexed by name (for forward enums). */
static uint64_t enum_name_key(uint32_t name_off)
{
	return hash_combine(0x656e756dULL, name_off);
}

/* ---- the combined ID space ---- */

static inline bool is_virt(const struct merge *m, uint32_t id)
{
	return id >= m->dst_end;
}

static inline uint32_t vslot(const struct merge *m, uint32_t id)
{
	return id - m->dst_end;
}

/* A type-ID field of a source type, as a combined ID. */
static inline uint32_t translate(const struct merge *m, uint32_t f)
{
	uint32_t i;

	if (f < m->s_start)
		return f;
	i = f - m->s_start;
	if (m->alias && m->alias[i]) {
		f = m->alias[i];
		if (f < m->s_start)
			return f;
		i = f - m->s_start;
	}
	return m->dst_end + i;
}

static inline uint32_t resolve(const struct merge *m, uint32_t id)
{
	int i;

	for (i = 0; i < RESOLVE_MAX && is_virt(m, id); i++) {
		uint32_t to = m->map[vslot(m, id)];

		if (!to || to == id)
			break;
		id = to;
	}
	return id;
}

static inline bool is_canon(const struct merge *m, uint32_t id)
{
	return !is_virt(m, id) || m->map[vslot(m, id)] == id;
}

static inline bool is_unmapped(const struct merge *m, uint32_t id)
{
	return is_virt(m, id) && m->map[vslot(m, id)] == 0;
}

static const struct d2b_type *type_of(const struct merge *m, uint32_t id)
{
	if (!is_virt(m, id))
		return d2b_btf__type(m->dst, id);
	return d2b_btf__type(m->src, vslot(m, id) + m->s_start);
}

/* The destination ID of a combined ID, once the source is appended. */
static uint32_t final_id(const struct merge *m, uint32_t id)
{
	id = resolve(m, id);
	return is_virt(m, id) ? m->real[vslot(m, id)] : id;
}

/* ---- strings and forms ---- */

static int str_map(struct merge *m, uint32_t off, uint32_t *ret)
{
	size_t i;
	int r;

	if (off == 0 || off < m->s_str_start) {
		*ret = off;	/* "" or a base string shared with the destination */
		return 0;
	}
	i = off - m->s_str_start;
	if (i >= m->smap_n)
		return -EINVAL;
	if (m->smap[i] == UNSET) {
		const char *s = d2b_btf__str(m->src, off);

		if (!s)
			return -EINVAL;
		r = d2b_btf__add_str(m->dst, s);
		if (r < 0)
			return r;
		m->smap[i] = r;
	}
	*ret = m->smap[i];
	return 0;
}

static int name_of(struct merge *m, uint32_t id, uint32_t *ret)
{
	const struct d2b_type *t = type_of(m, id);

	if (!t)
		return -EINVAL;
	if (!is_virt(m, id)) {
		*ret = t->name_off;
		return 0;
	}
	return str_map(m, t->name_off, ret);
}

static int form_fill(struct merge *m, struct form *f, uint32_t id, enum form_mode mode)
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
	memcpy(f->w, t, f->nw * 4);
	f->p = f->w;
	if (own) {
		btf_field_iter__init(&it, (struct d2b_type *)f->w, BTF_FIELD_STRS);
		while ((p = btf_field_iter__next(&it))) {
			err = str_map(m, *p, p);
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

static bool form_equal(const struct form *a, const struct form *b)
{
	return a->nw == b->nw && memcmp(a->p, b->p, a->nw * 4) == 0;
}

/* The index key of a type: shallow for structs/unions, full otherwise. */
static int type_key(struct merge *m, struct form *f, uint32_t id, uint64_t *ret)
{
	const struct d2b_type *t = type_of(m, id);
	int err;

	if (!t)
		return -EINVAL;
	err = form_fill(m, f, id, btf_kind_is_composite(d2b_kind(t)) ? FORM_SHALLOW : FORM_RESOLVE);
	if (err)
		return err;
	*ret = hash_bytes(f->p, f->nw * 4, 0);
	return 0;
}

/* Index a canonical type (a destination ID in m->index, a virtual one in local). */
static int index_type(struct merge *m, struct hmap *h, uint32_t id)
{
	const struct d2b_type *t;
	uint64_t key;
	int err;

	err = type_key(m, &m->fa, id, &key);
	if (err)
		return err;
	err = hmap__add(h, key, id);
	if (err)
		return err;
	t = (const struct d2b_type *)m->fa.p;
	if (is_full_enum(t) && t->name_off)
		err = hmap__add(h, enum_name_key(t->name_off), id);
	return err;
}

/* ---- setup ---- */

/*
 * base: the index of dst's base's types (split BTF), which dst's merges
 * share; filled here if fill_base (the first merge over that base).
 */
static int merge_init(struct merge *m, struct d2b_btf *dst, bool force_collisions, bool append_only,
		      struct hmap *base, bool fill_base)
{
	uint32_t id, start = d2b_btf__start_id(dst);
	int err = 0;

	memset(m, 0, sizeof(*m));
	m->dst = dst;
	m->base = base;
	m->append_only = append_only;
	hmap__init(&m->index, force_collisions);
	hmap__init(&m->local, force_collisions);
	hmap__init(&m->res_index, force_collisions);
	m->dst_start = start;
	m->dst_end = d2b_btf__end_id(dst);
	if (append_only)
		return 0;
	/* the base's types (split BTF) are candidates like our own */
	for (id = 1; id < start && fill_base && !err; id++)
		err = index_type(m, base, id);
	for (id = start; id < m->dst_end && !err; id++)
		err = index_type(m, &m->index, id);
	return err;
}

static void merge_release(struct merge *m)
{
	free(m->shape);
	hmap__release(&m->index);
	hmap__release(&m->local);
	hmap__release(&m->res_index);
	free(m->res);
	free(m->map);
	free(m->real);
	free(m->busy);
	free(m->kc);
	free(m->smap);
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
	m->alias = alias;
	m->s_start = d2b_btf__start_id(src);
	m->s_end = d2b_btf__end_id(src);
	m->n = m->s_end - m->s_start;
	m->dst_end = d2b_btf__end_id(m->dst);
	/* base strings are shared when src and dst are over one base */
	m->s_str_start = d2b_btf__base(src) == d2b_btf__base(m->dst) ? btf_start_str(src) : 0;
	m->smap_n = btf_end_str(src) - m->s_str_start;
	if ((uint64_t)m->dst_end + m->n > UINT32_MAX / 2)
		return -E2BIG;
	/* + 1: never a NULL array, even for an empty source */
	err = VEC_RESERVE(m->map, m->map_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->real, m->real_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->busy, m->busy_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->kc, m->kc_cap, 0, m->n + 1);
	if (!err)
		err = VEC_RESERVE(m->smap, m->smap_cap, 0, m->smap_n + 1);
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
	memset(m->smap, 0xff, m->smap_n * sizeof(*m->smap));
	hmap__clear(&m->local);
	m->res_unit = m->nr_res;
	return 0;
}

static inline uint32_t vid(const struct merge *m, uint32_t i)
{
	return m->dst_end + i;
}

static int make_canonical(struct merge *m, uint32_t i)
{
	m->map[i] = vid(m, i);
	return index_type(m, &m->local, vid(m, i));
}

/* ---- pass 2: primitives ---- */

/*
 * A canonical type whose resolved form equals m->fa, under key: destination
 * candidates first, then the unit's own.  *ret = 0 if none.
 */
static int find_equal(struct merge *m, uint64_t key, uint32_t *ret)
{
	struct hmap_iter it;
	uint64_t v;
	int err;

	const struct hmap *dsts[2] = { m->base, &m->index };
	unsigned int h;

	*ret = 0;
	for (h = 0; h < 2; h++) {
		hmap__iter_init(dsts[h], key, &it);
		while (hmap__next(dsts[h], &it, &v)) {
			const struct d2b_type *t = type_of(m, v);

			if (t && btf_type_words(t) == m->fa.nw &&
			    memcmp(t, m->fa.p, m->fa.nw * 4) == 0) {
				*ret = v;
				return 0;
			}
		}
	}
	hmap__iter_init(&m->local, key, &it);
	while (hmap__next(&m->local, &it, &v)) {
		if (!is_canon(m, v))
			continue;
		err = form_fill(m, &m->fb, v, FORM_RESOLVE);
		if (err)
			return err;
		if (form_equal(&m->fa, &m->fb)) {
			*ret = v;
			return 0;
		}
	}
	return 0;
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
			err = name_of(m, v, &name);
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

	err = type_key(m, &m->fa, vid(m, i), &key);
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
	return make_canonical(m, i);
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
static long fwd_res_find(const struct merge *m, uint32_t name_off, uint32_t kind)
{
	struct hmap_iter it;
	uint64_t v;

	hmap__iter_init(&m->res_index, fwd_res_key(name_off, kind), &it);
	while (hmap__next(&m->res_index, &it, &v)) {
		if (m->res[v].name_off == name_off && m->res[v].kind == kind)
			return (long)v;
	}
	return -1;
}

static bool is_base(const struct merge *m, uint32_t id)
{
	return !is_virt(m, id) && id < m->dst_start;
}

/*
 * The canonical side of a walk sees a FWD that an earlier walk resolved as
 * its definition, as libbpf does: from then on the FWD stands for that
 * struct only.  *ret = id otherwise.
 */
static int fwd_target(struct merge *m, uint32_t id, uint32_t *ret)
{
	const struct d2b_type *t = type_of(m, id);
	uint32_t name;
	long j;
	int err;

	*ret = id;
	if (!t || d2b_kind(t) != D2B_KIND_FWD || !t->name_off || is_base(m, id) || !m->nr_res)
		return 0;
	err = name_of(m, id, &name);
	if (err)
		return err;
	j = fwd_res_find(m, name, btf_fwd_kind(t));
	if (j >= 0)
		*ret = resolve(m, m->res[j].target);
	return 0;
}

/* Remember that this walk pairs FWD fwd with struct/union def. */
static int note_fwd(struct merge *m, uint32_t fwd, uint32_t def)
{
	if (is_base(m, fwd))	/* a base FWD never changes */
		return 0;
	return push_pair(m, &m->fwds, &m->nr_fwds, &m->fwds_cap, fwd, def);
}

/* A successful walk: each FWD it paired, if still unresolved, takes its struct for good. */
static int commit_fwds(struct merge *m)
{
	size_t j;
	int err;

	for (j = 0; j < m->nr_fwds; j++) {
		const struct d2b_type *t = type_of(m, m->fwds[j].c);
		struct fwd_res r;

		err = name_of(m, m->fwds[j].c, &r.name_off);
		if (err)
			return err;
		r.kind = btf_fwd_kind(t);
		if (fwd_res_find(m, r.name_off, r.kind) >= 0)
			continue;
		r.target = m->fwds[j].k;
		err = VEC_RESERVE(m->res, m->res_cap, m->nr_res, 1);
		if (!err)
			err = hmap__add(&m->res_index, fwd_res_key(r.name_off, r.kind), m->nr_res);
		if (err)
			return err;
		m->res[m->nr_res++] = r;
	}
	return 0;
}

/* After the source is appended: its entries name destination IDs. */
static void fwd_res_finalize(struct merge *m)
{
	size_t j;

	for (j = m->res_unit; j < m->nr_res; j++)
		m->res[j].target = final_id(m, m->res[j].target);
	m->res_unit = m->nr_res;
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
	err = name_of(m, rc, &nc);
	if (!err)
		err = name_of(m, rk, &nk);
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

	m->nr_istack = 0;
	err = push_pair(m, &m->istack, &m->nr_istack, &m->istack_cap, a, b);
	while (!err && m->nr_istack) {
		struct pair p = m->istack[--m->nr_istack];

		p.c = resolve(m, p.c);
		p.k = resolve(m, p.k);
		if (p.c == p.k)
			continue;
		if ((is_canon(m, p.c) && is_canon(m, p.k)) || !budget--)
			return 0;
		err = form_fill(m, &m->fa, p.c, FORM_SHALLOW);
		if (!err)
			err = form_fill(m, &m->fb, p.k, FORM_SHALLOW);
		if (err)
			return err;
		if (!form_equal(&m->fa, &m->fb))
			return 0;
		for (j = 0; j < m->fa.nids && !err; j++)
			err = push_pair(m, &m->istack, &m->nr_istack, &m->istack_cap,
					m->fa.ids[j], m->fb.ids[j]);
	}
	return err ? err : 1;
}

/* A string field of side id, as a destination offset. */
static inline int side_str(struct merge *m, uint32_t id, uint32_t off, uint32_t *ret)
{
	if (!is_virt(m, id)) {
		*ret = off;
		return 0;
	}
	return str_map(m, off, ret);
}

static inline int push_side_ids(struct merge *m, uint32_t c, uint32_t fc, uint32_t k, uint32_t fk)
{
	return push_pair(m, &m->stack, &m->nr_stack, &m->stack_cap,
			 is_virt(m, c) ? translate(m, fc) : fc, is_virt(m, k) ? translate(m, fk) : fk);
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
	uint32_t j, vlen = d2b_vlen(tc), sa, sb;
	int err;

	if (a[1] != b[1])
		return 0;	/* kind, vlen, kind_flag */
	switch (d2b_kind(tc)) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_FUNC_PROTO:
	case D2B_KIND_ARRAY:
	case D2B_KIND_PTR:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_CONST:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_TYPE_TAG:
		break;
	default:
		return SHALLOW_BY_FORMS;
	}
	err = side_str(m, c, a[0], &sa);
	if (!err)
		err = side_str(m, k, b[0], &sb);
	if (err)
		return err;
	if (sa != sb)
		return 0;
	switch (d2b_kind(tc)) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		if (a[2] != b[2])
			return 0;
		for (j = 0; j < vlen; j++) {
			const uint32_t *ma = a + 3 + 3 * j, *mb = b + 3 + 3 * j;

			if (ma[2] != mb[2])
				return 0;
			err = side_str(m, c, ma[0], &sa);
			if (!err)
				err = side_str(m, k, mb[0], &sb);
			if (err)
				return err;
			if (sa != sb)
				return 0;
		}
		for (j = 0; j < vlen; j++) {
			err = push_side_ids(m, c, a[4 + 3 * j], k, b[4 + 3 * j]);
			if (err)
				return err;
		}
		return 1;
	case D2B_KIND_FUNC_PROTO:
		for (j = 0; j < vlen; j++) {
			err = side_str(m, c, a[3 + 2 * j], &sa);
			if (!err)
				err = side_str(m, k, b[3 + 2 * j], &sb);
			if (err)
				return err;
			if (sa != sb)
				return 0;
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
	default:
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
	h = m->hypot[rk];
	if (h != UNSET)
		return h == rc ? 1 : identical(m, h, rc);
	err = VEC_RESERVE(m->touched, m->touched_cap, m->nr_touched, 1);
	if (err)
		return err;
	m->touched[m->nr_touched++] = rk;
	m->hypot[rk] = rc;

	tc = type_of(m, rc);
	if (!tc)
		return -EINVAL;
	if (d2b_kind(tc) != d2b_kind(tk))
		return compat(m, rc, rk);
	if (kclass(tc) != KC_COMPOSITE && kclass(tc) != KC_REF) {
		err = form_fill(m, &m->fa, rc, FORM_RESOLVE);
		if (!err)
			err = form_fill(m, &m->fb, rk, FORM_RESOLVE);
		return err ? err : form_equal(&m->fa, &m->fb);
	}
	err = shallow_step(m, rc, tc, rk, tk);
	if (err != SHALLOW_BY_FORMS)
		return err;
	err = form_fill(m, &m->fa, rc, FORM_SHALLOW);
	if (!err)
		err = form_fill(m, &m->fb, rk, FORM_SHALLOW);
	if (err)
		return err;
	if (!form_equal(&m->fa, &m->fb))
		return 0;
	for (j = 0; j < m->fa.nids; j++) {
		err = push_pair(m, &m->stack, &m->nr_stack, &m->stack_cap, m->fa.ids[j], m->fb.ids[j]);
		if (err)
			return err;
	}
	return 1;
}

static int walk_commit(struct merge *m)
{
	size_t j;

	for (j = 0; j < m->nr_touched; j++) {
		uint32_t rk = m->touched[j], rc = m->hypot[rk];
		const struct d2b_type *tc = type_of(m, rc), *tk = type_of(m, rk);

		if (!tc || !tk || !btf_kind_is_composite(d2b_kind(tc)) || d2b_kind(tc) != d2b_kind(tk))
			continue;
		if (is_unmapped(m, rc) && is_canon(m, rk))
			m->map[vslot(m, rc)] = rk;
		else if (is_unmapped(m, rk) && is_canon(m, rc))
			m->map[vslot(m, rk)] = rc;
	}
	return commit_fwds(m);
}

/* Walk source type c against canonical k; commit if equivalent. */
static int walk(struct merge *m, uint32_t c, uint32_t k)
{
	size_t j;
	int ret;

	m->nr_stack = m->nr_touched = m->nr_fwds = 0;
	ret = push_pair(m, &m->stack, &m->nr_stack, &m->stack_cap, c, k);
	if (ret == 0)
		ret = 1;
	while (ret == 1 && m->nr_stack) {
		struct pair p = m->stack[--m->nr_stack];

		ret = walk_pair(m, p.c, p.k);
	}
	if (ret == 1) {
		int err = walk_commit(m);

		if (err)
			ret = err;
	}
	for (j = 0; j < m->nr_touched; j++)
		m->hypot[m->touched[j]] = UNSET;
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
		err = name_of(m, id, &name);
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
		} else if (btf_kind_is_modifier(kind) || kind == D2B_KIND_PTR ||
			   kind == D2B_KIND_TYPEDEF) {
			next = t->type;
		} else {
			break;
		}
		id = is_virt(m, id) ? translate(m, next) : next;
	}
	*ret = h;
	return 0;
}

/* The hash of a composite's member shapes (never 0), cached for
 * non-virtual IDs: their types never change. */
static int composite_shape(struct merge *m, uint32_t id, uint64_t *ret)
{
	const struct d2b_type *t = type_of(m, id);
	const struct d2b_member *mem;
	uint64_t h = 0, sh;
	uint32_t j, n;
	int err;

	if (!t)
		return -EINVAL;
	if (!is_virt(m, id) && id < m->shape_cap && m->shape[id]) {
		*ret = m->shape[id];
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
	if (!is_virt(m, id)) {
		if (id >= m->shape_cap) {
			size_t cap = m->shape_cap ? m->shape_cap : 1024, old = m->shape_cap;
			uint64_t *p;

			while (cap <= id)
				cap *= 2;
			p = realloc(m->shape, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			memset(p + old, 0, (cap - old) * sizeof(*p));
			m->shape = p;
			m->shape_cap = cap;
		}
		m->shape[id] = h;
	}
	*ret = h;
	return 0;
}

static int dedup_composite(struct merge *m, uint32_t i)
{
	const struct hmap *maps[3] = { m->base, &m->index, &m->local };
	struct hmap_iter it;
	unsigned int h, tried = 0;
	uint64_t key, v, shape = 0, cshape;
	int err;

	err = type_key(m, &m->fa, vid(m, i), &key);
	if (err)
		return err;
	for (h = 0; h < 3; h++) {
		hmap__iter_init(maps[h], key, &it);
		while (hmap__next(maps[h], &it, &v)) {
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
			if (err == 1 && m->map[i])
				return 0;
		}
	}
	return make_canonical(m, i);
}

static int pass_composites(struct merge *m)
{
	uint32_t i;
	int err;

	for (i = 0; i < m->n; i++) {
		if (m->map[i] || m->kc[i] != KC_COMPOSITE)
			continue;
		err = dedup_composite(m, i);
		if (err)
			return err;
	}
	return 0;
}

/* ---- pass 4: reference kinds ---- */

static int dedup_ref(struct merge *m, uint32_t i)
{
	const struct d2b_type *t = type_of(m, vid(m, i));
	uint32_t found;
	uint64_t key;
	int err;

	if (kclass(t) == KC_KEEP) {	/* VAR, DATASEC: never merged */
		m->map[i] = vid(m, i);
		return 0;
	}
	err = type_key(m, &m->fa, vid(m, i), &key);
	if (!err)
		err = find_equal(m, key, &found);
	if (err)
		return err;
	if (found) {
		m->map[i] = found;
		return 0;
	}
	return make_canonical(m, i);
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
		err = form_fill(m, &m->fa, vid(m, i), FORM_FINAL);
		if (err)
			return err;
		id = d2b_btf__add_raw(m->dst, (const struct d2b_type *)m->fa.p);
		if (id < 0)
			return id;
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
		err = index_type(m, &m->index, id);
	return err;
}

/*
 * Merge one source into the destination; map_out[s] (s in the source's
 * own ID range) receives each source type's destination ID.
 */
static int merge_source(struct merge *m, const struct d2b_btf *src, const uint32_t *alias,
			uint32_t *map_out)
{
	uint32_t i, from;
	int err;

	err = merge_begin(m, src, alias);
	if (err)
		return err;
	for (i = 0; i < m->n; i++) {
		const struct d2b_type *t = type_of(m, vid(m, i));

		m->kc[i] = t ? kclass(t) : KC_BAD;
		if (m->kc[i] == KC_BAD)
			return -EINVAL;
	}
	if (m->append_only) {
		for (i = 0; i < m->n; i++)
			m->map[i] = vid(m, i);
	} else {
		err = pass_prims(m);
		if (!err)
			err = pass_composites(m);
		if (!err)
			err = pass_refs(m);
		if (err)
			return err;
	}
	from = d2b_btf__end_id(m->dst);
	err = pass_append(m);
	if (err)
		return err;
	fwd_res_finalize(m);
	if (map_out) {
		for (i = 0; i < m->n; i++)
			map_out[m->s_start + i] = final_id(m, translate(m, m->s_start + i));
	}
	if (m->append_only) {
		m->dst_end = d2b_btf__end_id(m->dst);
		return 0;
	}
	return index_appended(m, from);
}

/* ---- the public interface ---- */

int dedup__new(struct d2b_btf *out, const struct dedup_opts *opts, struct dedup **ret)
{
	struct dedup *d;
	int err;

	*ret = NULL;
	if (!out || d2b_btf__nr_types(out))
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (opts)
		d->opts = *opts;
	d->out = out;
	if (d->opts.names && d2b_btf__base(out)) {
		free(d);
		return -EINVAL;
	}
	d->work = d2b_btf__new(d->opts.names ? d->opts.names : d2b_btf__base(out));
	if (!d->work) {
		free(d);
		return -ENOMEM;
	}
	btf_copy_model(d->work, out);
	hmap__init(&d->base_index, d->opts.force_collisions);
	err = merge_init(&d->m, d->work, d->opts.force_collisions, d->opts.append_only,
			 &d->base_index, true);
	if (err) {
		dedup__free(d);
		return err;
	}
	*ret = d;
	return 0;
}

void dedup__free(struct dedup *d)
{
	if (!d)
		return;
	merge_release(&d->m);
	hmap__release(&d->base_index);
	d2b_btf__free(d->work);
	free(d->final_map);
	free(d);
}

const struct d2b_btf *dedup__btf(const struct dedup *d)
{
	return d->work;
}

/* Check unit as dedup__add_unit() wants it; count its types per kind. */
static int check_unit(struct dedup *d, const struct d2b_btf *unit)
{
	uint64_t in[D2B_KIND_MAX + 1] = { 0 };
	uint32_t id, end = d2b_btf__end_id(unit);
	unsigned int k;

	if (d2b_btf__base(unit) != d->opts.names || d2b_btf__start_id(unit) != 1)
		return -EINVAL;
	/* one pointer size for all: BTF cannot say which PTR has which */
	if (d2b_btf__pointer_size(unit) != d2b_btf__pointer_size(d->out))
		return -EINVAL;
	for (id = 1; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(unit, id);
		struct btf_field_iter it;
		uint32_t *p;

		if (!t || kclass(t) == KC_BAD)
			return -EINVAL;
		in[d2b_kind(t)]++;
		btf_field_iter__init(&it, (struct d2b_type *)t, BTF_FIELD_IDS);
		while ((p = btf_field_iter__next(&it))) {
			if (*p >= end)
				return -EINVAL;
		}
	}
	for (k = 0; k <= D2B_KIND_MAX; k++)
		d->stats.in[k] += in[k];
	return 0;
}

int dedup__add_unit(struct dedup *d, const struct d2b_btf *unit, uint32_t *map)
{
	int err;

	if (d->finished || d->failed)
		return -EINVAL;
	err = check_unit(d, unit);
	if (err) {
		d->failed = true;
		return err;
	}
	err = merge_source(&d->m, unit, NULL, map);
	if (err) {
		d->failed = true;
		return err;
	}
	if (map)
		map[0] = 0;
	return 0;
}

/*
 * Leftover forward declarations of work's own types: alias[i] (i = ID -
 * start) becomes the one STRUCT/UNION (the one full enum, for a forward
 * enum) of that name, if it is unique and of the FWD's kind.
 */
static int resolve_fwds(struct dedup *d, uint32_t **ret)
{
	const struct d2b_btf *w = d->work;
	uint32_t start = d2b_btf__start_id(w), end = d2b_btf__end_id(w), id;
	uint32_t *alias = NULL;
	struct hmap names;
	int err = 0;

	*ret = NULL;
	hmap__init(&names, d->opts.force_collisions);
	for (id = 1; id < end && !err; id++) {
		const struct d2b_type *t = d2b_btf__type(w, id);

		if (t->name_off && (btf_kind_is_composite(d2b_kind(t)) || is_full_enum(t)))
			err = hmap__add(&names, t->name_off, id);
	}
	if (!err) {
		alias = calloc(end - start + 1, sizeof(*alias));
		if (!alias)
			err = -ENOMEM;
	}
	for (id = start; id < end && !err; id++) {
		const struct d2b_type *t = d2b_btf__type(w, id);
		bool fwd_enum = btf_kind_is_enum(d2b_kind(t)) && !d2b_vlen(t);
		struct hmap_iter it;
		uint32_t target = 0, count = 0;
		uint64_t v;

		if ((d2b_kind(t) != D2B_KIND_FWD && !fwd_enum) || !t->name_off)
			continue;
		if (!fwd_enum) {
			long j = fwd_res_find(&d->m, t->name_off, btf_fwd_kind(t));

			if (j >= 0) {
				alias[id - start] = d->m.res[j].target;
				continue;
			}
		}
		hmap__iter_init(&names, t->name_off, &it);
		while (hmap__next(&names, &it, &v)) {
			const struct d2b_type *c = d2b_btf__type(w, v);

			if (c->name_off != t->name_off || btf_kind_is_enum(d2b_kind(c)) != fwd_enum)
				continue;
			target = v;
			count++;
		}
		if (count != 1)
			continue;
		if (!fwd_enum && d2b_kind(d2b_btf__type(w, target)) != btf_fwd_kind(t))
			continue;
		alias[id - start] = target;
	}
	hmap__release(&names);
	if (err) {
		free(alias);
		return err;
	}
	*ret = alias;
	return 0;
}

static void count_out(struct dedup *d)
{
	uint32_t id, end = d2b_btf__end_id(d->out);

	memset(d->stats.out, 0, sizeof(d->stats.out));
	for (id = d2b_btf__start_id(d->out); id < end; id++)
		d->stats.out[d2b_kind(d2b_btf__type(d->out, id))]++;
}

int dedup__finish(struct dedup *d, const uint32_t **final_map)
{
	uint32_t start = d2b_btf__start_id(d->work), end = d2b_btf__end_id(d->work), id;
	uint32_t *alias = NULL;
	struct merge fm;
	int err;

	if (final_map)
		*final_map = NULL;
	if (d->finished || d->failed)
		return -EINVAL;
	d->finished = true;
	if (!d->opts.append_only) {
		err = resolve_fwds(d, &alias);
		if (err)
			return err;
	}
	/* the work index is no longer needed: free it before the final merge */
	merge_release(&d->m);
	memset(&d->m, 0, sizeof(d->m));
	d->final_map = calloc(end, sizeof(*d->final_map));
	if (!d->final_map) {
		free(alias);
		return -ENOMEM;
	}
	for (id = 0; id < start; id++)
		d->final_map[id] = id;
	err = merge_init(&fm, d->out, d->opts.force_collisions, d->opts.append_only,
			 &d->base_index, false);
	if (!err)
		err = merge_source(&fm, d->work, alias, d->final_map);
	merge_release(&fm);
	free(alias);
	if (err) {
		d->failed = true;
		return err;
	}
	count_out(d);
	if (final_map)
		*final_map = d->final_map;
	return 0;
}

void dedup__stats(const struct dedup *d, struct dedup_stats *ret)
{
	*ret = d->stats;
}
