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
};

struct conv {
	/* the input */
	const char *path;
	const struct d2b_opts *opts;
	struct dwarf_file *df;
	struct unit_inputs in;		/* the DIE readers, the first units to walk */
	struct datasec_section *secs;	/* the input's sections, by index */
	size_t nr_secs;
	struct elf_funcs *ef;		/* D2B_FUNCS_KERNEL: the ELF function symbols */
	struct unit_func_filter filter_ef;
	const struct unit_func_filter *filter;	/* D2B_FUNCS_KERNEL: &filter_ef */
	uint64_t *str_bits;	/* filter_ef's, or NULL */
	struct d2b_btf *names;		/* string-only base over .debug_str, or NULL */
	struct pages_behind behind;	/* merged units' .debug_info pages, dropped */

	/* the rounds of units: the file's compile units, then the partial
	 * units they import, then those these import, ... */
	struct scheduler *sched;	/* walks them (scheduler.c) */
	struct unit_ref *imports;	/* the next round's */
	size_t nr_imports, imports_cap;
	struct hmap imported;		/* partial units met: hash -> index in seen */
	struct unit_ref *seen;
	size_t nr_seen, seen_cap;

	/* the merge */
	struct dedup *dd;
	uint32_t *map;			/* a unit's or a group's IDs into dd's */
	size_t map_cap;
	struct dedup_unit_check check;	/* of a unit this thread walked itself */
	/* split BTF: the base's index, made beside the first walks */
	struct job base_job;
	int base_job_err;
	struct job names_job;		/* makes names: names_job_run() */

	struct result res;

	/* what is said at the end */
	char bad_btf[512];		/* the first kernel rule the output breaks */
	bool has_cxx;			/* some unit was C++ */
	unsigned int nr_errors;		/* D2B_ERROR diagnostics given */
	size_t units_skipped;
};

static void conv_diag(struct conv *c, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
		      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void conv_diag(struct conv *c, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
		      const char *fmt, ...)
{
	struct d2b_diag d = {
		.level = level, .file = c->path, .cu = cu, .die_off = die_off, .tag = tag,
	};
	/* the first error is the failed conversion's message (opts->errbuf) */
	bool keep = level == D2B_ERROR && !c->nr_errors++ && c->opts->errbuf && c->opts->errlen;
	char buf[1024];
	va_list ap;

	if (!c->opts->diag && !keep)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (keep && die_off != UINT64_MAX)
		snprintf(c->opts->errbuf, c->opts->errlen, "%s%sDIE 0x%" PRIx64 ": %s", cu ?: "",
			 cu ? ": " : "", die_off, buf);
	else if (keep)
		snprintf(c->opts->errbuf, c->opts->errlen, "%s", buf);
	d.msg = buf;
	if (c->opts->diag)
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
		const char *secname = v->shndx < c->nr_secs ? c->secs[v->shndx].name : NULL;
		const char *name = strs ? strs + v->name_off : d2b_btf__str(w->btf, v->name_off);
		uint32_t t, off;

		if (!var_policy__wanted(c->opts->vars, name, secname))
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
	err = VEC_RESERVE(c->map, c->map_cap, 0, d2b_btf__end_id(w->btf));
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

/* scheduler_ops: a group whose units are merged into gd, into the output */
static int merge_group(void *arg, struct dedup *gd, const struct unit *first, const uint32_t **map)
{
	struct conv *c = arg;
	int err;

	err = VEC_RESERVE(c->map, c->map_cap, 0, d2b_btf__end_id(dedup__btf(gd)));
	if (!err)
		err = dedup__add_group(c->dd, gd, c->map);
	if (err == -EAGAIN)
		return err;	/* (its units are merged one by one) */
	if (err)
		return merge_failed(c, first, err);
	*map = c->map;
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
		return merge_failed(c, w, err);
	return map ? unit_records(c, w, map, strs) : 0;
}

/* scheduler_ops */
static void scheduler_note(void *arg, const char *msg)
{
	conv_diag(arg, D2B_INFO, NULL, UINT64_MAX, 0, "%s", msg);
}

/*
 * Walk and merge the file's units, then round by round the partial units
 * the last round imported, until a round imports nothing new.
 */
static int walk_all(struct conv *c)
{
	static const struct scheduler_ops ops = {
		.merge_unit = merge_unit,
		.merge_group = merge_group,
		.group_unit = group_unit,
		.note = scheduler_note,
	};
	struct scheduler_input si = {
		.opts = c->opts, .filter = c->filter, .df = c->df, .r = c->in.r, .alt = c->in.alt,
		.names = c->names, .base = d2b_btf__base(c->res.out), .dd = c->dd,
		.behind = &c->behind, .ops = &ops, .arg = c,
	};
	struct unit_ref *round = NULL;
	int err;

	err = scheduler__new(&si, &c->sched);
	if (!err)
		err = scheduler__run(c->sched, c->in.refs, c->in.nr_refs, true);
	while (!err && c->nr_imports) {
		size_t n = c->nr_imports;

		free(round);
		round = c->imports;
		c->imports = NULL;
		c->nr_imports = c->imports_cap = 0;
		err = scheduler__run(c->sched, round, n, false);
	}
	free(round);
	return err;
}

static void report_stats(struct conv *c, double t_open, double t_finish, double t_datasec)
{
	struct dedup_stats st;
	struct scheduler_stats ss;
	uint64_t out[D2B_KIND_MAX + 1] = { 0 };
	unsigned int k;
	uint32_t id;

	scheduler__stats(c->sched, &ss);

	conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0, "units: %zu (%zu left out), jobs: %u, merged %s",
		  c->in.nr_refs + c->nr_seen, c->units_skipped, c->opts->jobs > 1 ? c->opts->jobs : 1,
		  !ss.grouped ? "one by one" : ss.disagreed ? "in groups, then one by one" : "in groups");
	if (ss.disagreed)
		conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0,
			  "groups: %zu, the units of %zu of them merged one by one (they disagreed)",
			  ss.grouped, ss.grouped - ss.resume_group);
	conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0,
		  "time: open %.3fs, walk %.3fs, merge %.3fs, finish %.3fs, datasec %.3fs; peak RSS %ld MiB",
		  t_open, ss.t_walk, ss.t_merge, t_finish, t_datasec, peak_rss_kb() / 1024);
	dedup__stats(c->dd, &st);
	for (k = 0; k < 3; k++) {
		static const char *const what[3] = {
			"merge steps", "merge of the groups", "final merge (in finish)",
		};
		const double *s = k == 2 ? st.final_s : k ? st.group_s : st.unit_s;

		if (k == 1 && !ss.grouped)
			continue;
		conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0,
			  "%s: setup %.3fs, primitives %.3fs, structs %.3fs, references %.3fs, "
			  "append %.3fs, index %.3fs", what[k],
			  s[DEDUP_STEP_SETUP], s[DEDUP_STEP_PRIMS], s[DEDUP_STEP_COMPOSITES],
			  s[DEDUP_STEP_REFS], s[DEDUP_STEP_APPEND], s[DEDUP_STEP_INDEX]);
	}
	for (id = d2b_btf__start_id(c->res.out); id < d2b_btf__end_id(c->res.out); id++)
		out[d2b_kind(d2b_btf__type(c->res.out, id))]++;
	for (k = 1; k <= D2B_KIND_MAX; k++) {
		if (!st.in[k] && !out[k])
			continue;
		conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0, "%-10s %10llu in units, %8llu in output",
			  d2b_kind_name(k), (unsigned long long)st.in[k], (unsigned long long)out[k]);
	}
	conv_diag(c, D2B_STATS, NULL, UINT64_MAX, 0, "output: %u types", d2b_btf__nr_types(c->res.out));
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
	c->res.out = d2b_btf__new(base);
	c->res.ds = datasec_set__new();
	if (!c->res.out || !c->res.ds)
		return -ENOMEM;
	/* the target's data model, whatever the host's and the base's */
	d2b_btf__set_endian(c->res.out,
			    dwarf_file__big_endian(c->df) ? D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE);
	d2b_btf__set_pointer_size(c->res.out, dwarf_file__addr_size(c->df));
	dopts->append_only = c->opts->no_dedup;
	/* the base's index: on a thread of its own, beside the first units'
	 * walks (d2b_convert_file()) */
	dopts->defer_base_index = base && c->opts->jobs > 1;
	/* made while the units were listed (names_job_run()); NULL if .debug_str
	 * is too large to be one, when units keep their strings as their own */
	job_wait(&c->names_job);
	dopts->names = c->names;
	return dedup__new(c->res.out, dopts, &c->dd);
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

enum {
	/* with this many function names (a kernel's tens of thousands, far
	 * more than any module has), the names of .debug_str are marked at
	 * once (elf_funcs__mark_names()), where each lookup would miss the
	 * caches; with fewer, the lookups cost less than the pass over the
	 * strings, whose length does not shrink with the number of functions
	 * (the figures: tests/bench/README) */
	MARK_NAMES_MIN_FUNCS = 8192,
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
	for (i = 0; i < r->nr_funcs; i++)
		r->funcs[i].id = map[r->funcs[i].id];
}

/* Leave out the FUNCs drop marks, with what only they used (prune__funcs()):
 * the rest renumbered, *ret_map the renumbering (malloc()ed). */
static int result_prune(struct result *r, uint8_t *drop, uint32_t **ret_map)
{
	struct d2b_btf *pruned;
	int err = prune__funcs(r->out, drop, &pruned, ret_map);

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
	struct elf_funcs *ef = c->ef;
	uint8_t *drop = NULL;
	int err;

	drop = calloc(n ? n : 1, 1);
	if (!drop) {
		err = -ENOMEM;
		goto out;
	}
	func_policy_opts__init(&po, c->opts);
	po.copies = &copies;
	po.renames = &renames;
	err = func_policy__select(c->res.out, c->res.funcs, c->res.nr_funcs, ef, &po,
				  drop, datasec_note, c, c->opts->kfunc_tags ? &kfuncs : NULL);
	if (err >= 0 && renames.nr)
		err = func_policy__rename(c->res.out, &renames) ?: err;
	if (err > 0) {
		err = result_prune(&c->res, drop, &map);
		if (err)
			goto out;
	}
	if (err >= 0 && c->opts->kfunc_tags)
		func_kfuncs__remap(&kfuncs, map);
	if (err >= 0)
		err = func_policy__add_copies(c->res.out, &copies,
					       c->opts->kfunc_tags ? &kfuncs : NULL) ?: err;
	if (err >= 0 && c->opts->kfunc_tags)
		err = func_policy__tag_kfuncs(c->res.out, &kfuncs, !c->opts->skip_decl_tags,
					      c->opts->kfunc_attributes);
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

	err = sizeless__repair(c->res.out, &drop, datasec_note, c);
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

/*
 * Closing the input (the DIE readers, libdw's and libelf's state: for a
 * large file, mostly libdw freeing its caches, which grow with it), on a
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

/* An input in memory (d2b_convert_mem()); path is then its name. */
struct mem_input {
	const void *data;
	size_t size;
};

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

static int convert(const char *path, const struct mem_input *mem, const struct d2b_btf *base,
		   const struct d2b_base_later *later, const struct d2b_opts *opts,
		   struct d2b_btf **ret)
{
	struct d2b_opts o;
	struct dedup_opts dopts = { 0 };
	struct conv c = { .path = path, .opts = &o };
	const uint32_t *final_map = NULL;
	double t0 = clock_now(), t_open, t_finish, t_datasec;
	struct funcs_job fj = { 0 };
	struct close_job cj = { 0 };
	char *secnames = NULL;
	char errbuf[256];
	size_t shndx;
	int n;
	uint64_t off;
	int err;

	*ret = NULL;
	err = opts_take(opts, &o);
	if (o.errbuf && o.errlen)
		o.errbuf[0] = '\0';
	if (err) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "options of %zu bytes with fields "
			  "this library (%zu bytes) does not know set", opts->sz, sizeof(o));
		return err;
	}
	if (!func_policy__known(o.kernel_policy)) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "unknown kernel policy %d",
			  (int)o.kernel_policy);
		return -EINVAL;
	}
	if (mem)
		err = dwarf_file__open_mem(mem->data, mem->size, path, &c.df, errbuf, sizeof(errbuf));
	else
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
		fj.str = die_reader__section(c.in.r, DIE_SEC_STR);
		fj.str_size = fj.str ? die_reader__section_size(c.in.r, DIE_SEC_STR) : 0;
		job_start(&fj.job, funcs_job_run, &fj, c.opts->jobs > 1);
	}
	/* a base loaded meanwhile by the caller is needed from here on */
	if (later && !later->get) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "no function to get the base with");
		err = -EINVAL;
	} else if (later && !(base = later->get(later->arg))) {
		err = -ECANCELED;	/* the caller knows why: errbuf says only this */
		if (o.errbuf && o.errlen)
			snprintf(o.errbuf, o.errlen, "no base BTF to convert over");
	}
	if (base && !o.flatten_arrays && base_policy__flat_arrays(base))
		o.flatten_arrays = true;
	if (!err)
		err = make_out(&c, base, &dopts);
	if (!err && dopts.defer_base_index)
		job_start(&c.base_job, base_job_run, &c, true);
	if (c.opts->funcs == D2B_FUNCS_KERNEL) {
		job_wait(&fj.job);
		c.ef = fj.ef;
		c.str_bits = fj.str_bits;
		if (fj.err && !err) {
			conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0,
				  "cannot read the ELF symbol table: %s", strerror(-fj.err));
			err = fj.err;
		}
		if (!err) {
			c.filter_ef.want = want_elf_func;
			c.filter_ef.arg = c.ef;
			if (fj.str_bits) {
				c.filter_ef.str = fj.str;
				c.filter_ef.str_size = fj.str_covered;
				c.filter_ef.str_bits = c.str_bits;
			}
			if (!elf_funcs__count(c.ef))
				c.filter_ef.want = NULL;	/* then every function */
			func_judge__policy(c.opts, &c.filter_ef.policy);
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
		result_remap(&c.res, NULL, final_map);
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
	err = datasec_set__emit(c.res.ds, c.res.out, c.secs, c.nr_secs, datasec_note, &c);
	if (err) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "cannot make the DATASECs: %s",
			  strerror(-err));
		goto out;
	}
	if (!base && !d2b_btf__nr_types(c.res.out)) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "no type to write (the kernel refuses "
			  "an empty BTF): %zu units, %zu left out%s", c.in.nr_refs + c.nr_seen,
			  c.units_skipped, c.units_skipped ? " (-v says why)" : "");
		err = -ENODATA;
		goto out;
	}
	/* (split BTF carries no layout section: a module's is its base's) */
	if (c.opts->layout && !base) {
		err = d2b_btf__set_layout(c.res.out, true);
		if (err) {
			conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "cannot add the layout section: %s",
				  strerror(-err));
			goto out;
		}
	}
	/* never hand on BTF the kernel would refuse (damaged input, or a bug),
	 * but for C++ names, which are asked for (cxx_names) */
	n = d2b_btf__verify(c.res.out, cxx_names(&c) ? D2B_VERIFY_CXX_NAMES : 0, verify_report, &c);
	if (n == 0 && cxx_names(&c) && d2b_btf__verify(c.res.out, 0, NULL, NULL) > 0)
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
	/* a base read where it was used (lazy.h): a part of it that could not
	 * be read was missing to the merge, so nothing made over it stands */
	err = btf_lazy_error(c.res.out);
	if (err) {
		conv_diag(&c, D2B_ERROR, NULL, UINT64_MAX, 0, "cannot read the base BTF: %s",
			  strerror(-err));
		goto out;
	}
	if (c.opts->stats)
		report_stats(&c, t_open, t_finish, t_datasec);
	*ret = c.res.out;
	c.res.out = NULL;
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
	datasec_set__free(c.res.ds);
	d2b_btf__free(c.res.out);
	d2b_btf__free(c.names);
	free(c.map);
	dedup_unit_check__release(&c.check);
	free(c.secs);
	free(c.res.funcs);
	elf_funcs__free(c.ef);
	free(c.str_bits);
	scheduler__free(c.sched);
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
