/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct cu_walk: the translation of one compile unit's DWARF into a
 * standalone BTF (a "unit"), independent of every other unit so that
 * units can be walked on several threads and merged in a fixed order.
 *
 * What a unit holds: every type the CU defines or uses, its functions as
 * FUNC, DECL_TAGs on types and functions.  Variables are not types yet:
 * they are listed in cu_var records (their VAR and DATASEC are made once
 * all units are merged, because DATASECs span units).
 */
#ifndef D2B_CU_WALK_H
#define D2B_CU_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf2btf.h"
#include "base/hmap.h"

struct dwarf_file;

struct cu_var {
	uint32_t name_off;	/* in the unit's strings */
	uint32_t type;		/* unit type ID */
	enum d2b_linkage linkage;
	size_t shndx;
	uint64_t offset;	/* inside the section */
	uint32_t tags_start;	/* decl tag values: tag_offs[tags_start .. +nr_tags] */
	uint32_t nr_tags;
};

struct cu_diag {
	enum d2b_level level;
	uint64_t die_off;
	int tag;
	char *msg;
};

struct cu_walk {
	const struct d2b_opts *opts;
	struct dwarf_file *df;
	Dwarf_Die cu_die;
	const char *cu_name;
	bool big_endian;
	bool skipped;		/* whole unit left out (language) */
	bool has_annotations;	/* the unit's abbrevs can express annotations */
	bool has_v2_type_tags;	/* some type has a btf:type_tag annotation */

	struct d2b_btf *btf;	/* the unit */
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

	struct cu_var *vars;
	size_t nr_vars, vars_cap;
	uint32_t *tag_offs;	/* decl tag values for vars, unit string offsets */
	size_t nr_tag_offs, tag_offs_cap;

	struct cu_diag *diags;
	size_t nr_diags, diags_cap;
	bool oom;		/* a diagnostic could not be recorded */
	bool corrupt;		/* libdw failed to decode a DIE */
};

/* cu_walk.c */
int cu_walk__run(struct cu_walk *w, const struct d2b_opts *opts, struct dwarf_file *df,
		 Dwarf_Die *cu_die);
void cu_walk__release(struct cu_walk *w);
void cu_walk__diag(struct cu_walk *w, enum d2b_level level, Dwarf_Die *die, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Step to die's next sibling: false at the end, and also on a decoding
 * error, which marks the unit corrupt. */
static inline bool cu_walk__next(struct cu_walk *w, Dwarf_Die *die)
{
	int r = dwarf_siblingof(die, die);

	if (r < 0)
		w->corrupt = true;
	return r == 0;
}

/* cu_types.c: the type dispatcher; returns a unit type ID (0 = void) or a
 * negative errno (only for resource errors: bad DWARF yields void and a
 * diagnostic). */
int cu_walk__type(struct cu_walk *w, Dwarf_Die *die);
/* The type named by die's DW_AT_type (void if absent). */
int cu_walk__type_of(struct cu_walk *w, Dwarf_Die *die);
/* Define the composites reserved so far. */
int cu_walk__drain(struct cu_walk *w);
int cu_walk__int(struct cu_walk *w);
/* A FUNC_PROTO from a DIE whose DW_TAG_formal_parameter children are the
 * parameters; names: keep the parameters' names. */
int cu_walk__proto(struct cu_walk *w, Dwarf_Die *die, bool names);

/* cu_decls.c */
int cu_walk__subprogram(struct cu_walk *w, Dwarf_Die *die);
int cu_walk__variable(struct cu_walk *w, Dwarf_Die *die);

/* cu_annot.c: BTF annotations in their three DWARF encodings */
enum annot_kind {
	ANNOT_DECL_TAG,		/* btf_decl_tag: on declarations */
	ANNOT_TYPE_TAG_PTR,	/* btf_type_tag under a pointer: the pointee's tags */
	ANNOT_TYPE_TAG_SELF,	/* btf:type_tag, GCC's type tags: the DIE's own tags */
};

enum { ANNOT_MAX = 64 };	/* tags kept per DIE */

/* Collect die's annotation values of one kind, in source order, storing the
 * first max of them; returns how many there are (possibly more than max). */
int cu_annot__collect(struct cu_walk *w, Dwarf_Die *die, enum annot_kind kind,
		      const char **vals, int max);
/* Add DECL_TAGs for die's btf_decl_tag annotations, on target/idx. */
int cu_annot__decl_tags(struct cu_walk *w, Dwarf_Die *die, uint32_t target, int component_idx);
/* Wrap type in TYPE_TAGs: vals[0] ends up nearest to type. */
int cu_annot__wrap(struct cu_walk *w, uint32_t type, const char **vals, int n);
/* Does the unit use the btf:type_tag form anywhere? */
bool cu_annot__unit_has_v2(struct cu_walk *w, Dwarf_Die *cu_die);

#endif
