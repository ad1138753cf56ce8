/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct unit_inputs: what a file's DWARF is made of, ready to walk: the
 * file's DIE reader, the dwz supplementary file's, the split units behind
 * its skeletons, and the list of units to walk first.  Theory in
 * unit_inputs.c.
 */
#ifndef D2B_UNIT_INPUTS_H
#define D2B_UNIT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "dwarf2btf.h"
#include "unit/unit.h"

struct diag;
struct dwarf_file;
struct aux_file;
struct unit_opener;
struct split_set;

struct unit_inputs {
	struct die_reader *r;		/* the file's */
	struct die_reader *alt;		/* the supplementary file's, or NULL */
	struct unit_ref *refs;		/* compile units and split units, in file order */
	size_t nr_refs;
	size_t nr_partial;		/* partial units: walked when imported */
	size_t nr_other;		/* type units */
	size_t nr_missing;		/* units left out: their .dwo is missing */
	/* private */
	struct unit_opener *o;		/* between open and list */
	struct aux_file *alt_file;
	struct split_set *split;
	size_t cap_refs;
};

/*
 * Make the readers of df's DWARF and of the supplementary file
 * (opts: debug_dirs, allow_missing_debug), then, with unit_inputs__list(),
 * read the units and find the files they need.  Between the two, work
 * that reads only in->r's sections may run on other threads.  Call both
 * before any thread uses df (but the listing's own, if thread: our
 * reader's listing beside libdw's).  Problems (D2B_ERROR: the call fails)
 * and notes are said through diag; on failure a D2B_ERROR has said why
 * (-ENOMEM excepted).  Release in any case.
 */
int unit_inputs__open(struct unit_inputs *in, struct dwarf_file *df, const struct d2b_opts *opts,
		      struct diag *diag);
int unit_inputs__list(struct unit_inputs *in, bool thread);
void unit_inputs__release(struct unit_inputs *in);
/* Move in's readers and files to *ret (to release there); in keeps its
 * counts only. */
void unit_inputs__take(struct unit_inputs *in, struct unit_inputs *ret);

#endif
