/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct cu: the walker's private state while one compile unit becomes a
 * struct unit.  Private to lib/unit; the files below it call each other
 * only downwards:
 *
 *	unit.c       the driver: language, top-level DIEs, local types
 *	cu_decls.c   functions and variables          (uses cu_types, cu_annot)
 *	cu_types.c   the type dispatcher, one translator per tag (uses cu_annot)
 *	cu_annot.c   annotations in their three DWARF encodings
 *	cu.c         diagnostics and sibling stepping (used by all)
 */
#ifndef D2B_UNIT_CU_H
#define D2B_UNIT_CU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf2btf.h"
#include "base/hmap.h"
#include "unit/unit.h"

struct dwarf_file;

/* Nesting a file may ask us to follow: deeper DIEs are cut off. */
enum {
	CU_MAX_SCOPE_DEPTH = 32,	/* lexical blocks holding local types */
	CU_MAX_REF_HOPS = 8,		/* DW_AT_abstract_origin/specification chains */
	CU_MAX_ABBREVS = 100000,	/* abbreviations scanned for annotations */
};

struct cu {
	const struct d2b_opts *opts;
	struct dwarf_file *df;
	struct unit *u;		/* the output */
	const struct unit_func_filter *func_filter;	/* or NULL */
	struct d2b_btf *btf;	/* u->btf */
	Dwarf_Die cu_die;
	bool big_endian;
	unsigned int ptr_size;	/* the unit's address size: 4 or 8 bytes */
	bool has_annotations;	/* the unit's abbrevs can express annotations */
	bool has_v2_type_tags;	/* some type has a btf:type_tag annotation */
	bool corrupt;		/* libdw failed to decode a DIE */

	/* DW_OP_reg* of the ABI's integer parameter registers, in order */
	int reg_params[8];
	int nr_reg_params;

	struct hmap die_map;	/* DIE address -> type ID (or IN_PROGRESS) */
	uint32_t int_id;	/* "int", the array index type, made on demand */
	int depth;

	/* composites reserved but not yet defined: a worklist, so that long
	 * pointer chains between structs never recurse deeply */
	struct cu_pending {
		Dwarf_Die die;
		uint32_t id;
	} *pending;
	size_t nr_pending, pending_cap;
};

/* Record a diagnostic in the unit (die may be NULL). */
void cu__diag(struct cu *w, enum d2b_level level, Dwarf_Die *die, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Step to die's next sibling: false at the end, and also on a decoding
 * error, which marks the unit corrupt. */
static inline bool cu__next(struct cu *w, Dwarf_Die *die)
{
	int r = dwarf_siblingof(die, die);

	if (r < 0)
		w->corrupt = true;
	return r == 0;
}

#endif
