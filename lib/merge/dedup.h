/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct dedup: merge the BTF of compile units, one at a time, into one
 * deduplicated BTF (the theory: merge.c, one source merged; dedup.c,
 * units, groups, finish).
 *
 *	dedup__new(out, &opts, &d);          out: empty, or split over a base
 *	for each unit, in a fixed order:
 *		dedup__add_unit(d, unit, map);   unit: standalone BTF (IDs from 1,
 *						  own strings or over opts.names),
 *						  or split over out's base (without
 *						  opts.names); no VAR/DATASEC,
 *						  out's pointer size
 *	dedup__finish(d, &final_map);         FWD resolution, final merge,
 *					      string compaction
 *
 * Units are merged into an internal "work" BTF (dedup__btf()); out receives
 * the final, compact types only at dedup__finish().
 * Determinism: the result depends only on the sequence of units.
 */
#ifndef D2B_DEDUP_H
#define D2B_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

#include "dwarf2btf.h"

struct dedup;

struct dedup_opts {
	bool force_collisions;	/* test switch: every hash is 0 */
	bool append_only;	/* no merging: every unit type is appended (debugging) */
	/*
	 * Units over this string-only base (btf_new_names()), or NULL: the
	 * work BTF is over it too (out must have no base), so the names units
	 * share are never copied or looked up until dedup__finish().
	 */
	const struct d2b_btf *names;
	/*
	 * Split BTF: leave the index of out's base types to
	 * dedup__index_base(), which the caller may run on another thread
	 * (while units are walked); else dedup__new() makes it.
	 */
	bool defer_base_index;
};

/* The steps of a merge (merge.c's passes), timed for --stats. */
enum dedup_step {
	DEDUP_STEP_SETUP,	/* side arrays, kinds */
	DEDUP_STEP_PRIMS,	/* pass 2 */
	DEDUP_STEP_COMPOSITES,	/* pass 3: struct walks */
	DEDUP_STEP_REFS,	/* pass 4 */
	DEDUP_STEP_APPEND,	/* pass 5, and the caller's map */
	DEDUP_STEP_INDEX,	/* the appended types indexed */
	DEDUP_NR_STEPS
};

/* Per-kind counters and per-step times, for --stats */
struct dedup_stats {
	uint64_t in[D2B_KIND_LAST + 1];	/* unit types seen */
	uint64_t out[D2B_KIND_LAST + 1];	/* types in out after finish */
	double unit_s[DEDUP_NR_STEPS];	/* seconds, over every unit's merge */
	double group_s[DEDUP_NR_STEPS];	/* seconds, over dedup__add_group()'s */
	double final_s[DEDUP_NR_STEPS];	/* seconds, in dedup__finish()'s merge */
};

/* out must have no types of its own; it may be split over a base. */
int dedup__new(struct d2b_btf *out, const struct dedup_opts *opts, struct dedup **ret);
void dedup__free(struct dedup *d);

/*
 * Index out's base types, if dedup__new() left that to it (opts.
 * defer_base_index): on any one thread, before the first unit is added;
 * d is not otherwise touched meanwhile (dedup__check_unit() excepted).
 * A unit added before it (or a second call) does it first (or nothing).
 */
int dedup__index_base(struct dedup *d);

/* The work BTF the IDs of dedup__add_unit()'s map refer to, until finish. */
const struct d2b_btf *dedup__btf(const struct dedup *d);

/*
 * Merge unit.  map, if not NULL, must hold d2b_btf__end_id(unit) entries;
 * it receives each unit ID's ID in the work BTF (map[0] = 0), which the
 * final map of dedup__finish() translates to out.  After an error, only
 * dedup__free() is valid.
 */
int dedup__add_unit(struct dedup *d, const struct d2b_btf *unit, uint32_t *map);

/*
 * What dedup__add_unit() checks of a unit before merging it (its base,
 * pointer size, kinds and IDs), and how the merge is to take each of its
 * types (kc), done ahead of it: on a walker's thread,
 * while this one merges other units (d is only read; out's model and base
 * do not change until dedup__finish()).  0 or -EINVAL, kept in *ret.
 */
struct dedup_unit_check {
	uint64_t in[D2B_KIND_LAST + 1];	/* its types per kind */
	int err;
	uint8_t *kc;		/* per type: how the merge takes it (merge.c) */
	size_t kc_cap;
};

/* *ret zeroed before its first check, reused for the next units (its
 * buffer is kept), and released by dedup_unit_check__release(). */
int dedup__check_unit(const struct dedup *d, const struct d2b_btf *unit,
		      struct dedup_unit_check *ret);
void dedup_unit_check__release(struct dedup_unit_check *check);
/* dedup__add_unit() of a unit dedup__check_unit() checked into *check. */
int dedup__add_checked_unit(struct dedup *d, const struct d2b_btf *unit,
			    const struct dedup_unit_check *check, uint32_t *map);

/*
 * Groups: consecutive units merged on their own, then into d whole, in
 * order.  A group takes units as d does (dedup__check_unit() of d checks
 * them for it) and is never finished; different groups may be merged on
 * different threads at once (d is only read).  Units over opts.names
 * only (no split BTF).
 *
 * dedup__add_group() merges group g's types into d; map (as
 * dedup__add_unit()'s, for the IDs of g's work BTF, dedup__btf(g)) gets
 * their IDs in d's work BTF.  Free g with dedup__free() after it.  The
 * result is that of adding g's units to d one by one, except where the
 * group's walks paired a forward declaration with a definition and d
 * holds another one of its name (or resolved it otherwise):
 * dedup__add_group() then fails with -EAGAIN and leaves d as it was, and
 * g's units are to be merged into d one by one instead (theory in
 * dedup.c).
 */
int dedup__new_group(const struct dedup *d, struct dedup **ret);
int dedup__add_group(struct dedup *d, struct dedup *g, uint32_t *map);

/*
 * Resolve forward declarations (to the definition a graph walk paired them
 * with, else to the one STRUCT/UNION of that name when there is exactly
 * one), merge the types that became equal and
 * write the result, compact and with only referenced strings, into out.
 * *final_map (owned by d; final_map may be NULL if unwanted) translates a
 * work ID (from add_unit's map) to its ID in out.  Base types (split BTF)
 * never change.
 */
int dedup__finish(struct dedup *d, const uint32_t **final_map);

void dedup__stats(const struct dedup *d, struct dedup_stats *ret);

#endif
