// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Scheduling the walks: which thread walks which unit, and when the driver
 * (lib/convert.c) merges it.
 *
 * Units are independent, so they are walked on jobs threads; they are
 * merged strictly in unit order (struct scheduler_ops, called on the thread
 * of scheduler__run() only), so the output is independent of the number of
 * threads and of their timing.
 *
 * One by one: workers (jobs - 1) claim the next unit number, walk it into
 * a slot of a ring of 4 * jobs + 8 slots (and make the merge's check of
 * it, dedup__check_unit(), there too), and never run further ahead than
 * the ring, so memory stays bounded by a few units whatever the file; the
 * calling thread merges the slots in order and, when the next is not
 * walked yet, claims and walks a unit itself rather than wait.  Wake-ups
 * are targeted, never a broadcast but to stop: a merged unit frees one
 * slot, so it wakes one idle worker (room); a walked unit wakes the
 * merging thread only if it is the one it waits for (walked).  With one
 * condition for all, each merge would wake every idle worker to find one
 * slot, and all but one would go back to sleep: context switches would
 * grow with the threads times the units.  Each thread has a unit_walker of
 * its own over the file's DIE reader, which is read-only once made.
 *
 * In groups: below ("Merging in groups").
 *
 * Rounds: the file's units first; then the partial units (dwz) that the
 * units merged import and no unit imported before, in the order first
 * met, as a round of their own; and so on until a round imports none
 * (scheduler__run()).  Each round is walked and merged by one strategy:
 * walk_and_merge_serial() on one thread, walk_and_merge_ring() on more,
 * walk_and_merge_groups() where groups pay (the rest of a round whose
 * groups disagreed one by one).
 *
 * Pages: .debug_info is read once, unit after unit, and the pages of the
 * units merged are dropped behind them (drop_behind()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"
#include "base/clock.h"
#include "base/diag.h"
#include "base/hmap.h"
#include "base/pages.h"
#include "base/vec.h"
#include "btf/btf.h"
#include "dwarf/die_reader.h"
#include "merge/dedup.h"
#include "unit/unit.h"

struct slot {
	struct unit u;
	int err;
	bool done;
	struct dedup_unit_check check;	/* the merge's check, made by the walker */
};

/* A unit of a round merged in groups (walk_and_merge_groups()) */
struct gunit {
	struct unit u;		/* its BTF freed once merged into its group */
	struct dedup_unit_check check;
	int err;		/* the walk's, or the group merge's */
	bool merge_failed;	/* err is the group merge's */
	bool walked;
	uint32_t group;
	char *strs;		/* its variables' strings, after its BTF is gone */
};

struct group {
	struct dedup *dd;	/* dedup__new_group() */
	size_t first, end;	/* its units */
	size_t claimed;		/* units first .. first + claimed are claimed */
	size_t next;		/* the next unit to merge into dd */
	bool busy;		/* a thread is merging its units */
	struct pages_behind behind;	/* its part of .debug_info */
};

/*
 * The rounds of units: the file's compile units, then the partial units
 * they import, then those these import, ... until a round imports none
 * that an earlier unit did.
 */
struct imports {
	struct hmap met;		/* partial units met: hash -> index in seen */
	struct unit_ref *seen;
	size_t nr_seen, seen_cap;
	struct unit_ref *next;		/* the next round's, in the order first met */
	size_t nr_next, next_cap;
};

struct scheduler {
	struct scheduler_input in;
	struct imports imports;
	/* the round's units */
	const struct unit_ref *units;
	size_t nr_units;
	bool first_round;

	/* threads */
	struct slot *slots;
	size_t nr_slots;
	size_t next_cu;		/* next unit a worker claims */
	size_t merged;		/* units merged so far */
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t room;	/* workers wait here for a free slot */
	pthread_cond_t walked;	/* the merging thread waits here for slot merged */
	/* a round merged in groups */
	struct gunit *gu;
	struct group *groups;
	size_t nr_groups;
	size_t cur_group;	/* the group the merging thread waits for */
	size_t window;		/* groups claimed from: cur_group .. + window */
	size_t in_flight;	/* units claimed, not merged into their group */
	size_t grouped;		/* groups the units were merged in, or 0 */
	bool disagreed;		/* a group was not taken: from then on, one by one */
	size_t resume;		/* the first unit merged one by one (or 0) */
	size_t resume_group;	/* ... and its group */

	/* statistics */
	double t_walk, t_merge;
};

/* The partial units merged unit u imports that no unit imported before:
 * the next round walks them. */
static int imports_add(struct imports *im, const struct unit *u)
{
	size_t i;
	int err;

	for (i = 0; !u->skipped && i < u->nr_imports; i++) {
		const struct unit_ref *ref = &u->imports[i];
		uint64_t key = hash_mix64(ref->off ^ (uint64_t)(uintptr_t)ref->r), v;
		struct hmap_iter it;
		bool found = false;

		hmap__iter_init(&im->met, key, &it);
		while (!found && hmap__next(&im->met, &it, &v))
			found = im->seen[v].r == ref->r && im->seen[v].off == ref->off;
		if (found)
			continue;
		err = VEC_RESERVE(im->seen, im->seen_cap, im->nr_seen, 1);
		if (!err)
			err = VEC_RESERVE(im->next, im->next_cap, im->nr_next, 1);
		if (!err)
			err = hmap__add(&im->met, key, im->nr_seen);
		if (err)
			return err;
		im->seen[im->nr_seen++] = *ref;
		im->next[im->nr_next++] = *ref;
	}
	return 0;
}

struct worker {
	struct scheduler *s;
	struct unit_walker *uw;
	pthread_t thread;
	uint32_t *map;		/* a unit's map into its group */
	size_t map_cap;
};

/*
 * Claim the next unit, if the ring has room for it, and walk it into its
 * slot.  Called and returns with s->lock held; false if nothing was
 * claimable.
 */
static bool walk_next(struct scheduler *s, struct unit_walker *uw)
{
	struct slot *sl;
	size_t i;
	int err;

	if (s->stop || s->next_cu >= s->nr_units || s->next_cu >= s->merged + s->nr_slots)
		return false;
	i = s->next_cu++;
	pthread_mutex_unlock(&s->lock);

	sl = &s->slots[i % s->nr_slots];
	err = unit__walk(&sl->u, s->in.opts, s->in.filter, uw, &s->units[i]);
	/* (the dedup is only read: the merge does not change what it checks) */
	if (!err && !sl->u.skipped)
		dedup__check_unit(s->in.dd, sl->u.btf, &sl->check);

	pthread_mutex_lock(&s->lock);
	sl->err = err;
	sl->done = true;
	if (i == s->merged)	/* the unit the merging thread waits for */
		pthread_cond_signal(&s->walked);
	return true;
}

static void *worker(void *arg)
{
	struct worker *wk = arg;
	struct scheduler *s = wk->s;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && s->next_cu < s->nr_units) {
		if (!walk_next(s, wk->uw))
			pthread_cond_wait(&s->room, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Start workers[1 .. jobs) on run: how many started. */
static unsigned int threads_start(struct scheduler *s, struct worker *workers, unsigned int jobs,
				  void *(*run)(void *))
{
	unsigned int t;

	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->room, NULL);
	pthread_cond_init(&s->walked, NULL);
	for (t = 1; t < jobs; t++) {
		if (pthread_create(&workers[t].thread, NULL, run, &workers[t]) != 0)
			break;
	}
	return t - 1;
}

/* Stop the started workers and wait for them. */
static void threads_stop(struct scheduler *s, struct worker *workers, unsigned int started)
{
	unsigned int t;

	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->room);
	pthread_mutex_unlock(&s->lock);
	for (t = 1; t <= started; t++)
		pthread_join(workers[t].thread, NULL);
	pthread_cond_destroy(&s->room);
	pthread_cond_destroy(&s->walked);
	pthread_mutex_destroy(&s->lock);
}

/* pages dropped stay this far behind the units merged: a fault maps the
 * cached pages around it too (the kernel's fault-around), pages of units
 * already merged included, so a drop right at the last merged unit would
 * leave some behind, mapped again */
enum { DROP_LAG = 4 << 20 };

/*
 * Unit i is merged, and every unit before it: drop the pages of
 * .debug_info below it, DROP_LAG behind (s->in.behind: if they are clean
 * pages of a file mapping).  At the end (i = nr_units), all of them.  Only
 * the first round walks the file's units in file order; a split unit is in
 * another file.  (A page dropped and read again, by a later round's
 * partial unit, comes back from the page cache.)
 */
static void drop_behind(struct scheduler *s, size_t i)
{
	uint64_t to;

	if (!s->first_round)
		return;
	if (i >= s->nr_units) {
		pages_behind__all(s->in.behind);
		return;
	}
	if (s->units[i].r != s->in.r)
		return;
	to = s->units[i].off;
	pages_behind__reach(s->in.behind, to > DROP_LAG ? to - DROP_LAG : 0);
}

/*
 * Merging in groups
 * =================
 *
 * One thread merging every unit in order caps the threads' gain: on a
 * kernel the merge is a large part of the work.  A round of at least
 * 2 * GROUP_UNITS units over names (not split BTF) is cut into groups of
 * consecutive units, as many as GROUP_UNITS goes into the number of units
 * but at most MAX_GROUPS, as even as can be: by the number of units
 * alone.  Each group's units are merged, in order, into a group of
 * their own (dedup__new_group()) by whichever thread has walked the next
 * one, several groups at once; the merging thread (scheduler__run()'s
 * caller) has the driver merge each whole group into the output, in order
 * (scheduler_ops.merge_group: dedup__add_group()), and then take its
 * units' diagnostics, functions and variables, in order (group_unit).
 * The groups are the same for every number of threads, so the output is
 * too; it is that of merging the units one by one.  Where a group
 * resolved a forward declaration otherwise than the output did
 * (dedup__add_group() says -EAGAIN and takes nothing), the units from
 * that group's first on are walked again and merged one by one, as a
 * round that is not grouped is: the names a group disagrees on are met
 * again by the groups after it, and one by one the units are walked on
 * every thread.  --no-merge-groups (d2b_opts.no_merge_groups) merges one
 * by one from the start.
 *
 * Only on GROUP_MIN_JOBS threads or more: the groups' types are merged
 * twice (into their group, then the group into the output), which pays
 * only where the one merging thread would otherwise hold the walkers back.
 * On one thread nothing waits for the merge, and on two the walking thread
 * is the slower one, so there the second merge of each type is all cost;
 * from about four on the merging thread falls behind, and the groups pay
 * (the figures: tests/bench/README).
 *
 * Threads claim units from the groups in a window (the group the merging
 * thread waits for and the next ones, as many as there are threads), the
 * group with the fewest claimed first, so that every thread has a group to
 * merge into; claimed units not yet merged into their group are at most
 * nr_slots, which bounds memory as the ring does.  A unit merged into its
 * group gives its BTF back at once: what the driver needs of it later
 * (diagnostics, functions, variables with their strings, imports) is
 * small.  Each group drops the pages of its part of .debug_info behind
 * its merges.
 */
enum {
	GROUP_UNITS = 128,	/* a group's fewest units */
	MAX_GROUPS = 8,		/* each group's types are merged again, serially */
	GROUP_MIN_JOBS = 4,	/* fewer threads: one merging thread keeps up */
};

static bool merged_in_groups(const struct scheduler *s, unsigned int jobs)
{
	return s->in.names && jobs >= GROUP_MIN_JOBS && s->nr_units >= 2 * GROUP_UNITS &&
	       s->first_round && !s->in.opts->no_merge_groups;
}

/* The next unit to claim, or SIZE_MAX (s->lock held). */
static size_t group_claim(struct scheduler *s)
{
	size_t g, best = SIZE_MAX, end = s->cur_group + s->window;

	if (s->stop || s->in_flight >= s->nr_slots)
		return SIZE_MAX;
	if (end > s->nr_groups)
		end = s->nr_groups;
	for (g = s->cur_group; g < end; g++) {
		const struct group *gr = &s->groups[g];

		if (gr->first + gr->claimed < gr->end &&
		    (best == SIZE_MAX || gr->claimed < s->groups[best].claimed))
			best = g;
	}
	if (best == SIZE_MAX)
		return SIZE_MAX;
	s->in_flight++;
	return s->groups[best].first + s->groups[best].claimed++;
}

/*
 * What unit_records() will need of a unit merged into its group, once its
 * BTF is gone: type IDs through map (the group's), and the variables'
 * names and tags copied into gu->strs.
 */
static int keep_records(struct gunit *gu, const uint32_t *map)
{
	struct unit *w = &gu->u;
	size_t i, len = 0;
	char *p;

	for (i = 0; i < w->nr_funcs; i++)
		w->funcs[i].id = map[w->funcs[i].id];
	for (i = 0; i < w->nr_vars; i++)
		len += strlen(d2b_btf__str(w->btf, w->vars[i].name_off)) + 1;
	for (i = 0; i < w->nr_tag_offs; i++)
		len += strlen(d2b_btf__str(w->btf, w->tag_offs[i])) + 1;
	gu->strs = p = malloc(len + 1);
	if (!p)
		return -ENOMEM;
	for (i = 0; i < w->nr_vars; i++) {
		const char *str = d2b_btf__str(w->btf, w->vars[i].name_off);

		w->vars[i].type = map[w->vars[i].type];
		w->vars[i].name_off = p - gu->strs;
		p = stpcpy(p, str) + 1;
	}
	for (i = 0; i < w->nr_tag_offs; i++) {
		const char *str = d2b_btf__str(w->btf, w->tag_offs[i]);

		w->tag_offs[i] = p - gu->strs;
		p = stpcpy(p, str) + 1;
	}
	return 0;
}

/* Merge walked unit gu into its group g; its BTF is given back either way. */
static void group_take(struct worker *wk, struct group *g, struct gunit *gu)
{
	struct unit *w = &gu->u;
	int err = 0;

	if (!gu->err && !w->skipped) {
		err = VEC_RESERVE(wk->map, wk->map_cap, 0, d2b_btf__end_id(w->btf));
		if (!err)
			err = dedup__add_checked_unit(g->dd, w->btf, &gu->check, wk->map);
		if (!err)
			err = keep_records(gu, wk->map);
		if (err) {
			gu->err = err;
			gu->merge_failed = true;
		}
	}
	d2b_btf__free(w->btf);
	w->btf = NULL;
	dedup_unit_check__release(&gu->check);
}

/* Group g's units [first, i) are merged: drop their pages, DROP_LAG behind. */
static void group_drop_behind(struct scheduler *s, struct group *g, size_t i)
{
	uint64_t to, lag;

	if (i >= g->end) {
		pages_behind__all(&g->behind);
		return;
	}
	to = s->units[i].off - s->units[g->first].off;
	lag = g->behind.size / 16 < DROP_LAG ? g->behind.size / 16 : DROP_LAG;
	pages_behind__reach(&g->behind, to > lag ? to - lag : 0);
}

/*
 * Merge group g's walked units into it, in order, unless another thread
 * is at it; called and returns with s->lock held.
 */
static void group_merge_walked(struct scheduler *s, struct worker *wk, struct group *g)
{
	if (g->busy)
		return;
	g->busy = true;
	while (!s->stop && g->next < g->end && s->gu[g->next].walked) {
		size_t i = g->next;

		pthread_mutex_unlock(&s->lock);
		group_take(wk, g, &s->gu[i]);
		group_drop_behind(s, g, i + 1);
		pthread_mutex_lock(&s->lock);
		g->next++;
		s->in_flight--;
		pthread_cond_signal(&s->room);	/* one unit's room, one worker */
	}
	g->busy = false;
	if (g->next == g->end && g == &s->groups[s->cur_group])
		pthread_cond_signal(&s->walked);
}

/* Claim a unit, walk it and merge what its group can take; called and
 * returns with s->lock held.  False if nothing was claimable. */
static bool group_walk_next(struct scheduler *s, struct worker *wk)
{
	size_t i = group_claim(s);
	struct gunit *gu;

	if (i == SIZE_MAX)
		return false;
	pthread_mutex_unlock(&s->lock);
	gu = &s->gu[i];
	gu->err = unit__walk(&gu->u, s->in.opts, s->in.filter, wk->uw, &s->units[i]);
	/* (the dedup is only read: merges do not change what it checks) */
	if (!gu->err && !gu->u.skipped)
		dedup__check_unit(s->in.dd, gu->u.btf, &gu->check);
	pthread_mutex_lock(&s->lock);
	gu->walked = true;
	group_merge_walked(s, wk, &s->groups[gu->group]);
	return true;
}

static void *group_worker(void *arg)
{
	struct worker *wk = arg;
	struct scheduler *s = wk->s;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && s->cur_group < s->nr_groups) {
		if (!group_walk_next(s, wk))
			pthread_cond_wait(&s->room, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/*
 * Group g is merged: into the output with it, then its units' records, in
 * order.  A unit that failed stops it, after the diagnostics of those
 * before it, as merging them one by one would.  -EAGAIN, s->disagreed:
 * the output did not take the group (walk_and_merge_groups()), nothing is
 * said.
 */
static int group_done(struct scheduler *s, struct group *g)
{
	const uint32_t *map = NULL;
	size_t i, failed;
	bool whole;
	int err = 0;

	for (failed = g->first; failed < g->end; failed++) {
		if (s->gu[failed].err)
			break;
	}
	whole = failed == g->end;	/* (else the group is not merged) */
	if (whole) {
		err = s->in.ops->merge_group(s->in.arg, g->dd, &s->gu[g->first].u, &map);
		if (err == -EAGAIN) {
			s->disagreed = true;
			return err;
		}
		if (err)
			return err;
	}
	for (i = g->first; i < g->end && !err; i++) {
		struct gunit *gu = &s->gu[i];

		err = s->in.ops->group_unit(s->in.arg, &gu->u, gu->err, gu->merge_failed,
					    whole ? map : NULL, gu->strs);
		if (!err && whole)
			err = imports_add(&s->imports, &gu->u);
		unit__release(&gu->u);
		free(gu->strs);
		gu->strs = NULL;
	}
	dedup__free(g->dd);
	g->dd = NULL;
	return err;
}

/* The groups of this round, and their units' records. */
static int groups_init(struct scheduler *s, size_t window)
{
	size_t ng = s->nr_units / GROUP_UNITS, g, i;
	int err = 0;

	if (ng > MAX_GROUPS)
		ng = MAX_GROUPS;
	s->gu = calloc(s->nr_units, sizeof(*s->gu));
	s->groups = calloc(ng, sizeof(*s->groups));
	if (!s->gu || !s->groups)
		return -ENOMEM;
	s->nr_groups = ng;
	s->cur_group = 0;
	s->window = window;
	s->in_flight = 0;
	for (g = 0; g < ng && !err; g++) {
		struct group *gr = &s->groups[g];
		size_t end_off;
		bool here = s->first_round && s->in.behind->base;

		gr->first = g * s->nr_units / ng;
		gr->end = (g + 1) * s->nr_units / ng;
		gr->next = gr->first;
		for (i = gr->first; i < gr->end; i++) {
			s->gu[i].group = (uint32_t)g;
			here = here && s->units[i].r == s->in.r;
		}
		end_off = gr->end < s->nr_units && s->units[gr->end].r == s->in.r ?
			  s->units[gr->end].off : s->in.behind->size;
		if (here && end_off > s->units[gr->first].off && end_off <= s->in.behind->size) {
			size_t len = end_off - s->units[gr->first].off;

			/* a batch and a lag of their own in each group's part,
			 * many of which are read at once */
			pages_behind__init(&gr->behind, s->in.behind->base + s->units[gr->first].off, len,
					   s->in.behind->batch < len / 8 ? s->in.behind->batch : len / 8);
		}
		else
			pages_behind__init(&gr->behind, NULL, 0, 0);
		err = dedup__new_group(s->in.dd, &gr->dd);
	}
	return err;
}

static void groups_release(struct scheduler *s)
{
	size_t i;

	for (i = 0; s->gu && i < s->nr_units; i++) {
		unit__release(&s->gu[i].u);
		dedup_unit_check__release(&s->gu[i].check);
		free(s->gu[i].strs);
	}
	for (i = 0; s->groups && i < s->nr_groups; i++)
		dedup__free(s->groups[i].dd);
	free(s->gu);
	free(s->groups);
	s->gu = NULL;
	s->groups = NULL;
	s->nr_groups = 0;
}

/* walk_and_merge() for a round merged in groups: workers[0] is this
 * thread's.  Where a group was not taken (s->disagreed), the units from
 * s->resume on are left to be merged one by one. */
static int walk_and_merge_groups(struct scheduler *s, struct worker *workers, unsigned int jobs)
{
	unsigned int started;
	size_t g;
	int err;

	s->nr_slots = 4 * jobs + 8;
	err = groups_init(s, jobs);
	if (err) {
		groups_release(s);
		return err;
	}
	started = threads_start(s, workers, jobs, group_worker);
	s->grouped = s->nr_groups;
	for (g = 0; g < s->nr_groups && !err; g++) {
		struct group *gr = &s->groups[g];
		double t0 = clock_now();

		pthread_mutex_lock(&s->lock);
		s->cur_group = g;
		pthread_cond_broadcast(&s->room);	/* the window moved */
		while (!s->stop && gr->next < gr->end) {
			if (!group_walk_next(s, &workers[0]))
				pthread_cond_wait(&s->walked, &s->lock);
		}
		pthread_mutex_unlock(&s->lock);
		s->t_walk += clock_now() - t0;	/* walking, merging into groups or waiting */

		t0 = clock_now();
		err = group_done(s, gr);
		s->t_merge += clock_now() - t0;
	}
	if (s->disagreed) {
		g--;
		diag__say(s->in.diag, D2B_INFO,
			  "group %zu of %zu of the units resolved a forward declaration to another "
			  "definition than the groups before it: merging the units from there on "
			  "one by one", g + 1, s->nr_groups);
		s->resume = s->groups[g].first;
		s->resume_group = g;
		err = 0;
	}
	threads_stop(s, workers, started);
	groups_release(s);
	drop_behind(s, s->nr_units);
	return err;
}

/* Each thread's walker over the file's DIE reader, and its scratch. */
static int workers_new(struct scheduler *s, unsigned int jobs, struct worker **ret)
{
	struct worker *workers = calloc(jobs, sizeof(*workers));
	unsigned int t;
	int err = 0;

	*ret = workers;
	if (!workers)
		return -ENOMEM;
	for (t = 0; t < jobs && !err; t++) {
		workers[t].s = s;
		err = unit_walker__new(s->in.df, s->in.r, s->in.alt, &workers[t].uw);
		if (!err && s->in.names)
			err = unit_walker__set_names(workers[t].uw, s->in.names,
						     die_reader__section(s->in.r, DIE_SEC_STR),
						     die_reader__section_size(s->in.r, DIE_SEC_STR));
		else if (!err)
			unit_walker__set_base(workers[t].uw, s->in.base);
	}
	return err;
}

static void workers_free(struct worker *workers, unsigned int jobs)
{
	unsigned int t;

	for (t = 0; workers && t < jobs; t++) {
		unit_walker__free(workers[t].uw);
		free(workers[t].map);
	}
	free(workers);
}

/* walk_and_merge() on one thread: walk a unit, merge it, and so on. */
static int walk_and_merge_serial(struct scheduler *s, struct worker *wk)
{
	struct unit u;
	size_t i;
	int err = 0;

	for (i = s->resume; i < s->nr_units && !err; i++) {
		double t0 = clock_now();

		err = unit__walk(&u, s->in.opts, s->in.filter, wk->uw, &s->units[i]);
		s->t_walk += clock_now() - t0;
		t0 = clock_now();
		err = s->in.ops->merge_unit(s->in.arg, &u, err, NULL);
		if (!err)
			err = imports_add(&s->imports, &u);
		s->t_merge += clock_now() - t0;
		unit__release(&u);
		drop_behind(s, i + 1);
	}
	return err;
}

/* The ring's slot of unit i, walked: merge it and give the slot back. */
static int ring_merge(struct scheduler *s, struct slot *sl, size_t i)
{
	double t0 = clock_now();
	int err = s->in.ops->merge_unit(s->in.arg, &sl->u, sl->err, &sl->check);

	if (!err)
		err = imports_add(&s->imports, &sl->u);
	s->t_merge += clock_now() - t0;
	unit__release(&sl->u);
	drop_behind(s, i + 1);

	pthread_mutex_lock(&s->lock);
	sl->done = false;
	s->merged++;
	if (err) {
		s->stop = true;
		pthread_cond_broadcast(&s->room);
	} else {
		pthread_cond_signal(&s->room);	/* one slot, one worker */
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* walk_and_merge() on jobs threads in all, through the ring: this one
 * merges, and walks while it waits (workers[0] is its). */
static int walk_and_merge_ring(struct scheduler *s, struct worker *workers, unsigned int jobs)
{
	unsigned int started;
	size_t i;
	int err = 0;

	s->nr_slots = 4 * jobs + 8;
	s->slots = calloc(s->nr_slots, sizeof(*s->slots));
	if (!s->slots)
		return -ENOMEM;
	started = threads_start(s, workers, jobs, worker);
	for (i = s->resume; i < s->nr_units && !err; i++) {
		struct slot *sl = &s->slots[i % s->nr_slots];
		double t0 = clock_now();

		pthread_mutex_lock(&s->lock);
		while (!sl->done) {
			if (!walk_next(s, workers[0].uw))
				pthread_cond_wait(&s->walked, &s->lock);
		}
		pthread_mutex_unlock(&s->lock);
		s->t_walk += clock_now() - t0;	/* time spent walking or waiting for walkers */
		err = ring_merge(s, sl, i);
	}
	threads_stop(s, workers, started);
	/* units walked but not merged (after an error) */
	for (i = 0; i < s->nr_slots; i++) {
		if (s->slots[i].done)
			unit__release(&s->slots[i].u);
		dedup_unit_check__release(&s->slots[i].check);
	}
	free(s->slots);
	s->slots = NULL;
	return err;
}

/*
 * Walk and merge the round's units: in groups where that pays
 * (merged_in_groups()), else one by one, through the ring on jobs threads
 * or here; one by one also from where the groups disagreed.
 */
static int walk_and_merge(struct scheduler *s)
{
	unsigned int jobs = s->in.opts->jobs > 1 ? s->in.opts->jobs : 1;
	struct worker *workers;
	int err;

	if (jobs > s->nr_units)
		jobs = s->nr_units ? (unsigned int)s->nr_units : 1;
	s->next_cu = s->merged = 0;
	s->stop = false;
	s->resume = 0;
	err = workers_new(s, jobs, &workers);
	if (!err && merged_in_groups(s, jobs)) {
		err = walk_and_merge_groups(s, workers, jobs);
		if (err || !s->disagreed)
			goto out;
		/* the rest one by one, from s->resume */
		s->next_cu = s->merged = s->resume;
		s->stop = false;
	}
	if (!err && jobs == 1)
		err = walk_and_merge_serial(s, &workers[0]);
	else if (!err)
		err = walk_and_merge_ring(s, workers, jobs);
out:
	workers_free(workers, jobs);
	return err;
}

int scheduler__new(const struct scheduler_input *in, struct scheduler **ret)
{
	struct scheduler *s = calloc(1, sizeof(*s));

	*ret = NULL;
	if (!s)
		return -ENOMEM;
	s->in = *in;
	hmap__init(&s->imports.met, false);
	*ret = s;
	return 0;
}

void scheduler__free(struct scheduler *s)
{
	if (!s)
		return;
	free(s->slots);
	hmap__release(&s->imports.met);
	free(s->imports.seen);
	free(s->imports.next);
	free(s);
}

/* One round: walk units[0 .. n) and hand them to ops, in order. */
static int run_round(struct scheduler *s, const struct unit_ref *units, size_t n, bool first_round)
{
	int err;

	s->units = units;
	s->nr_units = n;
	s->first_round = first_round;
	err = walk_and_merge(s);
	s->units = NULL;
	s->nr_units = 0;
	return err;
}

int scheduler__run(struct scheduler *s, const struct unit_ref *units, size_t n)
{
	struct imports *im = &s->imports;
	struct unit_ref *round = NULL;
	int err = run_round(s, units, n, true);

	while (!err && im->nr_next) {
		size_t nr = im->nr_next;

		free(round);
		round = im->next;
		im->next = NULL;
		im->nr_next = im->next_cap = 0;
		err = run_round(s, round, nr, false);
	}
	free(round);
	return err;
}

void scheduler__stats(const struct scheduler *s, struct scheduler_stats *ret)
{
	ret->t_walk = s->t_walk;
	ret->t_merge = s->t_merge;
	ret->grouped = s->grouped;
	ret->disagreed = s->disagreed;
	ret->resume_group = s->resume_group;
	ret->nr_imported = s->imports.nr_seen;
}
