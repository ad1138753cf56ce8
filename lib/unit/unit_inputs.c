// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which units are walked, and with what.
 *
 * A file's .debug_info holds four kinds of units (libdw lists them; our
 * reader decides the kind, DWARF 4's GNU forms included):
 *   compile units	walked;
 *   skeleton units	(-gsplit-dwarf) stand for a split unit in a .dwo file
 *			or a .dwp package: split_set.c finds it, and the split
 *			unit is walked in the skeleton's place, with its
 *			skeleton's address base;
 *   partial units	(dwz) hold DIEs several units share; they are walked
 *			only when a walked unit imports them
 *			(DW_TAG_imported_unit), once however many import them:
 *			convert.c walks them after their importers.  Partial
 *			units of the supplementary file (dwz -m, named by
 *			.gnu_debugaltlink or .debug_sup) are met the same way:
 *			it holds the shared DIEs of several programs, and only
 *			those this file imports belong to its BTF;
 *   type units		reached through their signatures only.
 *
 * Missing pieces are errors that name what is missing and every place it
 * was looked for (aux_file.c).  With allow_missing_debug they are warnings
 * instead: a compile unit whose .dwo is missing is left out, and without
 * the supplementary file the references into it lead nowhere (the walker
 * says so for each), so its types are left out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "base/diag.h"
#include "base/job.h"
#include "base/pages.h"
#include "base/vec.h"
#include "dwarf/aux_file.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"
#include "dwarf/split_set.h"
#include "unit/unit_inputs.h"

struct unit_opener {
	struct unit_inputs *in;
	struct dwarf_file *df;
	const struct d2b_opts *opts;
	struct aux_dirs dirs;
	const char *path;		/* the file given */
	struct diag *diag;
	struct diag why;		/* held: why a reader or a file failed, to word */
};

static void opener_free(struct unit_opener *o)
{
	if (!o)
		return;
	diag__release(&o->why);
	free(o);
}

__attribute__((format(printf, 3, 4)))
static void note(struct unit_opener *o, enum d2b_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(o->diag, level, NULL, UINT64_MAX, 0, fmt, ap);
	va_end(ap);
}

/* A piece is missing: an error, or with allow_missing_debug a note. */
static int missing(struct unit_opener *o, const char *what, const char *left_out)
{
	if (!o->opts->allow_missing_debug) {
		note(o, D2B_ERROR, "%s (--allow-missing-debug converts the rest)", what);
		return -ENOENT;
	}
	note(o, D2B_NOTICE, "%s: %s left out", what, left_out);
	return 0;
}

static int open_alt(struct unit_opener *o)
{
	struct unit_inputs *in = o->in;
	Elf *elf = dwarf_getelf(dwarf_file__dwarf(o->df));
	int err;

	err = aux_file__open_alt(elf, dwarf_file__debug_path(o->df), &o->dirs, &o->why,
				 &in->alt_file);
	if (err == -ENOENT)
		return missing(o, diag__last(&o->why), "the types it holds are");
	if (err == -ENOMEM)
		return err;
	if (err) {
		note(o, D2B_ERROR, "%s", diag__last(&o->why));
		return err;
	}
	if (!in->alt_file)
		return 0;
	err = die_reader__from_elf(aux_file__elf(in->alt_file), &o->why, &in->alt);
	if (err)
		note(o, D2B_ERROR, "supplementary file %s: %s", aux_file__path(in->alt_file),
		     diag__last(&o->why));
	return err;
}

static int add_ref(struct unit_inputs *in, const struct unit_ref *ref)
{
	int err = VEC_RESERVE(in->refs, in->cap_refs, in->nr_refs, 1);

	if (!err)
		in->refs[in->nr_refs++] = *ref;
	return err;
}

/* A skeleton: its split unit in its place. */
static int add_split(struct unit_opener *o, struct die_unit *skeleton, Dwarf_Die *skeleton_die)
{
	struct unit_inputs *in = o->in;
	struct split_unit su;
	char why[256];
	int err;

	if (!in->split) {
		err = split_set__new(in->r, o->path, &o->dirs, &o->why, &in->split);
		if (err) {
			if (err != -ENOMEM)
				note(o, D2B_ERROR, "%s", diag__last(&o->why));
			return err;
		}
	}
	err = split_set__find(in->split, skeleton, &o->why, &su);
	if (err == -ENOENT) {
		in->nr_missing++;
		snprintf(why, sizeof(why), "its compile unit (skeleton at 0x%llx) is",
			 (unsigned long long)die_unit__header(skeleton)->off);
		return missing(o, diag__last(&o->why), why);
	}
	if (err) {
		if (err != -ENOMEM)
			note(o, D2B_ERROR, "%s", diag__last(&o->why));
		return err;
	}
	split_set__lend_libdw(in->split, skeleton_die, &su);
	return add_ref(in, &(struct unit_ref){
		.r = su.r, .off = su.off, .split = true, .addr_base = su.addr_base,
	});
}

/*
 * The kernel's consistent_func checks the registers of parameters, whose
 * location lists libdw reads: a split unit that libdw did not find itself
 * (in a package, or by --debug-dir) goes unchecked.
 */
static void note_unchecked(struct unit_opener *o)
{
	size_t i, n = 0;

	if (o->opts->funcs != D2B_FUNCS_KERNEL || !o->opts->consistent_funcs)
		return;
	for (i = 0; i < o->in->nr_refs; i++)
		n += o->in->refs[i].split && !die_reader__dwarf(o->in->refs[i].r);
	if (n)
		note(o, D2B_WARN, "%zu split units read without libdw (in a package, or found "
		     "by --debug-dir): consistent_func does not check their parameters' "
		     "registers", n);
}

/* die_reader__list_units(), as a job */
struct list_job {
	struct job job;
	struct die_reader *r;
	int err;
};

static void list_job_run(void *arg)
{
	struct list_job *lj = arg;

	lj->err = die_reader__list_units(lj->r);
}

/*
 * Sort the units libdw lists by kind (the theory above).  Our reader lists
 * them too, for references between units, beside libdw if thread.
 */
static int list_units(struct unit_opener *o, bool thread)
{
	struct unit_inputs *in = o->in;
	struct list_job lj = { .r = in->r };
	struct dwarf_units units;
	struct die_unit *du = NULL;
	struct pages_behind behind;
	size_t i;
	int err;

	job_start(&lj.job, list_job_run, &lj, thread);
	/* libdw's .debug_info is the reader's, as libelf mapped it */
	die_reader__behind(in->r, DIE_SEC_INFO, &behind);
	err = dwarf_file__units(o->df, &units, &in->nr_other, &behind);
	pages_behind__all(&behind);
	job_wait(&lj.job);
	if (err) {	/* (units holds nothing then) */
		note(o, D2B_ERROR, "cannot read compile units: %s", dwarf_errmsg(-1));
		return err;
	}
	if (lj.err) {
		free(units.dies);
		free(units.types);
		return lj.err;
	}
	err = die_unit__new(in->r, NULL, &du);	/* (the walk says what is wrong) */
	for (i = 0; !err && i < units.nr; i++) {
		Dwarf_Die *d = &units.dies[i];
		struct unit_ref ref = { .r = in->r, .off = dwarf_dieoffset(d) - dwarf_cuoffset(d) };

		if (units.types[i] == DW_UT_partial) {
			in->nr_partial++;
			continue;
		}
		/* a skeleton that does not load is walked: the walk says what is wrong */
		if (units.types[i] == DW_UT_skeleton &&
		    die_unit__load(du, DIE_SEC_INFO, ref.off) == 0 &&
		    die_unit__header(du)->unit_type == DW_UT_skeleton) {
			err = add_split(o, du, d);
			continue;
		}
		err = add_ref(in, &ref);
	}
	die_unit__free(du);
	free(units.dies);
	free(units.types);
	if (!err)
		note_unchecked(o);
	return err;
}

int unit_inputs__open(struct unit_inputs *in, struct dwarf_file *df, const struct d2b_opts *opts,
		      struct diag *diag)
{
	struct unit_opener *o;
	int err;

	memset(in, 0, sizeof(*in));
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	*o = (struct unit_opener){
		.in = in, .df = df, .opts = opts, .diag = diag,
		.dirs = { opts->debug_dirs, opts->nr_debug_dirs },
	};
	diag__init_held(&o->why);
	o->path = dwarf_file__main_path(df);
	in->o = o;
	/* the DIE readers first: they may inflate sections libdw left compressed */
	err = die_reader__from_dwarf_unlisted(dwarf_file__dwarf(df), diag, &in->r);
	if (!err)
		err = open_alt(o);
	return err;
}

int unit_inputs__list(struct unit_inputs *in, bool thread)
{
	int err;

	if (!in->o || !in->r)
		return -EINVAL;
	err = list_units(in->o, thread);
	opener_free(in->o);
	in->o = NULL;
	return err;
}

void unit_inputs__take(struct unit_inputs *in, struct unit_inputs *ret)
{
	*ret = *in;
	in->r = NULL;
	in->alt = NULL;
	in->refs = NULL;
	in->cap_refs = 0;
	in->alt_file = NULL;
	in->split = NULL;
	in->o = NULL;
}

void unit_inputs__release(struct unit_inputs *in)
{
	opener_free(in->o);
	free(in->refs);
	split_set__free(in->split);
	die_reader__free(in->alt);
	aux_file__free(in->alt_file);
	die_reader__free(in->r);
	memset(in, 0, sizeof(*in));
}
