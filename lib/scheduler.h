/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who walks which unit when, and in what order the driver merges them:
 * the worker threads, the ring of walked units, the groups (theory in
 * scheduler.c).  lib/convert.c, the driver, says what merging means through
 * struct scheduler_ops; the scheduler calls it on the calling thread only,
 * strictly in unit order, so the output does not depend on the threads.
 * Not part of the library's interface.
 */
#ifndef D2B_SCHEDULER_H
#define D2B_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf2btf.h"

struct dedup;
struct diag;
struct dedup_unit_check;
struct die_reader;
struct dwarf_file;
struct pages_behind;
struct unit;
struct unit_func_filter;
struct unit_ref;

struct scheduler;

/* What the driver does with walked units, in unit order (on scheduler__run()'s
 * thread).  A negative return stops the round with that error. */
struct scheduler_ops {
	/*
	 * Unit u, walked (walk_err its walk's: 0 or a negative errno), is
	 * next: merge it into the output.  check: the merge's check of it
	 * (dedup__check_unit()) made by the walker, or NULL.
	 */
	int (*merge_unit)(void *arg, struct unit *u, int walk_err,
			  const struct dedup_unit_check *check);
	/*
	 * The units of group gd (dedup__new_group()) are merged into it:
	 * merge it into the output (dedup__add_group()), its IDs through
	 * *map, which the driver keeps.  -EAGAIN: the output did not take it,
	 * and its units are merged one by one (nothing said).  first: the
	 * group's first unit, to name in a message.
	 */
	int (*merge_group)(void *arg, struct dedup *gd, const struct unit *first,
			   const uint32_t **map);
	/*
	 * Then each unit of the group, in order: u (its BTF gone) with err
	 * (its walk's, or its merge's into the group if merge_failed).  map:
	 * its group's IDs into the output's, NULL if the group was not merged
	 * (a unit of it failed); strs: its variables' strings (their name and
	 * tag offsets are into strs).
	 */
	int (*group_unit)(void *arg, struct unit *u, int err, bool merge_failed,
			  const uint32_t *map, const char *strs);
};

struct scheduler_input {
	const struct d2b_opts *opts;		/* jobs, no_merge_groups, the walk's */
	const struct unit_func_filter *filter;	/* or NULL */
	struct dwarf_file *df;
	const struct die_reader *r, *alt;	/* the file's, the supplementary file's */
	const struct d2b_btf *names;	/* units walked over these names, or NULL: */
	const struct d2b_btf *base;	/* ... over this base (split BTF), or NULL */
	struct dedup *dd;		/* the merge: units checked for it, groups of it */
	struct pages_behind *behind;	/* r's .debug_info, dropped behind the merges */
	const struct scheduler_ops *ops;
	void *arg;			/* ops' */
	struct diag *diag;		/* notes, said on scheduler__run()'s thread */
};

/* What scheduler__run()s did, for --stats */
struct scheduler_stats {
	double t_walk;		/* walking, or waiting for walkers */
	double t_merge;		/* in ops' merges */
	size_t grouped;		/* groups the units were merged in, or 0 */
	bool disagreed;		/* a group was not taken: from then on, one by one */
	size_t resume_group;	/* ... the first such group */
	size_t nr_imported;	/* partial units walked because units imported them */
};

/* in is copied; it and what it points to outlive the scheduler. */
int scheduler__new(const struct scheduler_input *in, struct scheduler **ret);
void scheduler__free(struct scheduler *s);
/*
 * Walk units[0 .. n), the file's units in file order, on opts->jobs
 * threads and hand them to ops, in order; then, round by round, the
 * partial units the last round's units imported that no unit imported
 * before (in the order first met), until a round imports none.  Only the
 * first round is grouped, and only its pages are dropped behind.
 */
int scheduler__run(struct scheduler *s, const struct unit_ref *units, size_t n);
void scheduler__stats(const struct scheduler *s, struct scheduler_stats *ret);

#endif
