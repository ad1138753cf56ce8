/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * lib/unit: one compile unit's DWARF -> one standalone BTF "unit".
 *
 * struct unit is the stage's output, all the merge stage sees: the unit's
 * BTF (every type the CU defines or uses, its functions as FUNC, DECL_TAGs
 * on types and functions; its pointer size the unit's address size), its
 * variables, and its diagnostics.  Units are independent of each other, so
 * they can be walked on several threads and merged in a fixed order.
 *
 * Variables are not types yet: they are unit_var records, whose VAR and
 * DATASEC are made once all units are merged (DATASECs span units).
 * The walker's own state (struct cu, cu.h) stays private to this folder.
 */
#ifndef D2B_UNIT_H
#define D2B_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "base/diag.h"
#include "dwarf2btf.h"
#include "dwarf/die_loc.h"
#include "unit/func_facts.h"

struct dwarf_file;
struct die_reader;
struct unit_walker;

enum { UNIT_MAX_TAGS = 64 };	/* annotations kept per DIE */

struct unit_var {
	uint32_t name_off;	/* in the unit's strings */
	uint32_t type;		/* unit type ID */
	enum d2b_linkage linkage;
	size_t shndx;
	uint64_t offset;	/* inside the section */
	uint32_t tags_start;	/* decl tag values: tag_offs[tags_start .. +nr_tags] */
	uint32_t nr_tags;
};

/*
 * A policy over the unit's functions: which it records (those whose name
 * want() accepts, with code or not; every function with code if want is
 * NULL), and how policy judges each (func_facts.h).  Called from the
 * walking threads: they must only read.
 */
struct unit_func_filter {
	bool (*want)(void *arg, const char *name);
	void *arg;
	/* optional, want()'s answers for the names that start a string of
	 * [str, str + str_size): bit o % 64 of str_bits[o / 64] for the one
	 * at offset o (elf_funcs__mark_names()) */
	const char *str;
	size_t str_size;
	const uint64_t *str_bits;
	struct unit_func_policy policy;
};

/* A function the policy judged */
struct unit_func {
	uint32_t id;		/* the unit's FUNC */
	uint32_t flags;		/* the policy's word for it */
	uint64_t addr;		/* its code's DW_AT_low_pc, 0 if none */
};

/*
 * Inline sites (d2b_opts.inline_sites): each DW_TAG_inlined_subroutine
 * with an address, the function inlined there, and what the DWARF says of
 * each of its parameters at the site's entry address.
 */
struct unit_site_fn {		/* a function inlined in the unit */
	uint32_t name_off;	/* in the unit's strings */
	uint32_t proto;		/* unit type ID: its prototype as declared */
	uint32_t nr_params;	/* the prototype's (varargs included) */
	bool external;		/* DW_AT_external */
};

struct unit_site {
	uint32_t fn;		/* index into unit.site_fns */
	uint32_t locs_start;	/* its parameters: locs[locs_start .. + fn's nr_params) */
	size_t shndx;		/* the ELF section of its entry address */
	uint64_t offset;	/* and the address's offset in it */
	bool at_fn_entry;	/* the entry address is that of the function around it */
};

struct unit_loc {		/* a parameter at a site */
	uint8_t kind;		/* enum die_val_kind; DIE_VAL_NONE: nothing known */
	bool is_signed;		/* DIE_VAL_CONST of a signed operand */
	uint32_t size;		/* the bytes of the parameter's type (0: unknown) */
	uint32_t reg, reg2;	/* DIE_VAL_ADDR: reg is the address's ELF section */
	uint64_t value;		/* constant; offset (MEM, REG_OFF, as int64_t); ADDR:
				 * the offset in its section */
};

/*
 * A unit to walk: a compile unit of the file, a partial unit (dwz) some
 * walked unit imports, or a skeleton's split unit (its .dwo file's or
 * package's reader, and the skeleton's DW_AT_addr_base).
 */
struct unit_ref {
	const struct die_reader *r;
	uint64_t off;		/* the unit's header in r's .debug_info(.dwo) */
	bool split;		/* addr_base is the skeleton's */
	uint64_t addr_base;
	/* a partial unit without DW_AT_language (dwz writes none): its
	 * importer's, + 1 (0: none) */
	unsigned int lang;
};

struct unit {
	const char *name;	/* DW_AT_name of the CU, or NULL */
	struct d2b_btf *btf;	/* the unit's types, IDs from 1 */
	bool skipped;		/* whole unit left out (language) */
	bool cxx;		/* a C++ unit (its names may be C++'s) */

	struct unit_var *vars;
	size_t nr_vars, vars_cap;
	uint32_t *tag_offs;	/* decl tag values for vars, unit string offsets */
	size_t nr_tag_offs, tag_offs_cap;

	struct unit_func *funcs;	/* with a policy (unit_func_filter) only */
	size_t nr_funcs, funcs_cap;

	struct unit_site_fn *site_fns;	/* inline sites (d2b_opts.inline_sites) */
	size_t nr_site_fns, site_fns_cap;
	struct unit_site *sites;
	size_t nr_sites, sites_cap;
	struct unit_loc *locs;
	size_t nr_locs, locs_cap;

	struct diag diag;	/* its messages, kept to be said as it is merged */

	/* the partial units its DW_TAG_imported_unit DIEs name, in order */
	struct unit_ref *imports;
	size_t nr_imports, imports_cap;
};

/*
 * What one thread walks units with: the DIE readers of df's file (r) and
 * of its dwz supplementary file (alt, or NULL), shared by all threads, and
 * the thread's own scratch, kept from one unit to the next.
 */
int unit_walker__new(struct dwarf_file *df, const struct die_reader *r,
		     const struct die_reader *alt, struct unit_walker **ret);
void unit_walker__free(struct unit_walker *uw);
/*
 * Walk units into BTFs split over base (when not over names): the base's
 * strings are then found as the units are built, in the walkers' threads,
 * not mapped again by the merge.
 */
void unit_walker__set_base(struct unit_walker *uw, const struct d2b_btf *base);
/*
 * Walk units into BTFs over names (a string-only base, btf_new_names() of
 * the file's .debug_str at str, len bytes), which then need not copy or
 * hash the names they share.  -ENOMEM.
 */
int unit_walker__set_names(struct unit_walker *uw, const struct d2b_btf *names, const char *str,
			   size_t len);

/*
 * Walk the unit ref names into u (overwritten); filter may be NULL.
 * Returns 0, or a negative errno: -ENOMEM, or -EBADMSG for a unit that
 * cannot be decoded (with an error diagnostic in u).  u must be released
 * either way.
 */
int unit__walk(struct unit *u, const struct d2b_opts *opts,
	       const struct unit_func_filter *filter, struct unit_walker *uw,
	       const struct unit_ref *ref);
void unit__release(struct unit *u);

#endif
