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
 *            (scheduler.c, "Merging in groups"): the same output
 *   finish   forward declarations resolved, final renumbering (dedup.c);
 *            types of no size mended, the kernel's FUNC policy (finish/)
 *   datasec  VARs and DATASECs from the units' variables (finish/datasec.c)
 *
 * convert() is these stages, in order, each a function over a struct of
 * its own (struct input, elf_syms, merging, result, report): take_opts(),
 * open_input(), list_units(), start_walk(), walk_and_merge(), finish(),
 * verify(), then the result handed out.
 *
 * What it makes is a struct result: the BTF and what refers to its type
 * IDs beside it (the variables, the functions' records); each step that
 * renumbers the BTF renumbers them with it (result_remap()).
 *
 * The output has the target's data model: the ELF file's byte order and
 * pointer size (its class), which every unit's address size must match
 * (unit.c leaves out one that does not); DATASEC entries of pointers are
 * sized by it.
 *
 * Threads: jobs threads in all walk the units; which walks which, and
 * when this thread merges each, is the scheduler's (scheduler.c), which
 * hands the walked units back in order (struct scheduler_ops).  libdw,
 * which still finds the units and reads location lists, reads different
 * units concurrently; the shared lazily-built state it has
 * (the unit list, dwfl's section table, the dwz file) is built before the
 * workers start.  Before them, while libdw lists the units here, the
 * names base is made from .debug_str on a thread of its own (-j2 and up)
 * and our reader lists the units on another (-j3 and up): three
 * independent passes over large sections, which would otherwise run one
 * after another before any unit is walked.  Then the ELF function symbols are
 * indexed on a thread while this one makes the output; with a base
 * (split BTF), the base's types are indexed on another while the first
 * units are walked, and waited for before the first merge.  Once every
 * unit is walked, the input is closed on a thread too (close_input()).
 * A caller may load the base on a thread of its own while the input is
 * opened (d2b_convert_file_later_base()): it is asked for once the input
 * is open, before anything needs it.
 *
 * Messages: every stage says its notes, warnings and errors through one
 * channel, c->diag (base/diag.h), to the caller's callback and errbuf.  A
 * unit walked on any thread keeps its own (struct unit's diag), said here
 * as the unit is taken in unit order (unit_said()), so their order does
 * not depend on the threads.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "btf/btf.h"
#include "unit/unit.h"
#include "finish/datasec.h"
#include "merge/dedup.h"
#include "finish/prune.h"
#include "finish/sizeless.h"
#include "kernel/base_policy.h"
#include "kernel/elf_funcs.h"
#include "kernel/func_judge.h"
#include "kernel/func_policy.h"
#include "kernel/loc_sites.h"
#include "kernel/var_policy.h"
#include "base/vec.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"
#include "base/clock.h"
#include "base/diag.h"
#include "base/hmap.h"
#include "base/job.h"
#include "base/pages.h"
#include "base/strtab.h"
#include "unit/unit_inputs.h"
#include "scheduler.h"

/*
 * What the pipeline makes: the BTF, and what refers to its type IDs beside
 * it (the variables, for the DATASECs; the functions' records).  Whatever
 * renumbers the BTF renumbers them with it, in one place: result_remap().
 */
struct result {
	struct d2b_btf *out;
	struct datasec_set *ds;
	struct func_rec *funcs;		/* D2B_FUNCS_KERNEL: every unit's functions */
	size_t nr_funcs, funcs_cap;
	struct loc_sites *sites;	/* d2b_opts.inline_sites: every unit's */
};

/* An input in memory (d2b_convert_mem()); path is then its name. */
struct mem_input {
	const void *data;
	size_t size;
};

/*
 * Closing the input (the DIE readers, libdw's and libelf's state: for a
 * large file, mostly libdw freeing its caches, which grow with it), on a
 * thread of its own once every unit is walked, when there are threads to
 * spare: nothing after the walk reads the input.
 */
struct close_job {
	struct job job;
	struct unit_inputs units;
	struct dwarf_file *df;
};

/* The input: the file, the readers of its units, what is read beside them */
struct input {
	struct dwarf_file *df;
	struct unit_inputs units;	/* the DIE readers, the first units to walk */
	struct datasec_section *secs;	/* the input's sections, by index */
	size_t nr_secs;
	char *secnames;			/* (secs' names) */
	uint64_t *sec_addrs;		/* their sh_addr (inline sites) */
	bool rel;			/* an ET_REL file */
	struct d2b_btf *names;		/* string-only base over .debug_str, or NULL */
	struct job names_job;		/* makes names: names_job_run() */
	struct pages_behind behind;	/* merged units' .debug_info pages, dropped */
	struct close_job cj;		/* closes df and units: close_input() */
};

/* elf_funcs__new(), and the names of .debug_str marked, as a job */
struct funcs_job {
	struct job job;
	Elf *elf;
	const char *str;	/* .debug_str */
	size_t str_size;
	struct elf_funcs *ef;
	uint64_t *str_bits;	/* NULL: not marked */
	size_t str_covered;
	int err;
};

/* D2B_FUNCS_KERNEL: the ELF function symbols, which filter the walk */
struct elf_syms {
	struct funcs_job fj;		/* reads them (fj.ef) beside the listing */
	struct unit_func_filter filter_ef;
	const struct unit_func_filter *filter;	/* NULL or &filter_ef */
};

/* The merge of the walked units into the output */
struct merging {
	struct scheduler *sched;	/* walks them, in rounds (scheduler.c) */
	struct dedup *dd;
	uint32_t *map;			/* a unit's or a group's IDs into dd's */
	size_t map_cap;
	struct dedup_unit_check check;	/* of a unit this thread walked itself */
	/* split BTF: the base's index, made beside the first walks */
	struct job base_job;
	int base_job_err;
};

/* What is said at the end */
struct report {
	char bad_btf[512];		/* the first kernel rule the output breaks */
	bool has_cxx;			/* some unit was C++ */
	size_t units_skipped;
	size_t nr_imported;		/* partial units walked */
	double t_open, t_finish, t_datasec, t_sites;
};

/* The conversion: one struct per stage, and what they make */
struct conv {
	const char *path;
	struct d2b_opts opts;		/* the caller's, taken in (opts_take()) */
	struct diag diag;		/* every stage's messages, to the caller */
	const struct d2b_btf *base;	/* split BTF: the output's base, or NULL */
	struct input src;
	struct elf_syms syms;
	struct merging m;
	struct result res;
	struct report rep;
};

/* d2b_verify_fn: the first violation is kept for the error, the others
 * are said with -v */
static void verify_report(void *arg, uint32_t id, const char *msg)
{
	struct conv *c = arg;

	(void)id;
	if (!c->rep.bad_btf[0])
		snprintf(c->rep.bad_btf, sizeof(c->rep.bad_btf), "%s", msg);
	else
		diag__say(&c->diag, D2B_INFO, "also refused: %s", msg);
}

/* Are C++ names spelled as C++ spells them (and checked so)? */
static bool cxx_names(const struct conv *c)
{
	return c->rep.has_cxx && c->opts.cxx_names;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

static void base_job_run(void *arg)
{
	struct conv *c = arg;

	c->m.base_job_err = dedup__index_base(c->m.dd);
}

/* Wait for the base's index, if a job makes it: before any merge. */
static int base_job_join(struct conv *c)
{
	job_wait(&c->m.base_job);
	return c->m.base_job_err;
}

/*
 * The words for err, where btf failed to take n more types: for -E2BIG
 * when they are more than one BTF can number, that limit (the caller's
 * words must still fit in errbuf), else strerror().
 */
_Static_assert(D2B_MAX_TYPE_ID == 0xfffff, "types_err() names the limit");

static const char *types_err(const struct d2b_btf *btf, uint64_t n, int err)
{
	if (err == -E2BIG && (uint64_t)d2b_btf__end_id(btf) + n > (uint64_t)D2B_MAX_TYPE_ID + 1)
		return "more types than one BTF can number (IDs up to 1048575, 0xfffff: "
		       "the kernel's BTF_MAX_TYPE)";
	return strerror(-err);
}

/*
 * The first half of taking walked unit w, in unit order: hand its
 * diagnostics on, and say what its walk's outcome means: < 0 the
 * conversion stops, 1 the unit is left out, 0 it is to be merged.
 */
static int unit_said(struct conv *c, struct unit *w, int walk_err)
{
	const char *cu = w->name;

	diag__replay(&c->diag, &w->diag, cu);
	if (walk_err == -EBADMSG)
		return walk_err;	/* the walker said what is damaged */
	if (walk_err < 0) {
		diag__at(&c->diag, D2B_ERROR, cu, UINT64_MAX, 0, "compile unit %s: %s",
			 cu ?: "(unnamed)", types_err(w->btf, 1, walk_err));
		return walk_err;
	}
	if (w->skipped) {
		c->rep.units_skipped++;
		return 1;
	}
	c->rep.has_cxx |= w->cxx;
	return 0;
}

/* The merge of unit w (or of a group of units from w, of n types) failed. */
static int merge_failed(struct conv *c, const struct unit *w, uint64_t n, int err)
{
	diag__at(&c->diag, D2B_ERROR, w->name, UINT64_MAX, 0, "merging compile unit %s: %s",
		 w->name ?: "(unnamed)", types_err(dedup__btf(c->m.dd), n, err));
	return err;
}

/*
 * The second half, once w is merged: its functions and variables, their
 * type IDs through map into the work BTF's; the variables' strings are
 * strs's (keep_records()), or w's BTF's if NULL.
 */
static int unit_records(struct conv *c, const struct unit *w, const uint32_t *map, const char *strs)
{
	size_t i;
	int err;

	if (c->res.sites) {
		err = loc_sites__add_unit(c->res.sites, w, map, strs);
		if (err)
			return err;
	}
	err = VEC_RESERVE(c->res.funcs, c->res.funcs_cap, c->res.nr_funcs, w->nr_funcs);
	if (err)
		return err;
	for (i = 0; i < w->nr_funcs; i++) {
		c->res.funcs[c->res.nr_funcs].id = map[w->funcs[i].id];
		c->res.funcs[c->res.nr_funcs].flags = w->funcs[i].flags;
		c->res.funcs[c->res.nr_funcs].addr = w->funcs[i].addr;
		c->res.nr_funcs++;
	}
	for (i = 0; i < w->nr_vars; i++) {
		const struct unit_var *v = &w->vars[i];
		const char *tags[UNIT_MAX_TAGS];
		const char *secname = v->shndx < c->src.nr_secs ? c->src.secs[v->shndx].name : NULL;
		const char *name = strs ? strs + v->name_off : d2b_btf__str(w->btf, v->name_off);
		uint32_t t, off;

		if (!var_policy__wanted(c->opts.vars, name, secname))
			continue;
		for (t = 0; t < v->nr_tags && t < UNIT_MAX_TAGS; t++) {
			off = w->tag_offs[v->tags_start + t];
			tags[t] = strs ? strs + off : d2b_btf__str(w->btf, off);
		}
		err = datasec_set__add(c->res.ds, name, v->linkage, map[v->type], v->shndx, v->offset,
				       tags, t);
		if (err < 0)
			return err;
	}
	return 0;
}

/* scheduler_ops: merge one walked unit into the output, then hand its
 * diagnostics on; check is the merge's check of it (dedup__check_unit()),
 * or NULL. */
static int merge_unit(void *arg, struct unit *w, int walk_err, const struct dedup_unit_check *check)
{
	struct conv *c = arg;
	int err = unit_said(c, w, walk_err);

	if (err)
		return err < 0 ? err : 0;
	err = VEC_RESERVE(c->m.map, c->m.map_cap, 0, d2b_btf__end_id(w->btf));
	if (err)
		return err;
	if (!check) {
		dedup__check_unit(c->m.dd, w->btf, &c->m.check);
		check = &c->m.check;
	}
	err = base_job_join(c);
	if (!err)
		err = dedup__add_checked_unit(c->m.dd, w->btf, check, c->m.map);
	if (err < 0)
		return merge_failed(c, w, d2b_btf__nr_types(w->btf), err);
	return unit_records(c, w, c->m.map, NULL);
}

/* scheduler_ops: a group whose units are merged into gd, into the output */
static int merge_group(void *arg, struct dedup *gd, const struct unit *first, const uint32_t **map)
{
	struct conv *c = arg;
	int err;

	err = VEC_RESERVE(c->m.map, c->m.map_cap, 0, d2b_btf__end_id(dedup__btf(gd)));
	if (!err)
		err = dedup__add_group(c->m.dd, gd, c->m.map);
	if (err == -EAGAIN)
		return err;	/* (its units are merged one by one) */
	if (err)
		return merge_failed(c, first, d2b_btf__nr_types(dedup__btf(gd)), err);
	*map = c->m.map;
	return 0;
}

/* scheduler_ops: a unit of a group, after the group: its diagnostics, then its
 * records if the group was merged */
static int group_unit(void *arg, struct unit *w, int err, bool failed, const uint32_t *map,
		      const char *strs)
{
	struct conv *c = arg;
	int said = unit_said(c, w, failed ? 0 : err);

	if (said)
		return said < 0 ? said : 0;
	if (failed)
		return merge_failed(c, w, d2b_btf__nr_types(w->btf), err);
	return map ? unit_records(c, w, map, strs) : 0;
}

static void close_job_run(void *arg)
{
	struct close_job *cj = arg;

	unit_inputs__release(&cj->units);
	dwarf_file__free(cj->df);
}

/* Hand the input over to a job that closes it (a thread if jobs > 1). */
static void close_input(struct conv *c)
{
	struct close_job *cj = &c->src.cj;

	unit_inputs__take(&c->src.units, &cj->units);
	cj->df = c->src.df;
	c->src.df = NULL;
	job_start(&cj->job, close_job_run, cj, c->opts.jobs > 1);
}

/*
 * Walk and merge the file's units, then the partial units they import
 * (scheduler.c), and close the input, which nothing after reads.
 */
static int walk_and_merge(struct conv *c)
{
	static const struct scheduler_ops ops = {
		.merge_unit = merge_unit,
		.merge_group = merge_group,
		.group_unit = group_unit,
	};
	struct scheduler_input si = {
		.opts = &c->opts, .filter = c->syms.filter, .df = c->src.df, .r = c->src.units.r,
		.alt = c->src.units.alt, .names = c->src.names, .base = d2b_btf__base(c->res.out),
		.dd = c->m.dd, .behind = &c->src.behind, .ops = &ops, .arg = c, .diag = &c->diag,
	};
	struct scheduler_stats ss;
	int err;

	err = scheduler__new(&si, &c->m.sched);
	if (!err)
		err = scheduler__run(c->m.sched, c->src.units.refs, c->src.units.nr_refs);
	if (err)
		return err;
	scheduler__stats(c->m.sched, &ss);
	c->rep.nr_imported = ss.nr_imported;
	if (c->src.units.nr_partial > ss.nr_imported)
		diag__say(&c->diag, D2B_INFO,
			  "partial units imported by no unit converted: %zu of %zu left out",
			  c->src.units.nr_partial - ss.nr_imported, c->src.units.nr_partial);
	close_input(c);
	return 0;
}

static void report_stats(struct conv *c)
{
	struct dedup_stats st;
	struct scheduler_stats ss;
	uint64_t out[D2B_KIND_LAST + 1] = { 0 };
	unsigned int k;
	uint32_t id;

	scheduler__stats(c->m.sched, &ss);

	diag__say(&c->diag, D2B_STATS, "units: %zu (%zu left out), jobs: %u, merged %s",
		  c->src.units.nr_refs + ss.nr_imported, c->rep.units_skipped, c->opts.jobs > 1 ? c->opts.jobs : 1,
		  !ss.grouped ? "one by one" : ss.disagreed ? "in groups, then one by one" : "in groups");
	if (ss.disagreed)
		diag__say(&c->diag, D2B_STATS,
			  "groups: %zu, the units of %zu of them merged one by one (they disagreed)",
			  ss.grouped, ss.grouped - ss.resume_group);
	diag__say(&c->diag, D2B_STATS,
		  "time: open %.3fs, walk %.3fs, merge %.3fs, finish %.3fs, datasec %.3fs; peak RSS %ld MiB",
		  c->rep.t_open, ss.t_walk, ss.t_merge, c->rep.t_finish, c->rep.t_datasec,
		  peak_rss_kb() / 1024);
	dedup__stats(c->m.dd, &st);
	for (k = 0; k < 3; k++) {
		static const char *const what[3] = {
			"merge steps", "merge of the groups", "final merge (in finish)",
		};
		const double *s = k == 2 ? st.final_s : k ? st.group_s : st.unit_s;

		if (k == 1 && !ss.grouped)
			continue;
		diag__say(&c->diag, D2B_STATS,
			  "%s: setup %.3fs, primitives %.3fs, structs %.3fs, references %.3fs, "
			  "append %.3fs, index %.3fs", what[k],
			  s[DEDUP_STEP_SETUP], s[DEDUP_STEP_PRIMS], s[DEDUP_STEP_COMPOSITES],
			  s[DEDUP_STEP_REFS], s[DEDUP_STEP_APPEND], s[DEDUP_STEP_INDEX]);
	}
	for (id = d2b_btf__start_id(c->res.out); id < d2b_btf__end_id(c->res.out); id++)
		out[d2b_kind(d2b_btf__type(c->res.out, id))]++;
	for (k = 1; k <= D2B_KIND_LAST; k++) {
		if (!st.in[k] && !out[k])
			continue;
		diag__say(&c->diag, D2B_STATS, "%-10s %10llu in units, %8llu in output",
			  d2b_kind_name(k), (unsigned long long)st.in[k], (unsigned long long)out[k]);
	}
	if (c->res.sites) {
		struct loc_sites_stats ls;

		loc_sites__stats(c->res.sites, &ls);
		diag__say(&c->diag, D2B_STATS, "inline sites: %zu, of %zu functions, in %zu LOCSECs "
			  "(%.3fs); every parameter located at %zu (%.1f%%), parameters %zu of %zu "
			  "(%.1f%%); LOC_PARAM %zu, LOC_PROTO %zu, FUNCs added %zu", ls.sites,
			  ls.funcs, ls.sections, c->rep.t_sites, ls.complete,
			  ls.sites ? 100.0 * ls.complete / ls.sites : 0.0, ls.located, ls.params,
			  ls.params ? 100.0 * ls.located / ls.params : 0.0, ls.loc_params,
			  ls.loc_protos, ls.funcs_added);
	}
	diag__say(&c->diag, D2B_STATS, "output: %u types", d2b_btf__nr_types(c->res.out));
}

/* unit_func_filter: functions with an ELF symbol (D2B_FUNCS_KERNEL) */
static bool want_elf_func(void *arg, const char *name)
{
	struct elf_func_info info;

	return elf_funcs__find(arg, name, &info);
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

	c->src.names = btf_new_names(die_reader__section(c->src.units.r, DIE_SEC_STR),
				 die_reader__section_size(c->src.units.r, DIE_SEC_STR));
}

enum {
	/* with this many function names (a kernel's tens of thousands, far
	 * more than any module has), the names of .debug_str are marked at
	 * once (elf_funcs__mark_names()), where each lookup would miss the
	 * caches; with fewer, the lookups cost less than the pass over the
	 * strings, whose length does not shrink with the number of functions
	 * (the figures: tests/bench/README) */
	MARK_NAMES_MIN_FUNCS = 8192,
};

static void funcs_job_run(void *arg)
{
	struct funcs_job *fj = arg;

	fj->err = elf_funcs__new(fj->elf, &fj->ef);
	/* (no memory for the marks: none, and the same answers) */
	if (!fj->err && fj->str && elf_funcs__count(fj->ef) >= MARK_NAMES_MIN_FUNCS &&
	    elf_funcs__mark_names(fj->ef, fj->str, fj->str_size, &fj->str_bits, &fj->str_covered))
		fj->str_bits = NULL;
}

/*
 * Renumber what the result holds beside its BTF through map (each old ID's
 * new one); btf, if not NULL, is the renumbered BTF, which replaces r->out.
 */
static void result_remap(struct result *r, struct d2b_btf *btf, const uint32_t *map)
{
	size_t i;

	if (btf) {
		d2b_btf__free(r->out);
		r->out = btf;
	}
	datasec_set__remap(r->ds, map);
	if (r->sites)
		loc_sites__remap(r->sites, map);
	for (i = 0; i < r->nr_funcs; i++)
		r->funcs[i].id = map[r->funcs[i].id];
}

/* Leave out the FUNCs drop marks, with what only they used (prune__funcs()):
 * the rest renumbered, *ret_map the renumbering (malloc()ed). */
static int result_prune(struct result *r, uint8_t *drop, uint32_t **ret_map)
{
	struct d2b_btf *pruned;
	int err;

	if (r->sites)	/* the prototypes inline sites name stay */
		loc_sites__keep_protos(r->sites, drop, d2b_btf__start_id(r->out),
				       d2b_btf__end_id(r->out), PRUNE_KEEP);
	err = prune__funcs(r->out, drop, &pruned, ret_map);
	if (!err)
		result_remap(r, pruned, *ret_map);
	return err;
}

/*
 * The kernel's function policy, once all units are merged: leave out the
 * functions it does not want (lib/kernel/func_policy.c), then tag kfuncs.
 */
static int kernel_funcs(struct conv *c)
{
	uint32_t n = d2b_btf__nr_types(c->res.out), *map = NULL;
	struct func_copies copies = { 0 };
	struct func_renames renames = { 0 };
	struct func_kfuncs kfuncs = { 0 };
	struct func_policy_opts po;
	struct elf_funcs *ef = c->syms.fj.ef;
	uint8_t *drop = NULL;
	int err;

	drop = calloc(n ? n : 1, 1);
	if (!drop) {
		err = -ENOMEM;
		goto out;
	}
	func_policy_opts__init(&po, &c->opts);
	po.copies = &copies;
	po.renames = &renames;
	err = func_policy__select(c->res.out, c->res.funcs, c->res.nr_funcs, ef, &po, drop,
				  &c->diag, c->opts.kfunc_tags ? &kfuncs : NULL);
	if (err >= 0 && renames.nr)
		err = func_policy__rename(c->res.out, &renames) ?: err;
	if (err > 0) {
		err = result_prune(&c->res, drop, &map);
		if (err)
			goto out;
	}
	if (err >= 0 && c->opts.kfunc_tags)
		func_kfuncs__remap(&kfuncs, map);
	if (err >= 0)
		err = func_policy__add_copies(c->res.out, &copies,
					       c->opts.kfunc_tags ? &kfuncs : NULL) ?: err;
	if (err >= 0 && c->opts.kfunc_tags)
		err = func_policy__tag_kfuncs(c->res.out, &kfuncs, !c->opts.skip_decl_tags,
					      c->opts.kfunc_attributes);
	if (err > 0)
		err = 0;
out:
	func_copies__release(&copies);
	func_renames__release(&renames);
	func_kfuncs__release(&kfuncs);
	free(map);
	free(drop);
	return err;
}

/*
 * Types of no size where the kernel needs one (C++ declarations that no
 * unit defines): mended, or the FUNCs and prototypes that cannot be said
 * left out (finish/sizeless.c).
 */
static int repair_sizeless(struct conv *c)
{
	uint32_t *map = NULL;
	uint8_t *drop = NULL;
	int err;

	err = sizeless__repair(c->res.out, &drop, &c->diag);
	if (err > 0)
		err = result_prune(&c->res, drop, &map);
	free(map);
	free(drop);
	return err < 0 ? err : 0;
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

/* The input's sections' addresses (inline sites: ADDR locations), and
 * whether it is relocatable (its sections have none). */
static int section_addrs(struct input *src)
{
	Elf *elf = dwarf_file__elf(src->df);
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	size_t i;

	src->sec_addrs = calloc(src->nr_secs ? src->nr_secs : 1, sizeof(*src->sec_addrs));
	if (!src->sec_addrs)
		return -ENOMEM;
	src->rel = gelf_getehdr(elf, &ehdr) && ehdr.e_type == ET_REL;
	for (i = 0; i < src->nr_secs; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);

		if (scn && gelf_getshdr(scn, &shdr))
			src->sec_addrs[i] = shdr.sh_addr;
	}
	return 0;
}

/* The size of LIBDWARF2BTF_1.0's struct d2b_opts, which sz == 0 stands for */
#define OPTS_SIZE_1_0 (offsetof(struct d2b_opts, true_signature) + sizeof(bool))

/*
 * The caller's options as this library's struct: the fields its sz covers,
 * zero past them.  Fields past ours (a newer caller's) must be zero.
 */
static int opts_take(const struct d2b_opts *in, struct d2b_opts *out)
{
	size_t sz, i;

	memset(out, 0, sizeof(*out));
	if (!in)
		return 0;
	sz = in->sz ? in->sz : OPTS_SIZE_1_0;
	memcpy(out, in, sz < sizeof(*out) ? sz : sizeof(*out));
	out->sz = sizeof(*out);
	for (i = sizeof(*out); i < sz; i++)
		if (((const unsigned char *)in)[i])
			return -EINVAL;
	return 0;
}

/* The caller's options, taken in and checked. */
static int take_opts(struct conv *c, const struct d2b_opts *opts)
{
	int err = opts_take(opts, &c->opts);

	diag__init(&c->diag, &c->opts, c->path);
	if (c->opts.errbuf && c->opts.errlen)
		c->opts.errbuf[0] = '\0';
	if (err) {
		diag__say(&c->diag, D2B_ERROR, "options of %zu bytes with fields "
			  "this library (%zu bytes) does not know set", opts->sz, sizeof(c->opts));
		return err;
	}
	if (!func_policy__known(c->opts.kernel_policy)) {
		diag__say(&c->diag, D2B_ERROR, "unknown kernel policy %d",
			  (int)c->opts.kernel_policy);
		return -EINVAL;
	}
	return 0;
}

/* Open the input file, or the input in memory. */
static int open_input(struct conv *c, const struct mem_input *mem)
{
	if (mem)
		return dwarf_file__open_mem(mem->data, mem->size, c->path, &c->diag, &c->src.df);
	return dwarf_file__open(c->path, &c->diag, &c->src.df);
}

/*
 * The readers of the input's units, and their list: by libdw and by our
 * reader (on a thread of its own with -j3 or more), while the names base is
 * made (-j2 or more; not for split BTF, whose units' strings go over the
 * base's); then what the walk needs of the file before any thread reads it.
 */
static int list_units(struct conv *c, bool split)
{
	struct input *src = &c->src;
	size_t shndx;
	uint64_t off;
	int err;

	err = unit_inputs__open(&src->units, src->df, &c->opts, &c->diag);
	if (!err && !split && die_reader__section(src->units.r, DIE_SEC_STR))
		job_start(&src->names_job, names_job_run, c, c->opts.jobs > 1);
	if (!err)
		err = unit_inputs__list(&src->units, c->opts.jobs > 2);
	if (err)
		return err;
	if (src->units.nr_other)
		diag__say(&c->diag, D2B_INFO,
			  "%zu type units not walked directly", src->units.nr_other);
	/* .debug_info as libelf mapped it from the file (not relocated, not
	 * inflated) is read once, unit after unit, and need not stay in
	 * memory (listing the units dropped what it touched) */
	die_reader__behind(src->units.r, DIE_SEC_INFO, &src->behind);
	/* build dwfl's section table now, before any worker thread asks */
	dwarf_file__addr_section(src->df, 0, &shndx, &off);
	err = section_table(src->df, &src->secs, &src->nr_secs, &src->secnames);
	if (!err && c->opts.inline_sites)
		err = section_addrs(src);
	return err;
}

/* A base the caller loads meanwhile (d2b_convert_file_later_base()) is
 * needed from here on. */
static int get_base(struct conv *c, const struct d2b_base_later *later)
{
	if (later && !later->get) {
		diag__say(&c->diag, D2B_ERROR, "no function to get the base with");
		return -EINVAL;
	}
	if (later && !(c->base = later->get(later->arg))) {
		/* the caller knows why: errbuf says only this */
		if (c->opts.errbuf && c->opts.errlen)
			snprintf(c->opts.errbuf, c->opts.errlen, "no base BTF to convert over");
		return -ECANCELED;
	}
	/* over a base that writes multi-dimensional arrays flat (pahole's),
	 * write ours flat too, or none of the types above them would match */
	if (c->base && !c->opts.flatten_arrays && base_policy__flat_arrays(c->base))
		c->opts.flatten_arrays = true;
	return 0;
}

/* The output BTF, the names base and the merge, before any unit. */
static int start_merge(struct conv *c)
{
	struct dedup_opts dopts = { 0 };
	int err;

	c->res.out = d2b_btf__new(c->base);
	c->res.ds = datasec_set__new();
	if (c->opts.inline_sites)
		c->res.sites = loc_sites__new();
	if (!c->res.out || !c->res.ds || (c->opts.inline_sites && !c->res.sites))
		return -ENOMEM;
	/* the target's data model, whatever the host's and the base's */
	d2b_btf__set_endian(c->res.out,
			    dwarf_file__big_endian(c->src.df) ? D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE);
	d2b_btf__set_pointer_size(c->res.out, dwarf_file__addr_size(c->src.df));
	dopts.append_only = c->opts.no_dedup;
	/* the base's index: on a thread of its own, beside the first units'
	 * walks (base_job_run()) */
	dopts.defer_base_index = c->base && c->opts.jobs > 1;
	/* made while the units were listed (names_job_run()); NULL if .debug_str
	 * is too large to be one, when units keep their strings as their own */
	job_wait(&c->src.names_job);
	dopts.names = c->src.names;
	err = dedup__new(c->res.out, &dopts, &c->m.dd);
	if (!err && dopts.defer_base_index)
		job_start(&c->m.base_job, base_job_run, c, true);
	return err;
}

/* D2B_FUNCS_KERNEL: the ELF function symbols, read and indexed on a thread
 * of their own while this one makes what follows (nothing of libelf). */
static void start_elf_syms(struct conv *c)
{
	struct funcs_job *fj = &c->syms.fj;

	if (c->opts.funcs != D2B_FUNCS_KERNEL)
		return;
	fj->elf = dwarf_file__elf(c->src.df);
	fj->str = die_reader__section(c->src.units.r, DIE_SEC_STR);
	fj->str_size = fj->str ? die_reader__section_size(c->src.units.r, DIE_SEC_STR) : 0;
	job_start(&fj->job, funcs_job_run, fj, c->opts.jobs > 1);
}

/* The ELF function symbols read (start_elf_syms()): the walk's filter. */
static int take_elf_syms(struct conv *c)
{
	struct elf_syms *sy = &c->syms;

	if (sy->fj.err) {
		diag__say(&c->diag, D2B_ERROR,
			  "cannot read the ELF symbol table: %s", strerror(-sy->fj.err));
		return sy->fj.err;
	}
	sy->filter_ef.want = want_elf_func;
	sy->filter_ef.arg = sy->fj.ef;
	if (sy->fj.str_bits) {
		sy->filter_ef.str = sy->fj.str;
		sy->filter_ef.str_size = sy->fj.str_covered;
		sy->filter_ef.str_bits = sy->fj.str_bits;
	}
	if (!elf_funcs__count(sy->fj.ef))
		sy->filter_ef.want = NULL;	/* then every function */
	func_judge__policy(&c->opts, &sy->filter_ef.policy);
	sy->filter = &sy->filter_ef;
	return 0;
}

/* What the walk needs beside the units: the base, the output and its
 * merge, made while the ELF function symbols are read. */
static int start_walk(struct conv *c, const struct d2b_base_later *later)
{
	int err;

	start_elf_syms(c);
	err = get_base(c, later);
	if (!err)
		err = start_merge(c);
	job_wait(&c->syms.fj.job);
	if (!err && c->opts.funcs == D2B_FUNCS_KERNEL)
		err = take_elf_syms(c);
	return err;
}

/* The inline sites (d2b_opts.inline_sites), appended after every other type. */
static int inline_sites(struct conv *c)
{
	struct loc_section *secs;
	struct loc_sites_opts lo = {
		.nr_secs = c->src.nr_secs, .rel = c->src.rel,
		.static_linkage = c->syms.filter && c->syms.filter->policy.static_linkage,
	};
	double t0 = clock_now();
	size_t i;
	int err;

	if (!c->res.sites)
		return 0;
	secs = calloc(lo.nr_secs ? lo.nr_secs : 1, sizeof(*secs));
	if (!secs)
		return -ENOMEM;
	for (i = 0; i < lo.nr_secs; i++) {
		secs[i].name = c->src.secs[i].name;
		secs[i].addr = c->src.sec_addrs ? c->src.sec_addrs[i] : 0;
	}
	lo.secs = secs;
	err = loc_sites__emit(c->res.sites, c->res.out, &lo, &c->diag);
	free(secs);
	c->rep.t_sites = clock_now() - t0;
	return err;
}

/*
 * The merged BTF made whole: the merge finished (forward declarations
 * resolved, the final renumbering), types of no size mended, the kernel's
 * function policy, the DATASECs.
 */
static int finish(struct conv *c)
{
	const uint32_t *final_map = NULL;
	double t0 = clock_now();
	int err;

	err = base_job_join(c);
	if (!err)
		err = dedup__finish(c->m.dd, &final_map);
	if (err) {
		diag__say(&c->diag, D2B_ERROR, "deduplication failed: %s",
			  types_err(dedup__btf(c->m.dd), 1, err));
		return err;
	}
	if (final_map)
		result_remap(&c->res, NULL, final_map);
	c->rep.t_finish = clock_now() - t0;

	t0 = clock_now();
	err = repair_sizeless(c);
	if (!err && c->opts.funcs == D2B_FUNCS_KERNEL)
		err = kernel_funcs(c);
	if (err)
		return err;
	err = datasec_set__emit(c->res.ds, c->res.out, c->src.secs, c->src.nr_secs, &c->diag);
	if (err)
		diag__say(&c->diag, D2B_ERROR, "cannot make the DATASECs: %s",
			  strerror(-err));
	c->rep.t_datasec = clock_now() - t0;
	return err ? err : inline_sites(c);
}

/*
 * The output as the kernel takes it: not empty, with its layout section if
 * asked for, and never what the kernel would refuse (damaged input, or a
 * bug), but for C++ names, which are asked for (cxx_names()).
 */
static int verify(struct conv *c)
{
	/* inline sites: the bpf tree's kinds, which only its kernels know */
	unsigned int locs = c->opts.inline_sites ? D2B_VERIFY_LOC_KINDS : 0;
	double t0 = clock_now();
	int n, err;

	if (!c->base && !d2b_btf__nr_types(c->res.out)) {
		diag__say(&c->diag, D2B_ERROR, "no type to write (the kernel refuses "
			  "an empty BTF): %zu units, %zu left out%s",
			  c->src.units.nr_refs + c->rep.nr_imported, c->rep.units_skipped,
			  c->rep.units_skipped ? " (-v says why)" : "");
		return -ENODATA;
	}
	/* (split BTF carries no layout section: a module's is its base's) */
	if (c->opts.layout && !c->base) {
		err = d2b_btf__set_layout(c->res.out, true);
		if (err) {
			diag__say(&c->diag, D2B_ERROR,
				  "cannot add the layout section: %s", strerror(-err));
			return err;
		}
	}
	n = d2b_btf__verify(c->res.out, (cxx_names(c) ? D2B_VERIFY_CXX_NAMES : 0) | locs,
			    verify_report, c);
	if (n == 0 && cxx_names(c) && d2b_btf__verify(c->res.out, locs, NULL, NULL) > 0)
		diag__say(&c->diag, D2B_NOTICE,
			  "C++ names that are not identifiers: the kernel will not load "
			  "this BTF (without --cxx-names it would)");
	c->rep.t_datasec += clock_now() - t0;
	if (n > 0)
		diag__say(&c->diag, D2B_ERROR,
			  "the BTF made would be refused by the kernel (damaged DWARF?): "
			  "%s%s", c->rep.bad_btf, n > 1 ? " (and more: -v lists them)" : "");
	if (n != 0)
		return n < 0 ? n : -EINVAL;
	/* a base read where it was used (lazy.h): a part of it that could not
	 * be read was missing to the merge, so nothing made over it stands */
	err = btf_lazy_error(c->res.out);
	if (err)
		diag__say(&c->diag, D2B_ERROR, "cannot read the base BTF: %s",
			  strerror(-err));
	return err;
}

/* Every failure says why (the one contract of dwarf2btf.h), but the
 * caller's own: a base it could not load. */
static void say_failure(struct conv *c, int err, const struct d2b_base_later *later)
{
	if (err == -ENOMEM)
		diag__say(&c->diag, D2B_ERROR, "out of memory");
	else if (err < 0 && !c->diag.nr_errors &&
		 !(err == -ECANCELED && later && later->get && !c->base))
		diag__say(&c->diag, D2B_ERROR, "conversion failed: %s",
			  strerror(-err));
}

static void conv_release(struct conv *c)
{
	base_job_join(c);	/* (its dedup is freed below) */
	job_wait(&c->src.names_job);	/* (its names are freed below) */
	job_wait(&c->syms.fj.job);
	dedup__free(c->m.dd);
	datasec_set__free(c->res.ds);
	d2b_btf__free(c->res.out);
	d2b_btf__free(c->src.names);
	free(c->m.map);
	dedup_unit_check__release(&c->m.check);
	free(c->src.secs);
	free(c->res.funcs);
	elf_funcs__free(c->syms.fj.ef);
	free(c->syms.fj.str_bits);
	scheduler__free(c->m.sched);
	job_wait(&c->src.cj.job);
	unit_inputs__release(&c->src.units);
	dwarf_file__free(c->src.df);
	free(c->src.secnames);
	free(c->src.sec_addrs);
	loc_sites__free(c->res.sites);
}

/*
 * The pipeline: open the input, list its units, start the walk (the base,
 * the merge, the side jobs), walk and merge the units, finish the merged
 * BTF, verify it, hand it out.
 */
static int convert(const char *path, const struct mem_input *mem, const struct d2b_btf *base,
		   const struct d2b_base_later *later, const struct d2b_opts *opts,
		   struct d2b_btf **ret)
{
	struct conv c = { .path = path, .base = base };
	double t0 = clock_now();
	int err;

	*ret = NULL;
	err = take_opts(&c, opts);
	if (!err)
		err = open_input(&c, mem);
	if (err)
		return err;	/* (said; nothing to release) */
	err = list_units(&c, base || later);
	if (!err)
		err = start_walk(&c, later);
	c.rep.t_open = clock_now() - t0;	/* all this thread does before the first walk */
	if (!err)
		err = walk_and_merge(&c);
	if (!err)
		err = finish(&c);
	if (!err)
		err = verify(&c);
	if (!err && c.opts.stats)
		report_stats(&c);
	if (!err) {
		*ret = c.res.out;
		c.res.out = NULL;
	}
	say_failure(&c, err, later);
	conv_release(&c);
	return err;
}

int d2b_convert_file(const char *path, const struct d2b_btf *base, const struct d2b_opts *opts,
		     struct d2b_btf **ret)
{
	return convert(path, NULL, base, NULL, opts, ret);
}

int d2b_convert_mem(const void *data, size_t size, const char *name, const struct d2b_btf *base,
		    const struct d2b_opts *opts, struct d2b_btf **ret)
{
	struct mem_input mem = { .data = data, .size = size };

	return convert(name ? name : "(memory)", &mem, base, NULL, opts, ret);
}

int d2b_convert_file_later_base(const char *path, const struct d2b_base_later *later,
				const struct d2b_opts *opts, struct d2b_btf **ret)
{
	static const struct d2b_base_later none;

	return convert(path, NULL, NULL, later ? later : &none, opts, ret);
}
