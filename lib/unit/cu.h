/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct cu: the walker's private state while one compile unit becomes a
 * struct unit.  Private to lib/unit; the files below it call each other
 * only downwards:
 *
 *	unit.c       the driver: language, top-level DIEs, local types
 *	cu_decls.c   functions and variables          (uses func_facts, cu_types, cu_annot)
 *	cu_sites.c   a function's inline sites        (uses cu_types)
 *	func_facts.c a function's facts, as its policy asks (uses cu_types)
 *	cu_types.c   the type dispatcher, one translator per tag (uses cu_annot)
 *	cu_annot.c   annotations in their three DWARF encodings
 *	cu_scope.c   names: C++ scopes, kernel-valid names  (used by cu_types, cu_decls)
 *	cu.c         diagnostics and reading DIEs (used by all)
 *
 * DIEs are read with our own reader (lib/dwarf/die_reader.h), not libdw:
 * struct cu_die is a DIE and the die_unit it was read with.  That is the
 * unit walked, or, for a reference that leaves it (DW_FORM_ref_addr into
 * another unit, a type unit's signature, the dwz file), another unit that
 * cu.c loads.  libdw reads only location lists (and lists the units).
 */
#ifndef D2B_UNIT_CU_H
#define D2B_UNIT_CU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf2btf.h"
#include "base/diag.h"
#include "base/hmap.h"
#include "btf/str_adder.h"
#include "dwarf/die_reader.h"
#include "unit/unit.h"

struct dwarf_file;

/* Nesting a file may ask us to follow: deeper DIEs are cut off. */
enum {
	CU_MAX_SCOPE_DEPTH = 32,	/* lexical blocks holding local types */
	CU_MAX_REF_HOPS = 8,		/* DW_AT_abstract_origin/specification chains */
	CU_MAX_INTEGRATE = 16,		/* DIEs dwarf_attr_integrate() looks at */
	CU_MAX_FAR_KEPT = 256,		/* other units kept loaded between units */
	/*
	 * Child and sibling steps a walk may take per byte of the units it
	 * reads.  A walk meets each DIE a few times (the passes over a
	 * struct's members, a declaration's parameters for each definition),
	 * fewer than one per byte on the whole; a DW_AT_sibling that points
	 * into its own DIE's subtree makes walks meet DIEs again and again,
	 * quadratically or exponentially in the nesting, and is cut off here.
	 */
	CU_STEPS_PER_BYTE = 16,
};

/* A DIE and the die_unit it is valid with. */
struct cu_die {
	struct die d;
	struct die_unit *du;
};

/* Another unit a reference led to, loaded in a die_unit of its own. */
struct cu_far {
	struct die_unit *du;
	const struct die_reader *r;
	enum die_section sec;
	uint64_t off;		/* its header; UINT64_MAX: nothing loaded */
};

/*
 * A function's DIEs, read once for the several passes over them
 * (cu_decls.c, func_facts.c, unit.c's walk of its local types).
 */
struct cu_fn_scratch {
	/* the parameters (and varargs) of params_of, the declaring DIE of
	 * the function cu_decls.c converts (cu_decls__subprogram() only) */
	struct cu_die *params;
	size_t nr_params, params_cap;
	struct cu_die params_of;
	/* the same read's lexical blocks and types of locals_of (params_of,
	 * where it is the function's own DIE), for unit.c to walk for local
	 * types next; locals_of.du is NULL once they are walked */
	struct cu_die *locals;
	size_t nr_locals, locals_cap;
	struct cu_die locals_of;
	/* the parameters of the function's code and of its abstract origin,
	 * as func_facts.c lists them for a policy (FN_CODE, FN_ORIGIN) */
	struct cu_die *facts[2];
	size_t facts_cap[2];
};

/*
 * What a thread walks units with (unit.h): the file's readers and the
 * scratch kept from one unit to the next.
 */
struct unit_walker {
	struct dwarf_file *df;
	const struct die_reader *r;	/* the file's */
	const struct die_reader *alt;	/* the dwz supplementary file's, or NULL */
	struct die_unit *du;		/* the unit walked */
	/* why the newest read or reference failed, as its die_unit or
	 * cu__ref() said it (held: cu.c words it, cu__why()) */
	struct diag why;
	/* DIE offset - unit offset -> type ID + 1 (0: not seen), for the unit
	 * walked; the entries set are listed in touched, to be cleared */
	uint32_t *ids;
	size_t ids_cap;
	uint32_t *touched;
	size_t nr_touched, touched_cap;
	struct cu_far *far;
	size_t nr_far, far_cap;
	size_t far_used;		/* far[0 .. far_used) hold DIEs of this walk */
	/* children read once for several passes over them (cu_types.c) */
	struct cu_die *kids;
	size_t nr_kids, kids_cap;
	int *kid_types;			/* parallel to kids: pass 1's type IDs */
	size_t kid_types_cap;
	struct cu_fn_scratch fn;	/* the function cu_decls.c converts */
	/* the function filter's answers by .debug_str pointer (names there do
	 * not move), for want_filter only: one lookup per name and thread */
	struct ptr_cache *want_memo;
	const struct unit_func_filter *want_filter;
	/* units' BTFs are over names, if set; memo: .debug_str pointer -> names offset */
	const struct d2b_btf *names;
	struct ptr_cache *memo;
	const struct d2b_btf *base;	/* or units' BTFs split over this one */
	struct str_memo *base_memo;	/* then: lookups of names in base */
	/* how the unit walked adds its names to u->btf, through the memos
	 * above (cu__add_str()) */
	struct str_adder strs;
};

/* A function inlined in the unit (cu_sites.c) */
struct cu_site_origin {
	int32_t fn;		/* its unit_site_fn, -1: it has no sites */
	uint32_t keys_start;	/* its parameters' DIE keys: keys[keys_start ..] */
	uint32_t nr_keys;
};

/* cu_sites.c's state over one unit */
struct cu_sites {
	bool started;
	uint64_t base;		/* the unit's base address (DW_AT_low_pc) */
	struct hmap by_key;	/* the function's DIE key -> index into origins */
	struct cu_site_origin *origins;
	size_t nr_origins, origins_cap;
	uint64_t *keys;		/* the parameters' DIE keys (cu__far_key()) */
	size_t nr_keys, keys_cap;
};

struct cu {
	const struct d2b_opts *opts;
	struct dwarf_file *df;
	struct unit_walker *uw;
	struct unit *u;		/* the output */
	const struct unit_ref *ref;	/* the unit walked */
	int lang;		/* its DW_AT_language (a partial unit's importer's), -1 if none */
	const struct unit_func_filter *func_filter;	/* or NULL */
	struct d2b_btf *btf;	/* u->btf */
	struct die_unit *du;	/* uw->du: the unit walked */
	struct cu_die root;	/* its unit DIE */
	uint64_t unit_off;	/* its header's offset in .debug_info */
	uint64_t unit_size;	/* and its size, header included */
	bool big_endian;
	unsigned int ptr_size;	/* the unit's address size: 4 or 8 bytes */
	bool has_annotations;	/* the unit's abbrevs can express annotations */
	bool has_v2_type_tags;	/* some type has a btf:type_tag annotation */
	bool cxx;		/* a C++ unit: names are qualified (cu_scope.c) */
	bool has_signatures;	/* its abbrevs have DW_AT_signature (type units) */
	struct hmap scopes;	/* cu_scope.c: DIE key -> its scope's DIE offset */
	struct hmap scoped_units;	/* the units indexed into scopes */
	char *name_buf;		/* cu_scope.c's qualified names */
	size_t name_cap;
	bool corrupt;		/* a DIE could not be decoded (and it is said) */
	uint64_t steps_left;	/* cu__child/cu__next steps before it is a loop */

	const char *producer;	/* the unit's DW_AT_producer, or NULL */

	struct cu_sites sites;	/* d2b_opts.inline_sites (cu_sites.c) */

	struct hmap far_ids;	/* DIEs of other units: cu__far_key() -> type ID */
	uint32_t int_id;	/* "int", the array index type, made on demand */
	int depth;

	/* composites reserved but not yet defined: a worklist, so that long
	 * pointer chains between structs never recurse deeply */
	struct {
		struct cu_pending {
			struct cu_die die;
			uint32_t id;
		} *v;
		size_t nr, cap;
	} pending;
};

/*
 * A function as a policy sees it (func_facts.h): its code's DIE, the DIE
 * that declares it, the code's abstract origin, and their parameters,
 * listed in uw->fn.facts once asked for.
 */
struct fn_facts {
	struct cu *w;
	struct cu_die die, decl, origin;
	bool has_origin, external;
	bool listed[2];		/* FN_CODE's, FN_ORIGIN's parameters are listed */
	size_t nr[2];
	struct cu_die varargs;	/* the code's DW_TAG_unspecified_parameters (du: NULL if none) */
	int err;		/* -ENOMEM: a list could not be made */
};

/* Add a name to the unit's BTF (through the walker's memos): its offset,
 * or a negative errno, which the btf_add_*_off() builders return as it is */
static inline int cu__add_str(struct cu *w, const char *s)
{
	return str_adder__add(&w->uw->strs, s);
}

/* Record a diagnostic in the unit (die may be NULL). */
void cu__diag(struct cu *w, enum d2b_level level, const struct cu_die *die, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * The unit is damaged: a DIE could not be decoded, or fmt says what is
 * wrong.  The first time, an error says so; the walk fails when it ends.
 */
void cu__corrupt(struct cu *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Why the newest read or reference of the walk failed ("" if none did). */
static inline const char *cu__why(const struct cu *w)
{
	return diag__last(&w->uw->why);
}

/* die's first child: false if none (or on a decoding error: corrupt). */
bool cu__child(struct cu *w, const struct cu_die *die, struct cu_die *ret);
/* Step to die's next sibling: false at the end (or on an error: corrupt). */
bool cu__next(struct cu *w, struct cu_die *die);

/* die's own attribute name, as dwarf_attr(): false if absent.  (Inline:
 * the answer for an attribute the DIE's abbreviation lacks, the question
 * most often asked, costs no call; the others, one.) */
void cu__attr_failed(struct cu *w);
static inline bool cu__attr(struct cu *w, const struct cu_die *die, unsigned int name,
			    struct die_attr *ret)
{
	int r;

	if (die__lacks(&die->d, name)) {
		ret->name = name;
		ret->form = 0;
		return false;
	}
	r = die__attr(die->du, &die->d, name, ret);
	if (r < 0)
		cu__attr_failed(w);
	return r > 0;
}

/*
 * As dwarf_attr_integrate(): die's attribute, else that of the DIE its
 * DW_AT_abstract_origin or DW_AT_specification leads to, and so on.
 * *owner: the DIE that has it (its references are read with it).  Inline
 * for the common case, a DIE that has it itself.
 */
bool cu__attr_inherited(struct cu *w, const struct cu_die *die, unsigned int name,
			struct die_attr *ret, struct cu_die *owner);
static inline bool cu__attr_integrate(struct cu *w, const struct cu_die *die, unsigned int name,
				      struct die_attr *ret, struct cu_die *owner)
{
	if (cu__attr(w, die, name, ret)) {
		if (owner)
			*owner = *die;
		return true;
	}
	return cu__attr_inherited(w, die, name, ret, owner);
}
/*
 * The DIE that reference a, an attribute of owner, points at (as
 * dwarf_formref_die()): false if a is no reference or leads nowhere
 * (cu__why() says why), and then *ret is left as it was.  ret may be
 * owner.
 */
bool cu__ref(struct cu *w, const struct cu_die *owner, const struct die_attr *a,
	     struct cu_die *ret);
/* The DIE that owner's attribute name (a reference) points at. */
bool cu__ref_attr(struct cu *w, const struct cu_die *owner, unsigned int name,
		  struct cu_die *ret);
/* a's string (as dwarf_formstring()), or NULL. */
const char *cu__alt_str(struct cu *w, const struct die_attr *a);
static inline const char *cu__str(struct cu *w, const struct die_attr *a)
{
	return a->str ? a->str : cu__alt_str(w, a);
}

/* As dwarf_diename(): DW_AT_name, integrated; NULL if none. */
static inline const char *cu__name(struct cu *w, const struct cu_die *die)
{
	struct die_attr a;

	return cu__attr_integrate(w, die, DW_AT_name, &a, NULL) ? cu__str(w, &a) : NULL;
}
/* A flag of die's own (as dwarf_formflag() of dwarf_attr()); inline for
 * the common answer, a flag the abbreviation lacks. */
bool cu__flag_read(struct cu *w, const struct cu_die *die, unsigned int name);
static inline bool cu__flag(struct cu *w, const struct cu_die *die, unsigned int name)
{
	return !die__lacks(&die->d, name) && cu__flag_read(w, die, name);
}
/* A constant's value, as dwarf_formudata() gives it: false if a is no constant. */
bool cu__udata(const struct die_attr *a, uint64_t *ret);
/* die's own constant attribute name. */
bool cu__attr_udata(struct cu *w, const struct cu_die *die, unsigned int name, uint64_t *ret);
/*
 * Is a, an attribute of owner, a location expression as dwarf_getlocation()
 * takes one: an exprloc, or before DWARF 4 a block?  (Not a location list.)
 */
bool cu__is_expr(const struct cu_die *owner, const struct die_attr *a);
/* A ULEB128 at *p, before end: false if it runs past end. */
bool cu__uleb(const uint8_t **p, const uint8_t *end, uint64_t *ret);
/* A libdw DIE for die (for location lists): false if libdw has none. */
bool cu__libdw_die(struct cu *w, const struct cu_die *die, Dwarf_Die *ret);
/* die's DW_AT_location as libdw reads it (for dwarf_getlocations()):
 * false if there is none. */
bool cu__libdw_location(struct cu *w, const struct cu_die *die, Dwarf_Attribute *ret);

static inline bool cu__has_attr(const struct cu_die *die, unsigned int name)
{
	/* below 128 the abbreviation's bit set is the whole answer */
	if (name < 128 && die->d.names)
		return !die__lacks(&die->d, name);
	return die__has_attr(die->du, &die->d, name);
}

/* A DIE of a type unit__walk() converts where it is met (a unit's, a
 * function's or a namespace's) */
static inline bool cu__is_type_tag(unsigned int tag)
{
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_typedef:
	case DW_TAG_array_type:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_unspecified_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return true;
	default:
		return false;
	}
}

static inline bool cu__same(const struct cu_die *a, const struct cu_die *b)
{
	return a->du == b->du && a->d.off == b->d.off;
}

/* The byte size of the type of die (a parameter, a variable): a pointer
 * is a word, a type without DW_AT_byte_size is its own type's size; 0 if
 * none. */
uint64_t cu__type_size(struct cu *w, const struct cu_die *die);

/* The key of a DIE of another unit than the one walked, in far_ids. */
uint64_t cu__far_key(const struct cu *w, const struct cu_die *die);

#endif
