// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One compile unit, start to end: decide whether its language is one we
 * convert, walk its top-level DIEs (every type, defined function and
 * variable, in DIE order, so type IDs follow the order types are first
 * met), then define the composites reserved on the way.  Diagnostics are
 * kept with the unit and handed on when the unit is merged, so that their
 * order does not depend on which thread walked which unit.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ptr_cache.h"
#include "base/pages.h"
#include "base/str_memo.h"
#include "base/vec.h"
#include "btf/btf.h"
#include "dwarf/dwarf_ext.h"
#include "dwarf/dwarf_file.h"
#include "unit/cu_annot.h"
#include "unit/cu_decls.h"
#include "unit/cu_sites.h"
#include "unit/cu_types.h"
#include "unit/unit.h"

/* The languages whose types BTF describes: C, and assembly (no types). */
static bool language_converted(int lang)
{
	switch (lang) {
	case -1:		/* no DW_AT_language: assume C */
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case D2B_DW_LANG_C17:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/* C++ (unless d2b_opts.no_cxx): converted to what BTF can express (classes as structs, base classes
 * as leading unnamed members, references as pointers), with names the kernel accepts or, with
 * d2b_opts.cxx_names, as C++ spells them (cu_scope.c). */
static bool language_is_cxx(int lang)
{
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case D2B_DW_LANG_C_plus_plus_17:
	case D2B_DW_LANG_C_plus_plus_20:
		return true;
	default:
		return false;
	}
}

static const char *language_name(int lang)
{
	if (language_is_cxx(lang))
		return "C++";
	switch (lang) {
	case DW_LANG_Rust:
		return "Rust";
	case DW_LANG_Go:
		return "Go";
	case DW_LANG_Fortran77:
	case DW_LANG_Fortran90:
	case DW_LANG_Fortran95:
	case DW_LANG_Fortran03:
	case DW_LANG_Fortran08:
		return "Fortran";
	case DW_LANG_Ada83:
	case DW_LANG_Ada95:
		return "Ada";
	default:
		return NULL;
	}
}

/*
 * Can this unit hold annotations at all?  Its abbreviation table answers
 * for the whole unit at once: no DW_TAG_LLVM/GNU_annotation abbreviation
 * and no DW_AT_GNU_annotation attribute means no DIE needs to be searched
 * for them (true of every gcc < 16 unit, so of most kernels).
 */
static bool unit_has_annotations(struct cu *w)
{
	return die_unit__has_abbrev_tag(w->du, D2B_DW_TAG_LLVM_annotation) ||
	       die_unit__has_abbrev_tag(w->du, D2B_DW_TAG_GNU_annotation) ||
	       die_unit__has_abbrev_attr(w->du, D2B_DW_AT_GNU_annotation);
}

/*
 * Types defined inside a function body (and its lexical blocks) are the
 * unit's types too, as pahole has them (structs, and also the qualified and
 * pointer types only a local variable uses); variables and code there are
 * not walked.  Depth is bounded: nesting comes from the file.
 */
static int walk_local_types(struct cu *w, const struct cu_die *scope, int depth);

/* One child of a scope at depth: a lexical block's types, or a type. */
static int walk_local_kid(struct cu *w, const struct cu_die *child, int depth)
{
	if (child->d.tag == DW_TAG_lexical_block)
		return walk_local_types(w, child, depth + 1);
	return cu__is_type_tag(child->d.tag) ? cu_types__type(w, child) : 0;
}

static int walk_local_types(struct cu *w, const struct cu_die *scope, int depth)
{
	struct cu_die child;
	int err;

	if (depth > CU_MAX_SCOPE_DEPTH || !cu__child(w, scope, &child))
		return 0;
	do {
		err = walk_local_kid(w, &child, depth);
		if (err < 0)
			return err;
	} while (cu__next(w, &child));
	return 0;
}

/* The unit's DW_AT_producer, or NULL. */
static const char *producer(struct cu *w)
{
	struct die_attr a;

	return cu__attr(w, &w->root, DW_AT_producer, &a) ? cu__str(w, &a) : NULL;
}

/*
 * The unit's pointer size is its address size (the unit header's), which
 * must be the file's (the ELF class's): one BTF has one pointer size, so a
 * unit of another size (a 32-bit unit in a 64-bit file) is left out.
 */
static bool unit_data_model(struct cu *w)
{
	unsigned int want = dwarf_file__addr_size(w->df);
	unsigned int addr_size = die_unit__header(w->du)->addr_size;

	if (addr_size != want) {
		cu__diag(w, D2B_WARN, &w->root,
			 "compile unit left out: its addresses are %u bytes, the file's %u",
			 addr_size, want);
		w->u->skipped = true;
		return false;
	}
	d2b_btf__set_pointer_size(w->btf, addr_size);
	w->ptr_size = addr_size;
	return true;
}

/* DW_AT_language, as dwarf_srclang() reads it: -1 if none. */
static int unit_language(struct cu *w)
{
	uint64_t lang;

	return cu__attr_udata(w, &w->root, DW_AT_language, &lang) ? (int)lang : -1;
}

/*
 * A DW_TAG_imported_unit: the partial unit it names is walked once, after
 * the units that import it (convert.c), not once per importer; a type of
 * it that this unit uses is also made here, from the reference.
 */
static int record_import(struct cu *w, const struct cu_die *die)
{
	struct unit *u = w->u;
	struct cu_die target;
	int err;

	if (!cu__ref_attr(w, die, DW_AT_import, &target)) {
		cu__diag(w, D2B_WARN, die, "imported unit not found: %s",
			 cu__has_attr(die, DW_AT_import) ? cu__why(w) : "no DW_AT_import");
		return 0;
	}
	if (target.d.off != die_unit__header(target.du)->die_off) {
		cu__diag(w, D2B_WARN, die, "DW_AT_import names no unit");
		return 0;
	}
	if (target.d.tag != DW_TAG_partial_unit)
		return 0;	/* a compile unit: walked anyway */
	err = VEC_RESERVE(u->imports, u->imports_cap, u->nr_imports, 1);
	if (err)
		return err;
	u->imports[u->nr_imports++] = (struct unit_ref){
		.r = die_unit__reader(target.du),
		.off = die_unit__header(target.du)->off,
		.lang = w->lang >= 0 ? (unsigned int)w->lang + 1 : 0,
	};
	return 0;
}

/*
 * walk_local_types() of function fn (a subprogram that is no declaration),
 * from the list of its lexical blocks and types that cu_decls.c made
 * while it read fn's parameters, if it did (uw->fn.locals).
 */
static int walk_function_types(struct cu *w, const struct cu_die *fn)
{
	struct unit_walker *uw = w->uw;
	size_t i;
	int err;

	if (!uw->fn.locals_of.du || !cu__same(fn, &uw->fn.locals_of))
		return walk_local_types(w, fn, 0);
	uw->fn.locals_of.du = NULL;
	/* (nothing below reads parameters: the list stays as it is) */
	for (i = 0; i < uw->fn.nr_locals; i++) {
		struct cu_die child = uw->fn.locals[i];

		err = walk_local_kid(w, &child, 0);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * The types nested in a C++ class (struct geo::rect::iter), which nothing
 * else may reach: its member functions are declarations, whose
 * definitions (with code) are top-level DIEs pointing back at them.
 */
static int walk_nested_types(struct cu *w, const struct cu_die *composite, int depth)
{
	struct cu_die child;
	int err;

	if (depth > CU_MAX_SCOPE_DEPTH || !cu__child(w, composite, &child))
		return 0;
	do {
		if (!cu__is_type_tag(child.d.tag))
			continue;
		err = cu_types__type(w, &child);
		if (err >= 0 && child.d.has_children &&
		    (child.d.tag == DW_TAG_structure_type || child.d.tag == DW_TAG_class_type ||
		     child.d.tag == DW_TAG_union_type))
			err = walk_nested_types(w, &child, depth + 1);
		if (err < 0)
			return err;
	} while (cu__next(w, &child));
	return 0;
}

/*
 * Walk the DIEs of scope (the unit DIE, or a C++ namespace inside it) into
 * w->u: types, functions, variables, and the namespaces inside.
 */
static int walk_scope(struct cu *w, const struct cu_die *scope, int depth)
{
	struct cu_die child;
	int err = 0;

	if (depth > CU_MAX_SCOPE_DEPTH) {
		cu__diag(w, D2B_INFO, scope, "namespaces nested deeper than %d: only the types "
			 "used from outside are converted", CU_MAX_SCOPE_DEPTH);
		return 0;
	}
	if (!cu__child(w, scope, &child))
		return 0;
	do {
		unsigned int tag = child.d.tag;

		if (cu__is_type_tag(tag)) {
			err = cu_types__type(w, &child);
			if (err >= 0 && w->cxx && child.d.has_children &&
			    (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			     tag == DW_TAG_union_type))
				err = walk_nested_types(w, &child, depth + 1);
		} else if (tag == DW_TAG_subprogram) {
			err = cu_decls__subprogram(w, &child);
			/* (a declaration has parameters, no body) */
			if (err >= 0 && !cu__flag(w, &child, DW_AT_declaration))
				err = walk_function_types(w, &child);
			if (err >= 0 && w->opts->inline_sites)
				err = cu_sites__function(w, &child);
		}
		else if (tag == DW_TAG_variable)
			err = cu_decls__variable(w, &child);
		else if (tag == DW_TAG_namespace && w->cxx)
			err = walk_scope(w, &child, depth + 1);
		else if (tag == DW_TAG_imported_unit)
			err = record_import(w, &child);
		if (err < 0)
			return err;
		/* keep the worklist short and the IDs in meeting order */
		err = cu_types__drain(w);
		if (err < 0)
			return err;
	} while (cu__next(w, &child));
	return 0;
}

/* Walk the unit's top-level DIEs into w->u. */
static int walk(struct cu *w)
{
	int lang;

	lang = unit_language(w);
	/* a dwz partial unit speaks its importer's language */
	if (lang < 0 && w->ref->lang)
		lang = (int)w->ref->lang - 1;
	w->lang = lang;
	w->cxx = language_is_cxx(lang) && !w->opts->no_cxx;
	if (!language_converted(lang) && !w->cxx) {
		const char *lname = language_name(lang);

		if (lname)
			cu__diag(w, D2B_INFO, &w->root, "compile unit left out: language %s", lname);
		else
			cu__diag(w, D2B_INFO, &w->root, "compile unit left out: language 0x%x", lang);
		w->u->skipped = true;
		return 0;
	}
	w->u->cxx = w->cxx;
	w->has_annotations = unit_has_annotations(w);
	w->has_signatures = die_unit__has_abbrev_attr(w->du, DW_AT_signature);
	w->has_v2_type_tags = w->has_annotations && cu_annot__unit_has_v2(w);
	return walk_scope(w, &w->root, 0);
}

/*
 * Load the unit ref names, and make the DIE -> type map as large as the
 * unit (cleared: the last walk cleared what it set).
 */
static int load_unit(struct cu *w, const struct unit_ref *ref)
{
	struct unit_walker *uw = w->uw;
	const struct die_unit_header *h;
	size_t size;
	int err;

	if (die_unit__reader(uw->du) != ref->r) {
		struct die_unit *du;

		err = die_unit__new(ref->r, &uw->why, &du);
		if (err)
			return err;
		die_unit__free(uw->du);
		uw->du = du;
	}
	w->unit_off = ref->off;
	err = die_unit__load(uw->du, DIE_SEC_INFO, w->unit_off);
	if (!err && ref->split)
		die_unit__set_addr_base(uw->du, ref->addr_base);
	if (!err)
		err = die_unit__root(uw->du, &w->root.d);
	if (err) {
		cu__corrupt(w, "%s", cu__why(w));
		return -EBADMSG;
	}
	w->du = w->root.du = uw->du;
	die_unit__prefetch(uw->du);	/* (walked whole, references and all) */
	uw->fn.params_of.du = uw->fn.locals_of.du = NULL;	/* (DIEs of the last unit) */
	h = die_unit__header(uw->du);
	size = h->next_off - h->off;
	w->unit_size = size;
	w->steps_left = CU_STEPS_PER_BYTE * size;
	if (size > uw->ids_cap) {
		/* (read before written: present at once, pages__zalloc()) */
		uint32_t *ids = pages__zalloc(size, sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		free(uw->ids);
		uw->ids = ids;
		uw->ids_cap = size;
	}
	return 0;
}

/* Leave the walker ready for the next unit. */
static void unload_unit(struct cu *w)
{
	struct unit_walker *uw = w->uw;
	size_t i;

	for (i = 0; i < uw->nr_touched; i++)
		uw->ids[uw->touched[i]] = 0;
	uw->nr_touched = 0;
	uw->nr_kids = 0;
	/* keep a few other units loaded: the next unit may refer to them too */
	while (uw->nr_far > CU_MAX_FAR_KEPT)
		die_unit__free(uw->far[--uw->nr_far].du);
	uw->far_used = 0;
	diag__clear(&uw->why);	/* (words of this unit's DIEs) */
}

/* a unit's BTF reserved per byte of its DWARF (unit__walk()) */
enum {
	UNIT_BYTES_PER_WORD = 4,
	UNIT_BYTES_PER_TYPE = 32,
};

/* a thread's memos of names, in its unit_walker */
enum {
	NAMES_MEMO_ORDER = 16,	/* 65,536 .debug_str names (512 KiB) */
	BASE_MEMO_ORDER = 14,	/* 16,384 names of a module's base (256 KiB) */
};

int unit__walk(struct unit *u, const struct d2b_opts *opts,
	       const struct unit_func_filter *filter, struct unit_walker *uw,
	       const struct unit_ref *ref)
{
	struct cu w = {
		.opts = opts,
		.func_filter = filter,
		.df = uw->df,
		.uw = uw,
		.u = u,
		.big_endian = dwarf_file__big_endian(uw->df),
	};
	int err;

	memset(u, 0, sizeof(*u));
	diag__init_kept_for(&u->diag, opts);	/* (what the caller reads) */
	u->btf = d2b_btf__new(uw->names ? uw->names : uw->base);
	if (!u->btf)
		return -ENOMEM;
	str_adder__init(&uw->strs, u->btf);
	if (uw->memo && str_adder__use_names(&uw->strs, uw->memo)) {
		d2b_btf__free(u->btf);
		u->btf = NULL;
		return -EINVAL;
	}
	/* a module's names, looked up in its base unit after unit: through a
	 * memo where the base allows one (no memory: no memo, the same answers) */
	if (!uw->names && uw->base) {
		if (!uw->base_memo)
			uw->base_memo = str_memo__new(BASE_MEMO_ORDER);
		if (uw->base_memo)
			(void)str_adder__use_base_memo(&uw->strs, uw->base_memo);
	}
	w.btf = u->btf;
	hmap__init(&w.far_ids, false);
	hmap__init(&w.scopes, false);
	hmap__init(&w.scoped_units, false);
	hmap__init(&w.sites.by_key, false);
	w.ref = ref;
	err = load_unit(&w, ref);
	if (err)
		goto out;
	/* the unit's BTF sized from its DWARF (the kernel's units make about
	 * 0.22 words and 0.024 types per byte, rarely twice that): most
	 * units then never grow it */
	err = btf_reserve_room(u->btf, w.unit_size / UNIT_BYTES_PER_WORD,
			       w.unit_size / UNIT_BYTES_PER_TYPE);
	if (err)
		goto out;
	u->name = cu__name(&w, &w.root);
	if (!unit_data_model(&w))
		goto out;
	w.producer = producer(&w);
	err = walk(&w);
out:
	/* a DIE could not be decoded: the unit is damaged, and what follows
	 * cannot be trusted, so the whole conversion fails (cu__corrupt()
	 * said why) */
	if (w.corrupt && err >= 0)
		err = -EBADMSG;
	unload_unit(&w);
	str_adder__init(&uw->strs, NULL);	/* (u->btf is the caller's now) */
	hmap__release(&w.far_ids);
	hmap__release(&w.scopes);
	hmap__release(&w.scoped_units);
	cu_sites__release(&w);
	free(w.name_buf);
	free(w.pending.v);
	return err;
}

int unit_walker__new(struct dwarf_file *df, const struct die_reader *r,
		     const struct die_reader *alt, struct unit_walker **ret)
{
	struct unit_walker *uw = calloc(1, sizeof(*uw));
	int err;

	*ret = NULL;
	if (!uw)
		return -ENOMEM;
	uw->df = df;
	uw->r = r;
	uw->alt = alt;
	diag__init_held(&uw->why);
	err = die_unit__new(r, &uw->why, &uw->du);
	if (err) {
		free(uw);
		return err;
	}
	*ret = uw;
	return 0;
}

int unit_walker__set_names(struct unit_walker *uw, const struct d2b_btf *names, const char *str,
			   size_t len)
{
	struct ptr_cache *memo = ptr_cache__new(str, len, NAMES_MEMO_ORDER);

	if (!memo)
		return -ENOMEM;
	ptr_cache__free(uw->memo);
	uw->memo = memo;
	uw->names = names;
	return 0;
}

void unit_walker__set_base(struct unit_walker *uw, const struct d2b_btf *base)
{
	uw->base = base;
}

void unit_walker__free(struct unit_walker *uw)
{
	size_t i;

	if (!uw)
		return;
	ptr_cache__free(uw->memo);
	ptr_cache__free(uw->want_memo);
	str_memo__free(uw->base_memo);
	for (i = 0; i < uw->nr_far; i++)
		die_unit__free(uw->far[i].du);
	free(uw->far);
	free(uw->kids);
	free(uw->fn.params);
	free(uw->fn.facts[FN_CODE]);
	free(uw->fn.facts[FN_ORIGIN]);
	free(uw->fn.locals);
	free(uw->kid_types);
	free(uw->ids);
	free(uw->touched);
	die_unit__free(uw->du);
	diag__release(&uw->why);
	free(uw);
}

void unit__release(struct unit *u)
{
	d2b_btf__free(u->btf);
	free(u->vars);
	free(u->tag_offs);
	free(u->funcs);
	free(u->imports);
	free(u->site_fns);
	free(u->sites);
	free(u->locs);
	diag__release(&u->diag);
	memset(u, 0, sizeof(*u));
}
