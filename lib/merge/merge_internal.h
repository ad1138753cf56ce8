/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct merge: one merge's state (the destination, the source, the
 * scratch: three structs, one per lifetime) and its combined ID space,
 * shared by merge.c (the passes), merge_walk.c (pass 3: struct walks),
 * merge_form.c (strings, forms and keys) and dedup.c (struct dedup: units,
 * groups, finish).  Theory in merge.c.  Not part of the library's
 * interface.
 */
#ifndef D2B_MERGE_INTERNAL_H
#define D2B_MERGE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "btf/btf.h"
#include "base/hmap.h"
#include "merge/dedup.h"

/*
 * Apart from the limits below: an enumerator that does not fit an int gives
 * the whole enum an unsigned type (C23, and GCC 15 and later in any mode),
 * and "i < LIMIT" with a signed i would then compare signed with unsigned.
 */
enum { UNSET = UINT32_MAX };

enum {
	IDENT_BUDGET = 64,	/* pairs one "identical types" check may compare */
	SHAPE_AFTER = 2,	/* candidates walked before member shapes filter them */
	SHAPE_DEPTH = 16,	/* reference kinds followed per member shape */
	RESOLVE_MAX = 8,	/* map chains are at most FWD -> struct */
	SPARSE_STRS = 16,	/* string bytes per source type past which smap */
	SPARSE_MIN = 1 << 16,	/* (if over these bytes in all) is a hash map */
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

/*
 * An exact index of the single-reference kinds, the most common types of
 * all: first[k][T] is the first type of kind over_slot()'s k that refers to
 * type T, or 0.  An unnamed one is equal to a form exactly when kind and T
 * are its, so a lookup is one array read where the hash index costs a
 * probe of a large table; "first" keeps the answer the hash index gives
 * for entries of one key, which it returns in the order they were added.
 * A TYPEDEF also has a name: the first over T answers for its own name
 * only (for another, the hash index does).
 */
enum { OVER_TYPEDEF = 4, NR_OVER = 5 };

struct over_index {
	uint32_t *first[NR_OVER];
	size_t cap;		/* entries of each first[k] */
	/* few entries over a wide range of IDs (split BTF's own types, which
	 * mostly refer to the base's): zero pages left to fault in when
	 * touched, not made present at once */
	bool sparse;
	/* or, read-only, the entries that are not 0 in a frozen map (a cache
	 * keeps a base's so: 15,000 entries, not 5 x 95,000), over_key(k, T)
	 * -> first[k][T] */
	struct hmap map;
};

static inline uint64_t over_key(int k, uint32_t type)
{
	return (uint64_t)k << 32 | type;
}

/*
 * The base's composites again, for the shallow keys that many of them
 * share (merge_walk.c, base_bucket()): by key and member shape.  The base
 * never changes and a base type's shape does not depend on the merge, so
 * one set serves every merge over that base; filled as keys are met.
 */
struct base_buckets {
	struct hmap state;	/* shallow key -> BUCKET_SMALL or BUCKET_BUILT */
	struct hmap by_shape;	/* hash_combine(key, shape) -> base ID, in ID order */
};

/*
 * A merge's state is three structs, one per lifetime (struct merge holds
 * them side by side, not through pointers: the inline helpers below read
 * them in the inner loops).
 *
 * struct merge_dest: the destination and what is known of it, from
 * merge_init() to merge_release(), over every source: its indexes, the
 * forward declarations resolved for good, its composites' shapes.
 */
struct merge_dest {
	struct d2b_btf *dst;
	struct btf_view vd;	/* of dst (taken again as it grows) */
	uint32_t dst_start;	/* the destination's first own ID (after its base) */
	uint32_t dst_end;	/* its end: the first virtual ID while a source is merged */
	bool append_only;
	bool last;		/* the last source: what it appends is not indexed */
	bool index_names;	/* index also holds composite_name_key()s */

	const struct hmap *base;	/* the base's types: key -> ID (read-only) */
	const struct over_index *base_over;	/* the same, for the single refs */
	struct base_buckets *bb;	/* the same, by shape, where keys are shared */
	struct hmap index;	/* destination types, the base's excepted: key -> ID */
	struct over_index over;	/* the same, for the single refs */

	/* forward declarations resolved by walks, for good (see the theory) */
	struct fwd_res *res;
	size_t nr_res, res_cap;
	size_t res_unit;	/* first entry added while merging the current source */
	struct hmap res_index;	/* hash(name, kind) -> index in res */
	const struct merge *seed;	/* a group's, while it is merged (its res) */

	/* the shared names base's tails, remembered by place (made at the
	 * first tail; merge_form.c, map_tail()): one destination offset for
	 * each name, whatever its places, across sources */
	struct ptr_cache *tails;
	/* member shapes of canonical non-virtual composites, by ID; 0: not yet */
	uint64_t *shape;
	size_t shape_cap;

	double step_s[DEDUP_NR_STEPS];	/* seconds per step, over its merges */
};

/*
 * struct merge_source: the source being merged, set up by merge_map() and
 * dropped by merge_append() or merge_abandon(); its arrays are kept (and
 * grown) for the next source, their contents reset.
 */
struct merge_source {
	const struct d2b_btf *src;
	struct btf_view vs;	/* of src */
	const uint32_t *alias;	/* per source type: another source ID, or 0 */
	uint32_t s_start, s_end, n;
	uint32_t s_str_start;
	/* the first source offset of the shared names base's tails range (0:
	 * none), mapped by their bytes to the destination's own strings (the
	 * destination's tails) */
	uint32_t tails_start;
	/* source offsets below this are the destination's too: "" and the
	 * shared base's strings, tails excepted (merge_str()) */
	uint32_t str_same_below;
	/* per source type: its canonical combined ID (map, 0: not yet), its
	 * destination ID once appended (real), on the reference DFS (busy) */
	uint32_t *map, *real;
	size_t map_cap, real_cap;
	uint8_t *busy;
	size_t busy_cap;
	const uint8_t *kc;	/* per source type: its enum kclass */
	uint8_t *kc_own;	/* kc, when the caller's check did not make it */
	size_t kc_cap;
	uint32_t *ref_ok;	/* per source reference type: a canonical ID + 1 a
				 * successful walk paired it with, or 0 */
	size_t ref_ok_cap;
	/* source string offset - s_str_start -> destination offset: smap[],
	 * or, where the source's strings are many times its types (the final
	 * merge, whose source reaches over all of .debug_str), smap_sparse */
	uint32_t *smap;
	size_t smap_cap, smap_n;
	bool sparse_strs;
	struct hmap smap_sparse;
	struct hmap local;	/* canonical source types: key -> virtual ID */
	/* member shapes of the source's composites, by slot; 0: not yet */
	uint64_t *vshape;
	size_t vshape_cap;
};

/*
 * struct merge_scratch: what one step uses and leaves empty (one struct
 * walk, one identity check, one reference DFS, one form), kept only for
 * its room.  hypot alone keeps contents between walks: every entry UNSET.
 */
struct merge_scratch {
	uint32_t *hypot;	/* canonical side -> candidate side, or UNSET */
	size_t hypot_len, hypot_cap;
	uint32_t *touched;
	size_t nr_touched, touched_cap;
	struct pair *stack, *fwds, *istack;	/* fwds: FWD ~ STRUCT pairs of a walk */
	size_t nr_stack, stack_cap, nr_fwds, fwds_cap, nr_istack, istack_cap;
	uint32_t *dfs;
	size_t nr_dfs, dfs_cap;
	struct form fa, fb;
};

struct merge {
	struct merge_dest d;
	struct merge_source s;
	struct merge_scratch w;
};

/* ---- kinds ---- */

static inline enum kclass kclass(const struct d2b_type *t)
{
	switch (d2b_kind(t)) {
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
	case D2B_KIND_LOC_PARAM:	/* (as libbpf: equal by its words) */
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
	case D2B_KIND_LOC_PROTO:
		return KC_REF;
	case D2B_KIND_VAR:
	case D2B_KIND_DATASEC:
	case D2B_KIND_LOCSEC:		/* (as libbpf: a unit's sites, kept) */
		return KC_KEEP;
	default:
		return KC_BAD;
	}
}

/* ---- the combined ID space ---- */

static inline bool is_virt(const struct merge *m, uint32_t id)
{
	return id >= m->d.dst_end;
}

static inline uint32_t vslot(const struct merge *m, uint32_t id)
{
	return id - m->d.dst_end;
}

/* A type-ID field of a source type, as a combined ID. */
static inline uint32_t translate(const struct merge *m, uint32_t f)
{
	uint32_t i;

	if (f < m->s.s_start)
		return f;
	i = f - m->s.s_start;
	if (m->s.alias && m->s.alias[i]) {
		f = m->s.alias[i];
		if (f < m->s.s_start)
			return f;
		i = f - m->s.s_start;
	}
	return m->d.dst_end + i;
}

static inline uint32_t resolve(const struct merge *m, uint32_t id)
{
	int i;

	for (i = 0; i < RESOLVE_MAX && is_virt(m, id); i++) {
		uint32_t to = m->s.map[vslot(m, id)];

		if (!to || to == id)
			break;
		id = to;
	}
	return id;
}

static inline bool is_canon(const struct merge *m, uint32_t id)
{
	return !is_virt(m, id) || m->s.map[vslot(m, id)] == id;
}

static inline bool is_unmapped(const struct merge *m, uint32_t id)
{
	return is_virt(m, id) && m->s.map[vslot(m, id)] == 0;
}

static inline const struct d2b_type *type_of(const struct merge *m, uint32_t id)
{
	if (!is_virt(m, id))
		return btf_view_type(&m->d.vd, id);
	return btf_view_type(&m->s.vs, vslot(m, id) + m->s.s_start);
}

/* The destination ID of a combined ID, once the source is appended. */
static inline uint32_t final_id(const struct merge *m, uint32_t id)
{
	id = resolve(m, id);
	return is_virt(m, id) ? m->s.real[vslot(m, id)] : id;
}

static inline bool is_full_enum(const struct d2b_type *t)
{
	return btf_kind_is_enum(d2b_kind(t)) && d2b_vlen(t) > 0;
}

/* Second key: a named full enum is also indexed by name (for forward enums). */
static inline uint64_t enum_name_key(uint32_t name_off)
{
	return hash_combine(0x656e756dULL, name_off);
}

/* Third key: a named struct or union of the destination's own is also
 * indexed by name and kind, once a group is merged into it
 * (merge_index_name(), for the groups' forward declarations). */
static inline uint64_t composite_name_key(uint32_t name_off, unsigned int kind)
{
	return hash_combine(hash_combine(0x636f6d70ULL, name_off), kind);
}

/* Kinds of three words whose third is their one type ID. */
static inline bool is_single_ref(unsigned int kind)
{
	return btf_kind_is_modifier(kind) || kind == D2B_KIND_PTR || kind == D2B_KIND_TYPEDEF;
}

static inline uint32_t vid(const struct merge *m, uint32_t i)
{
	return m->d.dst_end + i;
}

static inline bool form_equal(const struct form *a, const struct form *b)
{
	return a->nw == b->nw && memcmp(a->p, b->p, a->nw * 4) == 0;
}

/* over_kinds[]'s index of kind, or -1 */
static inline int over_slot(unsigned int kind)
{
	switch (kind) {
	case D2B_KIND_PTR:	return 0;
	case D2B_KIND_CONST:	return 1;
	case D2B_KIND_VOLATILE:	return 2;
	case D2B_KIND_RESTRICT:	return 3;
	case D2B_KIND_TYPEDEF:	return OVER_TYPEDEF;
	default:		return -1;
	}
}

/* The slot of a type (or form) that over_index can answer for, or -1:
 * no name (but a TYPEDEF's), and the info word a builder gives such a kind. */
static inline int over_slot_of(const struct d2b_type *t)
{
	int k = over_slot(d2b_kind(t));

	if (k < 0 || (t->name_off && k != OVER_TYPEDEF) ||
	    t->info != d2b_info(d2b_kind(t), false, 0))
		return -1;
	return k;
}

/* merge_form.c */
void over_index_release(struct over_index *o);
/* Add type id (t) if it is of the kinds indexed and the first over its type. */
int over_index_add(struct over_index *o, const struct d2b_type *t, uint32_t id);
/* Room for types referring to IDs up to type, at once (not doubling). */
int over_index_reserve(struct over_index *o, uint32_t type);
/* The first type of slot k over type, or 0. */
static inline uint32_t over_index_find(const struct over_index *o, int k, uint32_t type)
{
	uint64_t v;

	if (__builtin_expect(o->map.frozen != NULL, 0))
		return hmap__find(&o->map, over_key(k, type), &v) ? (uint32_t)v : 0;
	return type < o->cap ? o->first[k][type] : 0;
}

int merge_str_slow(struct merge *m, uint32_t off, uint32_t *ret);
/* The destination offset of source string off (pass 1 of merge.c's
 * theory); its commonest case inline: a string shared by offset. */
static inline int merge_str(struct merge *m, uint32_t off, uint32_t *ret)
{
	if (off < m->s.str_same_below) {
		*ret = off;
		return 0;
	}
	return merge_str_slow(m, off, ret);
}
int merge_name_of(struct merge *m, uint32_t id, uint32_t *ret);
int merge_form_fill(struct merge *m, struct form *f, uint32_t id, enum form_mode mode);
int merge_type_key(struct merge *m, struct form *f, uint32_t id, uint64_t *ret);
/* Index a canonical type (a destination ID in m->d.index, a virtual one in local). */
int merge_index_type(struct merge *m, struct hmap *h, uint32_t id);
/* Index destination type id by composite_name_key(), if a named composite
 * (merge_index_type() does, in m->d.index, where m->d.index_names). */
int merge_index_name(struct merge *m, uint32_t id);
/* The same with its key made (from t, its form): in h, the enum name key
 * of a full enum too, and in over if not NULL. */
int merge_index_keyed(struct hmap *h, struct over_index *over, const struct d2b_type *t,
		      uint32_t id, uint64_t key);
/* Source type i becomes canonical: it maps to itself and is indexed in
 * local under key, its merge_type_key() its caller made already (form: its
 * form then, or for a struct or union the type itself). */
int merge_make_canonical(struct merge *m, uint32_t i, const struct d2b_type *form, uint64_t key);

/* merge_walk.c */
long merge_fwd_res_find(const struct merge *m, uint32_t name_off, uint32_t kind);
/* A new entry (name and kind not resolved yet) */
int merge_fwd_res_add(struct merge *m, const struct fwd_res *r);
/* Index entry j of m->d.res (merge_fwd_res_add() does, for a new one). */
int merge_fwd_res_index(struct merge *m, size_t j);
void merge_fwd_res_finalize(struct merge *m);
int merge_pass_composites(struct merge *m);

/* merge.c */
/*
 * Index the base's types 1 .. start - 1 (split BTF) in base and
 * base_over, as merge_index_type() would one by one.
 */
int merge_index_base(struct merge *m, struct hmap *base, struct over_index *base_over,
		     uint32_t start);
/*
 * m merges into dst.  base: the index of dst's base's types (split BTF),
 * which dst's merges share; filled here if fill_base (the first merge over
 * that base).
 */
int merge_init(struct merge *m, struct d2b_btf *dst, bool force_collisions, bool append_only,
	       struct hmap *base, struct over_index *base_over, struct base_buckets *bb,
	       bool fill_base);
void merge_release(struct merge *m);
/*
 * Merge one source into the destination, in two halves: merge_map() maps
 * each source type (passes 1 to 4), merge_append() appends the canonical
 * ones and indexes them (pass 5), map_out[s] receiving each source type's
 * destination ID; between the two, merge_abandon() drops the source.
 * kc: the source's kclass per type (dedup__check_unit()), or NULL.
 * merge_source() does both halves.
 */
int merge_map(struct merge *m, const struct d2b_btf *src, const uint32_t *alias, const uint8_t *kc);
int merge_append(struct merge *m, uint32_t *map_out);
int merge_abandon(struct merge *m);
int merge_source(struct merge *m, const struct d2b_btf *src, const uint32_t *alias,
		 const uint8_t *kc, uint32_t *map_out);

#endif
