// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF to BTF, the whole pipeline:
 *
 *   open     libdwfl: relocations, compression, separate debug file
 *   walk     each compile unit into a standalone BTF "unit" (unit/);
 *            units are independent, so with jobs > 1 worker threads walk
 *            them while this thread merges
 *   merge    units, strictly in .debug_info order, into one deduplicated
 *            BTF (dedup.c); the order makes the output independent of the
 *            number of threads and of their timing.  From 256 units on,
 *            in groups of consecutive units, then the groups in order
 *            ("Merging in groups" below): the same output
 *   finish   forward declarations resolved, final renumbering (dedup.c)
 *   datasec  VARs and DATASECs from the units' variables (datasec.c)
 *
 * The output has the target's data model: the ELF file's byte order and
 * pointer size (its class), which every unit's address size must match
 * (unit.c leaves out one that does not); DATASEC entries of pointers are
 * sized by it.
 *
 * Threads: jobs threads in all.  Workers (jobs - 1) claim the next unit
 * number, walk it into a slot of a ring of 4 * jobs + 8 slots (and make
 * the merge's check of it, dedup__check_unit(), there too), and never
 * run further ahead than the ring, so memory stays bounded by a few units
 * whatever the file; this thread merges the slots in order and, when the
 * next is not walked yet, claims and walks a unit itself rather than wait.
 * Wake-ups are targeted, never a broadcast but to stop: a merged unit
 * frees one slot, so it wakes one idle worker (room); a walked unit wakes
 * this thread only if it is the one this thread waits for (walked).  With
 * one condition for all, each merge woke every idle worker to find one
 * slot: 54,000 context switches in a -j16 conversion of vmlinux on 16
 * CPUs, against 2,300 with targeted wake-ups.
 * Each has a unit_walker of its own over the file's DIE reader, which is read-only
 * once made.  libdw, which still finds the units and reads location lists,
 * reads different units concurrently; the shared lazily-built state it has
 * (the unit list, dwfl's section table, the dwz file) is built before the
 * workers start.  Before them, while libdw lists the units here, the
 * names base is made from .debug_str on a thread of its own (-j2 and up)
 * and our reader lists the units on another (-j3 and up), three steps of
 * about 50 ms each on vmlinux.  Then the ELF function symbols are
 * indexed on a thread while this one makes the output; with a base
 * (split BTF), the base's types are indexed on another while the first
 * units are walked, and waited for before the first merge.  Once every
 * unit is walked, the input is closed on a thread too (close_input()).
 * A caller may load the base on a thread of its own while the input is
 * opened (d2b_convert_file_later_base()): it is asked for once the input
 * is open, before anything needs it.
 */
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "btf/btf.h"
#include "unit/unit.h"
#include "merge/datasec.h"
#include "merge/dedup.h"
#include "merge/prune.h"
#include "merge/sizeless.h"
#include "kernel/elf_funcs.h"
#include "kernel/func_policy.h"
#include "kernel/var_policy.h"
#include "base/vec.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"
#include "base/clock.h"
#include "base/hmap.h"
#include "base/job.h"
#include "base/pages.h"
#include "base/strtab.h"
#include "unit/unit_inputs.h"

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

struct conv {
	const char *path;
	const struct d2b_opts *opts;
	struct dwarf_file *df;
	struct unit_inputs in;		/* the DIE readers, the first units to walk */
	/* the units of one round: the file's compile units, then the partial
	 * units they import, then those these import, ... */
	const struct unit_ref *units;
	size_t nr_units;
	bool first_round;
	struct unit_ref *imports;	/* the next round's */
	size_t nr_imports, imports_cap;
	struct hmap imported;		/* partial units met: hash -> index in seen */
	struct unit_ref *seen;
	size_t nr_seen, seen_cap;
	struct d2b_btf *out;
	struct d2b_btf *names;		/* string-only base over .debug_str, or NULL */
	struct pages_behind behind;	/* merged units' .debug_info pages, dropped */
	struct dedup *dd;
	/* split BTF: the base's index, made beside the first walks */
	struct job base_job;
	struct job names_job;		/* makes names: names_job_run() */
	int base_job_err;
	struct datasec_set *ds;
	struct datasec_section *secs;	/* the input's sections, by index */
	size_t nr_secs;
	uint32_t *map;
	size_t map_cap;
	struct func_rec *funcs;		/* D2B_FUNCS_KERNEL: every unit's functions */
	size_t nr_funcs, funcs_cap;
	struct elf_funcs *ef;		/* D2B_FUNCS_KERNEL: the ELF function symbols */
	struct unit_func_filter filter_ef;
	const struct unit_func_filter *filter;	/* NULL or &filter_ef */

	/* threads */
	struct slot *slots;
	size_t nr_slots;
	size_t next_cu;		/* next unit a worker claims */
	size_t merged;		/* units merged so far */
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t room;	/* workers wait here for a free slot */
	pthread_cond_t walked;	/* this thread waits here for slot merged */
	struct dedup_unit_check check;	/* of a unit this thread walked itself */
	/* a round merged in groups */
	struct gunit *gu;
	struct group *groups;
	size_t nr_groups;
	size_t cur_group;	/* the group this thread waits for */
	size_t window;		/* groups claimed from: cur_group .. + window */
	size_t in_flight;	/* units claimed, not merged into their group */
	size_t grouped;		/* groups the units were merged in, or 0 */
	bool disagreed;		/* a group was not taken: from then on, one by one */
	size_t resume;		/* the first unit merged one by one (or 0) */
	size_t resume_group;	/* ... and its group */

	char bad_btf[512];		/* the first kernel rule the output breaks */
	bool has_cxx;			/* some unit was C++ */
	unsigned int nr_errors;		/* D2B_ERROR diagnostics given */

	/* statistics */
	size_t units_skipped;
	double t_walk, t_merge;
};

static void conv_diag(struct conv *c, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
		      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void conv_diag(struct conv *c, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
		      const char *fmt, ...)
{
	struct d2b_diag d = {
		.level = level, .file = c->path, .cu = cu, .die_off = die_off, .tag = tag,
	};
	char buf[1024];
	va_list ap;

	if (level == D2B_ERROR)
		c->nr_errors++;
	if (!c->opts->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	d.msg = buf;
	c->opts->diag(&d, c->opts->diag_arg);
}

static void datasec_note(void *arg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void datasec_note(void *arg, const char *fmt, ...)
{
	struct conv *c = arg;
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	conv_diag(c, D2B_INFO, NULL, UINT64_MAX, 0, "%s", buf);
}

/* d2b_verify_fn: the first violation is kept for the error, the others
 * are said with -v */
static void verify_report(void *arg, uint32_t id, const char *msg)
{
	struct conv *c = arg;

	(void)id;
	if (!c->bad_btf[0])
		snprintf(c->bad_btf, sizeof(c->bad_btf), "%s", msg);
	else
		conv_diag(c, D2B_INFO, NULL, UINT64_MAX, 0, "also refused: %s", msg);
}

/* Are C++ names spelled as C++ spells them (and checked so)? */
static bool cxx_names(const struct conv *c)
{
	return c->has_cxx && c->opts->cxx_names;
}

/* unit_inputs_note_fn */
static void inputs_note(void *arg, enum d2b_level level, const char *msg)
{
	conv_diag(arg, level, NULL, UINT64_MAX, 0, "%s", msg);
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

struct worker {
	struct conv *c;
	struct unit_walker *uw;
	pthread_t thread;
	uint32_t *map;		/* a unit's map into its group */
	size_t map_cap;
};

/*
 * Claim the next unit, if the ring has room for it, and walk it into its
 * slot.  Called and returns with c->lock held; false if nothing was
 * claimable.
 */
static bool walk_next(struct conv *c, struct unit_walker *uw)
{
	struct slot *s;
	size_t i;
	int err;

	if (c->stop || c->next_cu >= c->nr_units || c->next_cu >= c->merged + c->nr_slots)
		return false;
	i = c->next_cu++;
	pthread_mutex_unlock(&c->lock);

	s = &c->slots[i % c->nr_slots];
	err = unit__walk(&s->u, c->opts, c->filter, uw, &c->units[i]);
	/* (the dedup is only read: the merge does not change what it checks) */
	if (!err && !s->u.skipped)
		dedup__check_unit(c->dd, s->u.btf, &s->check);

	pthread_mutex_lock(&c->lock);
	s->err = err;
	s->done = true;
	if (i == c->merged)	/* the unit the merging thread waits for */
		pthread_cond_signal(&c->walked);
	return true;
}

static void *worker(void *arg)
{
	struct worker *wk = arg;
	struct conv *c = wk->c;

	pthread_mutex_lock(&c->lock);
	while (!c->stop && c->next_cu < c->nr_units) {
		if (!walk_next(c, wk->uw))
			pthread_cond_wait(&c->room, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/*
 * The partial units w imports that no unit imported before: the next
 * round walks them, in the order they were first met.
 */
static int note_imports(struct conv *c, const struct unit *w)
{
	size_t i;
	int err;

	for (i = 0; i < w->nr_imports; i++) {
		const struct unit_ref *ref = &w->imports[i];
		uint64_t key = hash_mix64(ref->off ^ (uint64_t)(uintptr_t)ref->r), v;
		struct hmap_iter it;
		bool found = false;

		hmap__iter_init(&c->imported, key, &it);
		while (!found && hmap__next(&c->imported, &it, &v))
			found = c->seen[v].r == ref->r && c->seen[v].off == ref->off;
		if (found)
			continue;
		err = VEC_RESERVE(c->seen, c->seen_cap, c->nr_seen, 1);
		if (!err)
			err = VEC_RESERVE(c->imports, c->imports_cap, c->nr_imports, 1);
		if (!err)
			err = hmap__add(&c->imported, key, c->nr_seen);
		if (err)
			return err;
		c->seen[c->nr_seen++] = *ref;
		c->imports[c->nr_imports++] = *ref;
	}
	return 0;
}

static void base_job_run(void *arg)
{
	struct conv *c = arg;

	c->base_job_err = dedup__index_base(c->dd);
}

/* Wait for the base's index, if a job makes it: before any merge. */
static int base_job_join(struct conv *c)
{
	job_wait(&c->base_job);
	return c->base_job_err;
}

/*
 * The first half of taking walked unit w, in unit order: hand its
 * diagnostics on, and say what its walk's outcome means: < 0 the
 * conversion stops, 1 the unit is left out, 0 it is to be merged.
 */
static int unit_said(struct conv *c, struct unit *w, int walk_err)
{
	const char *cu = w->name;
	size_t i;

	for (i = 0; i < w->nr_diags; i++)
		conv_diag(c, w->diags[i].level, cu, w->diags[i].die_off, w->diags[i].tag, "%s",
			  w->diags[i].msg);
	if (w->oom)
		conv_diag(c, D2B_WARN, cu, UINT64_MAX, 0, "some diagnostics lost: out of memory");
	if (walk_err == -EBADMSG)
		return walk_err;	/* the walker said what is damaged */
	if (walk_err < 0) {
		conv_diag(c, D2B_ERROR, cu, UINT64_MAX, 0, "compile unit %s: %s", cu ?: "(unnamed)",
			  strerror(-walk_err));
		return walk_err;
	}
	if (w->skipped) {
		c->units_skipped++;
		return 1;
	}
	c->has_cxx |= w->cxx;
	return 0;
}

static int merge_failed(struct conv *c, const struct unit *w, int err)
{
	conv_diag(c, D2B_ERROR, w->name, UINT64_MAX, 0, "merging compile unit %s: %s",
		  w->name ?: "(unnamed)", strerror(-err));
	return err;
}

/*
 * The second half, once w is merged: its imports, functions and
 * variables, their type IDs through map into the work BTF's; the
 * variables' strings are strs's (keep_records()), or w's BTF's if NULL.
 */
static int unit_records(struct conv *c, const struct unit *w, const uint32_t *map, const char *strs)
{
	size_t i;
	int err;

	err = note_imports(c, w);
	if (!err)
		err = VEC_RESERVE(c->funcs, c->funcs_cap, c->nr_funcs, w->nr_funcs);
	if (err)
		return err;
	for (i = 0; i < w->nr_funcs; i++) {
		c->funcs[c->nr_funcs].id = map[w->funcs[i].id];
		c->funcs[c->nr_funcs].flags = w->funcs[i].flags;
		c->nr_funcs++;
	}
	for (i = 0; i < w->nr_vars; i++) {
		const struct unit_var *v = &w->vars[i];
		const char *tags[UNIT_MAX_TAGS];
		const char *secname = v->shndx < c->nr_secs ? c->secs[v->shndx].name : NULL;
		const char *name = strs ? strs + v->name_off : d2b_btf__str(w->btf, v->name_off);
		uint32_t t, off;

		if (!var_policy__wanted(c->opts->vars, name, secname))
			continue;
		for (t = 0; t < v->nr_tags && t < UNIT_MAX_TAGS; t++) {
			off = w->tag_offs[v->tags_start + t];
			tags[t] = strs ? strs + off : d2b_btf__str(w->btf, off);
		}
		err = datasec_set__add(c->ds, name, v->linkage, map[v->type], v->shndx, v->offset,
				       tags, t);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Room for a map of the IDs of unit btf. */
static int reserve_map(uint32_t **map, size_t *cap, const struct d2b_btf *btf)
{
	uint32_t n = d2b_btf__end_id(btf);

	if (n > *cap) {
		uint32_t *m = realloc(*map, n * sizeof(*m));

		if (!m)
			return -ENOMEM;
		*map = m;
		*cap = n;
	}
	return 0;
}

/* Merge one walked unit into the output, then hand its diagnostics on;
 * check is the merge's check of it (dedup__check_unit()), or NULL. */
static int merge_unit(struct conv *c, struct unit *w, int walk_err,
		      const struct dedup_unit_check *check)
{
	int err = unit_said(c, w, walk_err);

	if (err)
		return err < 0 ? err : 0;
	err = reserve_map(&c->map, &c->map_cap, w->btf);
	if (err)
		return err;
	if (!check) {
		dedup__check_unit(c->dd, w->btf, &c->check);
		check = &c->check;
	}
	err = base_job_join(c);
	if (!err)
		err = dedup__add_checked_unit(c->dd, w->btf, check, c->map);
	if (err < 0)
		return merge_failed(c, w, err);
	return unit_records(c, w, c->map, NULL);
}

/* pages dropped stay this far behind the units merged: a fault maps the
 * cached pages around it too (the kernel's fault-around), pages of units
 * already merged included, so a drop right at the last merged unit would
 * leave some behind, mapped again */
enum { DROP_LAG = 4 << 20 };

/*
 * Unit i is merged, and every unit before it: drop the pages of
 * .debug_info below it, DROP_LAG behind (c->behind: if they are clean
 * pages of a file mapping).  At the end (i = nr_units), all of them.  Only
 * the first round walks the file's units in file order; a split unit is in
 * another file.  (A page dropped and read again, by a later round's
 * partial unit, comes back from the page cache.)
 */
static void drop_behind(struct conv *c, size_t i)
{
	uint64_t to;

	if (!c->first_round)
		return;
	if (i >= c->nr_units) {
		pages_behind__all(&c->behind);
		return;
	}
	if (c->units[i].r != c->in.r)
		return;
	to = c->units[i].off;
	pages_behind__reach(&c->behind, to > DROP_LAG ? to - DROP_LAG : 0);
}

/*
 * Merging in groups
 * =================
 *
 * One thread merging every unit in order caps the threads' gain: on
 * vmlinux the merge is a third of the work.  A round of at least
 * 2 * GROUP_UNITS units over names (not split BTF) is cut into groups of
 * consecutive units, as many as GROUP_UNITS goes into the number of units
 * but at most MAX_GROUPS, as even as can be: by the number of units
 * alone.  Each group's units are merged, in order, into a group of
 * their own (dedup__new_group()) by whichever thread has walked the next
 * one, several groups at once; this thread merges each whole group into
 * the output, in order (dedup__add_group()), and then takes its units'
 * diagnostics, functions and variables, in order.  The groups are the
 * same for every number of threads, so the output is too; it is that of
 * merging the units one by one.  Where a group resolved a forward
 * declaration otherwise than the output did (dedup__add_group() says
 * -EAGAIN and takes nothing), the units from that group's first on are
 * walked again and merged one by one, as a round that is not grouped is:
 * the names a group disagrees on are met again by the groups after it,
 * and one by one the units are walked on every thread.  --no-merge-groups
 * (d2b_opts.no_merge_groups) merges one by one from the start.
 *
 * Threads claim units from the groups in a window (the group this thread
 * waits for and the next ones, as many as there are threads), the group
 * with the fewest claimed first, so that every thread has a group to
 * merge into; claimed units not yet merged into their group are at most
 * nr_slots, which bounds memory as the ring does.  A unit merged into its
 * group gives its BTF back at once: what this thread needs of it later
 * (diagnostics, functions, variables with their strings, imports) is
 * small.  Each group drops the pages of its part of .debug_info behind
 * its merges.
 */
enum {
	GROUP_UNITS = 128,	/* a group's fewest units */
	MAX_GROUPS = 8,		/* each group's types are merged again, serially */
};

static bool merged_in_groups(const struct conv *c)
{
	return c->names && c->nr_units >= 2 * GROUP_UNITS && c->first_round &&
	       !c->opts->no_merge_groups;
}

/* The next unit to claim, or SIZE_MAX (c->lock held). */
static size_t group_claim(struct conv *c)
{
	size_t g, best = SIZE_MAX, end = c->cur_group + c->window;

	if (c->stop || c->in_flight >= c->nr_slots)
		return SIZE_MAX;
	if (end > c->nr_groups)
		end = c->nr_groups;
	for (g = c->cur_group; g < end; g++) {
		const struct group *gr = &c->groups[g];

		if (gr->first + gr->claimed < gr->end &&
		    (best == SIZE_MAX || gr->claimed < c->groups[best].claimed))
			best = g;
	}
	if (best == SIZE_MAX)
		return SIZE_MAX;
	c->in_flight++;
	return c->groups[best].first + c->groups[best].claimed++;
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
		err = reserve_map(&wk->map, &wk->map_cap, w->btf);
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
static void group_drop_behind(struct conv *c, struct group *g, size_t i)
{
	uint64_t to, lag;

	if (i >= g->end) {
		pages_behind__all(&g->behind);
		return;
	}
	to = c->units[i].off - c->units[g->first].off;
	lag = g->behind.size / 16 < DROP_LAG ? g->behind.size / 16 : DROP_LAG;
	pages_behind__reach(&g->behind, to > lag ? to - lag : 0);
}

/*
 * Merge group g's walked units into it, in order, unless another thread
 * is at it; called and returns with c->lock held.
 */
static void group_merge_walked(struct conv *c, struct worker *wk, struct group *g)
{
	if (g->busy)
		return;
	g->busy = true;
	while (!c->stop && g->next < g->end && c->gu[g->next].walked) {
		size_t i = g->next;

		pthread_mutex_unlock(&c->lock);
		group_take(wk, g, &c->gu[i]);
		group_drop_behind(c, g, i + 1);
		pthread_mutex_lock(&c->lock);
		g->next++;
		c->in_flight--;
		pthread_cond_signal(&c->room);	/* one unit's room, one worker */
	}
	g->busy = false;
	if (g->next == g->end && g == &c->groups[c->cur_group])
		pthread_cond_signal(&c->walked);
}

/* Claim a unit, walk it and merge what its group can take; called and
 * returns with c->lock held.  False if nothing was claimable. */
static bool group_walk_next(struct conv *c, struct worker *wk)
{
	size_t i = group_claim(c);
	struct gunit *gu;

	if (i == SIZE_MAX)
		return false;
	pthread_mutex_unlock(&c->lock);
	gu = &c->gu[i];
	gu->err = unit__walk(&gu->u, c->opts, c->filter, wk->uw, &c->units[i]);
	/* (the dedup is only read: merges do not change what it checks) */
	if (!gu->err && !gu->u.skipped)
		dedup__check_unit(c->dd, gu->u.btf, &gu->check);
	pthread_mutex_lock(&c->lock);
	gu->walked = true;
	group_merge_walked(c, wk, &c->groups[gu->group]);
	return true;
}

static void *group_worker(void *arg)
{
	struct worker *wk = arg;
	struct conv *c = wk->c;

	pthread_mutex_lock(&c->lock);
	while (!c->stop && c->cur_group < c->nr_groups) {
		if (!group_walk_next(c, wk))
			pthread_cond_wait(&c->room, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/*
 * Group g is merged: into the output with it, then its units' records, in
 * order.  A unit that failed stops it, after the diagnostics of those
 * before it, as merging them one by one would.  -EAGAIN, c->disagreed:
 * the output did not take the group (walk_and_merge_groups()), nothing is
 * said.
 */
static int group_done(struct conv *c, struct group *g)
{
	size_t i, failed;
	bool whole;
	int err = 0;

	for (failed = g->first; failed < g->end; failed++) {
		if (c->gu[failed].err)
			break;
	}
	whole = failed == g->end;	/* (else the group is not merged) */
	if (whole) {
		err = reserve_map(&c->map, &c->map_cap, dedup__btf(g->dd));
		if (!err)
			err = dedup__add_group(c->dd, g->dd, c->map);
		if (err == -EAGAIN) {
			c->disagreed = true;
			return err;
		}
		if (err)
			return merge_failed(c, &c->gu[g->first].u, err);
	}
	for (i = g->first; i < g->end && !err; i++) {
		struct gunit *gu = &c->gu[i];

		err = unit_said(c, &gu->u, gu->merge_failed ? 0 : gu->err);
		if (err)
			err = err < 0 ? err : 0;
		else if (gu->merge_failed)
			err = merge_failed(c, &gu->u, gu->err);
		else if (whole)
			err = unit_records(c, &gu->u, c->map, gu->strs);
		unit__release(&gu->u);
		free(gu->strs);
		gu->strs = NULL;
	}
	dedup__free(g->dd);
	g->dd = NULL;
	return err;
}

/* The groups of this round, and their units' records. */
static int groups_init(struct conv *c, size_t window)
{
	size_t ng = c->nr_units / GROUP_UNITS, g, i;
	int err = 0;

	if (ng > MAX_GROUPS)
		ng = MAX_GROUPS;
	c->gu = calloc(c->nr_units, sizeof(*c->gu));
	c->groups = calloc(ng, sizeof(*c->groups));
	if (!c->gu || !c->groups)
		return -ENOMEM;
	c->nr_groups = ng;
	c->cur_group = 0;
	c->window = window;
	c->in_flight = 0;
	for (g = 0; g < ng && !err; g++) {
		struct group *gr = &c->groups[g];
		size_t end_off;
		bool here = c->first_round && c->behind.base;

		gr->first = g * c->nr_units / ng;
		gr->end = (g + 1) * c->nr_units / ng;
		gr->next = gr->first;
		for (i = gr->first; i < gr->end; i++) {
			c->gu[i].group = (uint32_t)g;
			here = here && c->units[i].r == c->in.r;
		}
		end_off = gr->end < c->nr_units && c->units[gr->end].r == c->in.r ?
			  c->units[gr->end].off : c->behind.size;
		if (here && end_off > c->units[gr->first].off && end_off <= c->behind.size) {
			size_t len = end_off - c->units[gr->first].off;

			/* a batch and a lag of their own in each group's part,
			 * many of which are read at once */
			pages_behind__init(&gr->behind, c->behind.base + c->units[gr->first].off, len,
					   c->behind.batch < len / 8 ? c->behind.batch : len / 8);
		}
		else
			pages_behind__init(&gr->behind, NULL, 0, 0);
		err = dedup__new_group(c->dd, &gr->dd);
	}
	return err;
}

static void groups_release(struct conv *c)
{
	size_t i;

	for (i = 0; c->gu && i < c->nr_units; i++) {
		unit__release(&c->gu[i].u);
		dedup_unit_check__release(&c->gu[i].check);
		free(c->gu[i].strs);
	}
	for (i = 0; c->groups && i < c->nr_groups; i++)
		dedup__free(c->groups[i].dd);
	free(c->gu);
	free(c->groups);
	c->gu = NULL;
	c->groups = NULL;
	c->nr_groups = 0;
}

/* walk_and_merge() for a round merged in groups: workers[0] is this
 * thread's.  Where a group was not taken (c->disagreed), the units from
 * c->resume on are left to be merged one by one. */
static int walk_and_merge_groups(struct conv *c, struct worker *workers, unsigned int jobs)
{
	unsigned int started = 0, t;
	size_t g;
	int err;

	c->nr_slots = 4 * jobs + 8;
	err = groups_init(c, jobs);
	if (err) {
		groups_release(c);
		return err;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->room, NULL);
	pthread_cond_init(&c->walked, NULL);
	for (t = 1; t < jobs; t++) {
		if (pthread_create(&workers[t].thread, NULL, group_worker, &workers[t]) != 0)
			break;
		started++;
	}
	c->grouped = c->nr_groups;
	for (g = 0; g < c->nr_groups && !err; g++) {
		struct group *gr = &c->groups[g];
		double t0 = clock_now();

		pthread_mutex_lock(&c->lock);
		c->cur_group = g;
		pthread_cond_broadcast(&c->room);	/* the window moved */
		while (!c->stop && gr->next < gr->end) {
			if (!group_walk_next(c, &workers[0]))
				pthread_cond_wait(&c->walked, &c->lock);
		}
		pthread_mutex_unlock(&c->lock);
		c->t_walk += clock_now() - t0;	/* walking, merging into groups or waiting */

		t0 = clock_now();
		err = group_done(c, gr);
		c->t_merge += clock_now() - t0;
	}
	if (c->disagreed) {
		g--;
		conv_diag(c, D2B_INFO, NULL, UINT64_MAX, 0,
			  "group %zu of %zu of the units resolved a forward declaration to another "
			  "definition than the groups before it: merging the units from there on "
			  "one by one", g + 1, c->nr_groups);
		c->resume = c->groups[g].first;
		c->resume_group = g;
		err = 0;
	}
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	c->cur_group = c->nr_groups;
	pthread_cond_broadcast(&c->room);
	pthread_mutex_unlock(&c->lock);
	for (t = 1; t <= started; t++)
		pthread_join(workers[t].thread, NULL);
	groups_release(c);
	pthread_cond_destroy(&c->room);
	pthread_cond_destroy(&c->walked);
	pthread_mutex_destroy(&c->lock);
	drop_behind(c, c->nr_units);
	return err;
}

static int walk_and_merge(struct conv *c)
{
	unsigned int jobs = c->opts->jobs > 1 ? c->opts->jobs : 1;
	struct worker *workers = NULL;
	unsigned int started = 0, t;
	struct unit u;
	size_t i;
	int err = 0;

	if (jobs > c->nr_units)
		jobs = c->nr_units ? (unsigned int)c->nr_units : 1;
	c->next_cu = c->merged = 0;
	c->stop = false;
	workers = calloc(jobs, sizeof(*workers));
	if (!workers)
		return -ENOMEM;
	for (t = 0; t < jobs; t++) {
		workers[t].c = c;
		err = unit_walker__new(c->df, c->in.r, c->in.alt, &workers[t].uw);
		if (!err && c->names)
			err = unit_walker__set_names(workers[t].uw, c->names,
						     die_reader__section(c->in.r, DIE_SEC_STR),
						     die_reader__section_size(c->in.r, DIE_SEC_STR));
		else if (!err)
			unit_walker__set_base(workers[t].uw, d2b_btf__base(c->out));
		if (err)
			goto out_free;
	}
	c->resume = 0;
	if (merged_in_groups(c)) {
		err = walk_and_merge_groups(c, workers, jobs);
		if (err || !c->disagreed)
			goto out_free;
		/* the rest one by one, from c->resume */
		c->next_cu = c->merged = c->resume;
		c->stop = false;
	}
	if (jobs == 1) {
		for (i = c->resume; i < c->nr_units && !err; i++) {
			double t0 = clock_now();

			err = unit__walk(&u, c->opts, c->filter, workers[0].uw, &c->units[i]);
			c->t_walk += clock_now() - t0;
			t0 = clock_now();
			err = merge_unit(c, &u, err, NULL);
			c->t_merge += clock_now() - t0;
			unit__release(&u);
			drop_behind(c, i + 1);
		}
		goto out_free;
	}

	/* jobs threads in all: this one merges, and walks while it waits */
	c->nr_slots = 4 * jobs + 8;
	c->slots = calloc(c->nr_slots, sizeof(*c->slots));
	if (!c->slots) {
		err = -ENOMEM;
		goto out_free;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->room, NULL);
	pthread_cond_init(&c->walked, NULL);
	for (t = 1; t < jobs; t++) {
		if (pthread_create(&workers[t].thread, NULL, worker, &workers[t]) != 0)
			break;
		started++;
	}
	for (i = c->resume; i < c->nr_units && !err; i++) {
		struct slot *s = &c->slots[i % c->nr_slots];
		double t0 = clock_now();

		pthread_mutex_lock(&c->lock);
		while (!s->done) {
			if (!walk_next(c, workers[0].uw))
				pthread_cond_wait(&c->walked, &c->lock);
		}
		pthread_mutex_unlock(&c->lock);
		c->t_walk += clock_now() - t0;	/* time spent walking or waiting for walkers */

		t0 = clock_now();
		err = merge_unit(c, &s->u, s->err, &s->check);
		c->t_merge += clock_now() - t0;
		unit__release(&s->u);
		drop_behind(c, i + 1);

		pthread_mutex_lock(&c->lock);
		s->done = false;
		c->merged++;
		if (err) {
			c->stop = true;
			pthread_cond_broadcast(&c->room);
		} else {
			pthread_cond_signal(&c->room);	/* one slot, one worker */
		}
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->room);
	pthread_mutex_unlock(&c->lock);
	for (t = 1; t <= started; t++)
		pthread_join(workers[t].thread, NULL);
	/* units walked but not merged (after an error) */
	for (i = 0; i < c->nr_slots; i++) {
		if (c->slots[i].done)
			unit__release(&c->slots[i].u);
		dedup_unit_check__release(&c->slots[i].check);
	}
	pthread_cond_destroy(&c->room);
	pthread_cond_destroy(&c->walked);
	pthread_mutex_destroy(&c->lock);
	free(c->slots);
	c->slots = NULL;
out_free:
	for (t = 0; t < jobs; t++) {
		unit_walker__free(workers[t].uw);
		free(workers[t].map);
	}
	free(workers);
	return err;
}

/*
 * Walk and merge the file's units, then round by round the partial units
 * the last round imported, until a round imports nothing new.
 */
static int walk_all(struct conv *c)
{
	struct unit_ref *round = NULL;
	int err;

	c->units = c->in.refs;
	c->nr_units = c->in.nr_refs;
	c->first_round = true;
	for (;;) {
		err = walk_and_merge(c);
		if (err || !c->nr_imports)
			break;
		free(round);
		round = c->imports;
		c->units = round;
		c->nr_units = c->nr_imports;
		c->first_round = false;
		c->imports = NULL;
		c->nr_imports = c->imports_cap = 0;
	}
	free(round);
	c->units = NULL;
	return err;
}

static void report_stats(struct conv *c, double t_open, double t_finish, double t_datasec)
{
	struct dedup_stats st;
	uint64_t out[D2B_KIND_MAX + 1] = { 0 };
	unsigned int k;
	uint32_t id;

	conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0, "units: %zu (%zu left out), jobs: %u, merged %s",
		  c->in.nr_refs + c->nr_seen, c->units_skipped, c->opts->jobs > 1 ? c->opts->jobs : 1,
		  !c->grouped ? "one by one" : c->disagreed ? "in groups, then one by one" : "in groups");
	if (c->disagreed)
		conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0,
			  "groups: %zu, the units of %zu of them merged one by one (they disagreed)",
			  c->grouped, c->grouped - c->resume_group);
	conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0,
		  "time: open %.3fs, walk %.3fs, merge %.3fs, finish %.3fs, datasec %.3fs; peak RSS %ld MiB",
		  t_open, c->t_walk, c->t_merge, t_finish, t_datasec, peak_rss_kb() / 1024);
	dedup__stats(c->dd, &st);
	for (k = 0; k < 3; k++) {
		static const char *const what[3] = {
			"merge steps", "merge of the groups", "final merge (in finish)",
		};
		const double *s = k == 2 ? st.final_s : k ? st.group_s : st.unit_s;

		if (k == 1 && !c->grouped)
			continue;
		conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0,
			  "%s: setup %.3fs, primitives %.3fs, structs %.3fs, references %.3fs, "
			  "append %.3fs, index %.3fs", what[k],
			  s[DEDUP_STEP_SETUP], s[DEDUP_STEP_PRIMS], s[DEDUP_STEP_COMPOSITES],
			  s[DEDUP_STEP_REFS], s[DEDUP_STEP_APPEND], s[DEDUP_STEP_INDEX]);
	}
	for (id = d2b_btf__start_id(c->out); id < d2b_btf__end_id(c->out); id++)
		out[d2b_kind(d2b_btf__type(c->out, id))]++;
	for (k = 1; k <= D2B_KIND_MAX; k++) {
		if (!st.in[k] && !out[k])
			continue;
		conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0, "%-10s %10llu in units, %8llu in output",
			  d2b_kind_name(k), (unsigned long long)st.in[k], (unsigned long long)out[k]);
	}
	conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0, "output: %u types", d2b_btf__nr_types(c->out));
}

/* unit_func_filter: functions with an ELF symbol (D2B_FUNCS_KERNEL) */
static bool want_elf_func(void *arg, const char *name)
{
	struct elf_func_info info;

	return elf_funcs__find(arg, name, &info);
}

/* The output BTF, the names base and the merge, before any unit. */
static int make_out(struct conv *c, const struct d2b_btf *base, struct dedup_opts *dopts)
{
	c->out = d2b_btf__new(base);
	c->ds = datasec_set__new();
	if (!c->out || !c->ds)
		return -ENOMEM;
	/* the target's data model, whatever the host's and the base's */
	d2b_btf__set_endian(c->out, dwarf_file__big_endian(c->df) ? D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE);
	d2b_btf__set_pointer_size(c->out, dwarf_file__addr_size(c->df));
	dopts->append_only = c->opts->no_dedup;
	/* the base's index: on a thread of its own, beside the first units'
	 * walks (d2b_convert_file()) */
	dopts->defer_base_index = base && c->opts->jobs > 1;
	/* made while the units were listed (names_job_run()); NULL if .debug_str
	 * is too large to be one, when units keep their strings as their own */
	job_wait(&c->names_job);
	dopts->names = c->names;
	return dedup__new(c->out, dopts, &c->dd);
}

/*
 * Units share the names of .debug_str through a string-only base (not for
 * split BTF, whose units' strings go over the base's): it reads only the
 * section's bytes, so it is made on a thread of its own while the units
 * are listed (with -j2 or more).
 */
static void names_job_run(void *arg)
{
	struct conv *c = arg;

	c->names = btf_new_names(die_reader__section(c->in.r, DIE_SEC_STR),
				 die_reader__section_size(c->in.r, DIE_SEC_STR));
}

/* elf_funcs__new(), as a job */
struct funcs_job {
	struct job job;
	Elf *elf;
	struct elf_funcs *ef;
	int err;
};

static void funcs_job_run(void *arg)
{
	struct funcs_job *fj = arg;

	fj->err = elf_funcs__new(fj->elf, &fj->ef);
}

/*
 * The kernel's function policy, once all units are merged: leave out the
 * functions it does not want (lib/kernel/func_policy.c), then tag kfuncs.
 */
static int kernel_funcs(struct conv *c)
{
	uint32_t n = d2b_btf__nr_types(c->out), *map = NULL;
	struct func_kfuncs kfuncs = { 0 };
	struct elf_funcs *ef = c->ef;
	struct d2b_btf *pruned;
	uint8_t *drop = NULL;
	size_t i;
	int err;

	drop = calloc(n ? n : 1, 1);
	if (!drop) {
		err = -ENOMEM;
		goto out;
	}
	err = func_policy__select(c->out, c->funcs, c->nr_funcs, ef, c->opts->consistent_funcs,
				  drop, datasec_note, c, c->opts->kfunc_tags ? &kfuncs : NULL);
	if (err > 0) {
		err = prune__funcs(c->out, drop, &pruned, &map);
		if (err)
			goto out;
		d2b_btf__free(c->out);
		c->out = pruned;
		datasec_set__remap(c->ds, map);
		for (i = 0; i < c->nr_funcs; i++)
			c->funcs[i].id = map[c->funcs[i].id];
	}
	if (err >= 0 && c->opts->kfunc_tags) {
		func_kfuncs__remap(&kfuncs, map);
		err = func_policy__tag_kfuncs(c->out, &kfuncs, !c->opts->skip_decl_tags,
					      c->opts->kfunc_attributes);
	}
	if (err > 0)
		err = 0;
out:
	func_kfuncs__release(&kfuncs);
	free(map);
	free(drop);
	return err;
}

/*
 * Types of no size where the kernel needs one (C++ declarations that no
 * unit defines): mended, or the FUNCs and prototypes that cannot be said
 * left out (merge/sizeless.c).
 */
static int repair_sizeless(struct conv *c)
{
	struct d2b_btf *pruned;
	uint32_t *map = NULL;
	uint8_t *drop = NULL;
	size_t i;
	int err;

	err = sizeless__repair(c->out, &drop, datasec_note, c);
	if (err > 0) {
		err = prune__funcs(c->out, drop, &pruned, &map);
		if (!err) {
			d2b_btf__free(c->out);
			c->out = pruned;
			datasec_set__remap(c->ds, map);
			for (i = 0; i < c->nr_funcs; i++)
				c->funcs[i].id = map[c->funcs[i].id];
		}
	}
	free(map);
	free(drop);
	return err < 0 ? err : 0;
}

/* Does btf have an ARRAY of ARRAY (int a[5][6] the way we write it)? */
static bool has_chained_arrays(const struct d2b_btf *btf)
{
	uint32_t id, end = d2b_btf__end_id(btf);

	for (id = 1; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id), *e;

		if (d2b_kind(t) != D2B_KIND_ARRAY)
			continue;
		e = d2b_btf__type(btf, btf_array(t)->type);
		if (e && d2b_kind(e) == D2B_KIND_ARRAY)
			return true;
	}
	return false;
}

/*
 * The input's section table, for the DATASECs, with its names copied (the
 * file may be closed before the DATASECs are made): *ret, and the names
 * in *ret_names, freed by the caller.
 */
static int section_table(struct dwarf_file *df, struct datasec_section **ret, size_t *ret_nr,
			 char **ret_names)
{
	size_t i, n = dwarf_file__nr_sections(df), len = 0, at = 0;
	struct datasec_section *secs = calloc(n ? n : 1, sizeof(*secs));
	char *names;

	if (!secs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (dwarf_file__section(df, i, &secs[i].name, &secs[i].size) != 0)
			secs[i].name = NULL;
		else
			len += strlen(secs[i].name) + 1;
	}
	names = malloc(len ? len : 1);
	if (!names) {
		free(secs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		size_t l = secs[i].name ? strlen(secs[i].name) + 1 : 0;

		if (!l)
			continue;
		memcpy(names + at, secs[i].name, l);
		secs[i].name = names + at;
		at += l;
	}
	*ret = secs;
	*ret_nr = n;
	*ret_names = names;
	return 0;
}

/*
 * Closing the input (the DIE readers, libdw's and libelf's state: tens of
 * milliseconds for a vmlinux, most of it libdw freeing its caches), on a
 * thread of its own once every unit is walked, when there are threads to
 * spare: nothing after the walk reads the input.
 */
struct close_job {
	struct job job;
	struct unit_inputs in;
	struct dwarf_file *df;
};

static void close_job_run(void *arg)
{
	struct close_job *cj = arg;

	unit_inputs__release(&cj->in);
	dwarf_file__free(cj->df);
}

/* Hand the input over to cj, and close it there (a thread if jobs > 1). */
static void close_input(struct conv *c, struct close_job *cj)
{
	unit_inputs__take(&c->in, &cj->in);
	cj->df = c->df;
	c->df = NULL;
	job_start(&cj->job, close_job_run, cj, c->opts->jobs > 1);
}

static int convert(const char *path, const struct d2b_btf *base,
		   const struct d2b_base_later *later, const struct d2b_opts *opts,
		   struct d2b_btf **ret)
{
	static const struct d2b_opts default_opts;
	struct d2b_opts o = opts ? *opts : default_opts;
	struct dedup_opts dopts = { 0 };
	struct conv c = { .path = path, .opts = &o };
	const uint32_t *final_map = NULL;
	double t0 = clock_now(), t_open, t_finish, t_datasec;
	struct funcs_job fj = { 0 };
	struct close_job cj = { 0 };
	char *secnames = NULL;
	char errbuf[256];
	size_t shndx, i;
	int n;
	uint64_t off;
	int err;

	*ret = NULL;
	err = dwarf_file__open(path, &c.df, errbuf, sizeof(errbuf));
	if (err) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "%s", errbuf);
		return err;
	}
	hmap__init(&c.imported, false);
	/* the units are listed by libdw and by our reader, while the names
	 * base is made: on three threads with -j3 or more */
	err = unit_inputs__open(&c.in, c.df, c.opts, inputs_note, &c);
	if (!err && !base && !later && die_reader__section(c.in.r, DIE_SEC_STR))
		job_start(&c.names_job, names_job_run, &c, c.opts->jobs > 1);
	if (!err)
		err = unit_inputs__list(&c.in, c.opts->jobs > 2);
	if (err)
		goto out;
	if (c.in.nr_other)
		conv_diag(&c, D2B_INFO, NULL, UINT64_MAX, 0,
			  "%zu type units not walked directly", c.in.nr_other);
	/* .debug_info as libelf mapped it from the file (not relocated, not
	 * inflated) is read once, unit after unit, and need not stay in
	 * memory (listing the units dropped what it touched) */
	die_reader__behind(c.in.r, DIE_SEC_INFO, &c.behind);
	/* build dwfl's section table now, before any worker thread asks */
	dwarf_file__addr_section(c.df, 0, &shndx, &off);

	err = section_table(c.df, &c.secs, &c.nr_secs, &secnames);
	if (err)
		goto out;
	/* the ELF function symbols, read and indexed on a thread of their own
	 * while this one makes what follows (nothing of libelf) */
	if (c.opts->funcs == D2B_FUNCS_KERNEL) {
		fj.elf = dwarf_file__elf(c.df);
		job_start(&fj.job, funcs_job_run, &fj, c.opts->jobs > 1);
	}
	/* a base loaded meanwhile by the caller is needed from here on */
	if (later && !later->get) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "no function to get the base with");
		err = -EINVAL;
	} else if (later && !(base = later->get(later->arg))) {
		err = -ECANCELED;
	}
	/* over a base that writes multi-dimensional arrays flat (pahole's),
	 * write ours flat too, or none of the types above them would match */
	if (base && !o.flatten_arrays && !has_chained_arrays(base))
		o.flatten_arrays = true;
	if (!err)
		err = make_out(&c, base, &dopts);
	if (!err && dopts.defer_base_index)
		job_start(&c.base_job, base_job_run, &c, true);
	if (c.opts->funcs == D2B_FUNCS_KERNEL) {
		job_wait(&fj.job);
		c.ef = fj.ef;
		if (fj.err && !err) {
			conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0,
				  "cannot read the ELF symbol table: %s", strerror(-fj.err));
			err = fj.err;
		}
		if (!err) {
			c.filter_ef.want = want_elf_func;
			c.filter_ef.arg = c.ef;
			if (elf_funcs__count(c.ef))
				c.filter = &c.filter_ef;
		}
	}
	if (err)
		goto out;
	t_open = clock_now() - t0;	/* all this thread does before the first walk */

	err = walk_all(&c);
	if (err)
		goto out;
	if (c.in.nr_partial > c.nr_seen)
		conv_diag(&c, D2B_INFO, NULL, UINT64_MAX, 0,
			  "partial units imported by no unit converted: %zu of %zu left out",
			  c.in.nr_partial - c.nr_seen, c.in.nr_partial);
	close_input(&c, &cj);

	t0 = clock_now();
	err = base_job_join(&c);
	if (!err)
		err = dedup__finish(c.dd, &final_map);
	if (err) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "deduplication failed: %s", strerror(-err));
		goto out;
	}
	if (final_map)
		datasec_set__remap(c.ds, final_map);
	for (i = 0; final_map && i < c.nr_funcs; i++)
		c.funcs[i].id = final_map[c.funcs[i].id];
	t_finish = clock_now() - t0;

	t0 = clock_now();
	err = repair_sizeless(&c);
	if (err)
		goto out;
	if (c.opts->funcs == D2B_FUNCS_KERNEL) {
		err = kernel_funcs(&c);
		if (err)
			goto out;
	}
	err = datasec_set__emit(c.ds, c.out, c.secs, c.nr_secs, datasec_note, &c);
	if (err) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "cannot make the DATASECs: %s",
			  strerror(-err));
		goto out;
	}
	if (!base && !d2b_btf__nr_types(c.out)) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "no type to write (the kernel refuses "
			  "an empty BTF): %zu units, %zu left out%s", c.in.nr_refs + c.nr_seen,
			  c.units_skipped, c.units_skipped ? " (-v says why)" : "");
		err = -ENODATA;
		goto out;
	}
	/* (split BTF carries no layout section: a module's is its base's) */
	if (c.opts->layout && !base) {
		err = d2b_btf__set_layout(c.out, true);
		if (err)
			goto out;
	}
	/* never hand on BTF the kernel would refuse (damaged input, or a bug),
	 * but for C++ names, which are asked for (cxx_names) */
	n = d2b_btf__verify(c.out, cxx_names(&c) ? D2B_VERIFY_CXX_NAMES : 0, verify_report, &c);
	if (n == 0 && cxx_names(&c) && d2b_btf__verify(c.out, 0, NULL, NULL) > 0)
		conv_diag(&c, D2B_NOTICE, NULL, UINT64_MAX, 0,
			  "C++ names that are not identifiers: the kernel will not load "
			  "this BTF (without --cxx-names it would)");
	t_datasec = clock_now() - t0;
	if (n != 0) {
		err = n < 0 ? n : -EINVAL;
		if (n > 0)
			conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0,
				  "the BTF made would be refused by the kernel (damaged DWARF?): "
				  "%s%s", c.bad_btf, n > 1 ? " (and more: -v lists them)" : "");
		goto out;
	}
	if (c.opts->stats)
		report_stats(&c, t_open, t_finish, t_datasec);
	*ret = c.out;
	c.out = NULL;
out:
	base_job_join(&c);	/* (its dedup is freed below) */
	job_wait(&c.names_job);	/* (its names are freed below) */
	/* every failure says why (the one contract of dwarf2btf.h), but the
	 * caller's own: a base it could not load */
	if (err == -ENOMEM)
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "out of memory");
	else if (err < 0 && !c.nr_errors && !(err == -ECANCELED && later && later->get && !base))
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "conversion failed: %s",
			  strerror(-err));
	dedup__free(c.dd);
	datasec_set__free(c.ds);
	d2b_btf__free(c.out);
	d2b_btf__free(c.names);
	free(c.map);
	dedup_unit_check__release(&c.check);
	free(c.secs);
	free(c.funcs);
	elf_funcs__free(c.ef);
	free(c.slots);
	free(c.imports);
	free(c.seen);
	hmap__release(&c.imported);
	job_wait(&cj.job);
	unit_inputs__release(&c.in);
	dwarf_file__free(c.df);
	free(secnames);
	return err;
}

int d2b_convert_file(const char *path, const struct d2b_btf *base, const struct d2b_opts *opts,
		     struct d2b_btf **ret)
{
	return convert(path, base, NULL, opts, ret);
}

int d2b_convert_file_later_base(const char *path, const struct d2b_base_later *later,
				const struct d2b_opts *opts, struct d2b_btf **ret)
{
	static const struct d2b_base_later none;

	return convert(path, NULL, later ? later : &none, opts, ret);
}
