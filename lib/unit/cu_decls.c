// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Declarations of one compile unit: defined functions become FUNC (with a
 * FUNC_PROTO naming the parameters), variables with a static address become
 * cu_var records for the DATASECs made after all units are merged.
 *
 * A function's DIE may be an out-of-line instance of an inlined one, or a
 * definition completing an earlier declaration: its name, type, linkage and
 * parameter list are then read from the DIE it points to
 * (DW_AT_abstract_origin, DW_AT_specification), which describes the
 * function as declared, not as the optimizer left it -- unless the
 * functions' policy (unit_func_filter) makes another prototype from the
 * facts it asks of the code (func_facts.c).
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "unit/cu_annot.h"
#include "unit/cu_decls.h"
#include "unit/cu_scope.h"
#include "unit/cu_types.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"
#include "base/ptr_cache.h"
#include "base/vec.h"

/* A flag of die or of the DIE it completes (DW_AT_external). */
static bool has_flag(struct cu *w, const struct cu_die *die, unsigned int name)
{
	struct die_attr a;

	return cu__attr_integrate(w, die, name, &a, NULL) &&
	       (a.form == DW_FORM_flag || a.form == DW_FORM_flag_present) && a.u;
}

/* A declaration itself, not a definition completing one: DW_AT_declaration
 * must not be inherited through DW_AT_specification. */
static bool is_declaration(struct cu *w, const struct cu_die *die)
{
	return cu__flag(w, die, DW_AT_declaration);
}

/* The DIE that declares what die defines (bounded: files can loop). */
static void declaring_die(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	struct die_attr attr;
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__attr(w, ret, DW_AT_abstract_origin, &attr) &&
		    !cu__attr(w, ret, DW_AT_specification, &attr))
			return;
		if (!cu__ref(w, ret, &attr, ret))
			return;
	}
}

/*
 * The definition die completes, through DW_AT_abstract_origin only: a
 * C++ member function's definition, whose parameters are named ("this"
 * too), where the declaration inside its class names none.
 */
static void defining_die(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__ref_attr(w, ret, DW_AT_abstract_origin, ret))
			return;
	}
}

/*
 * A function's parameters, read once.  Up to four passes ask for them
 * (their names, the registers they arrive in, the prototype, their
 * declaration tags), and for a function that has code each would read
 * past the first DIEs of its body again (its local variables, blocks and
 * inlined calls).  So cu_decls__subprogram() reads the parameters (and
 * varargs) of its declaring DIE once into uw->fn.params (read_params()), and
 * the passes over that DIE's parameters take them from there
 * (next_param()); over another DIE, they read its children.  Where that
 * DIE is the function's own (it has code, and declares itself), the same
 * read lists its lexical blocks and types, which unit.c walks next for
 * the types local to the function (uw->fn.locals): a read fewer again.
 */
static int read_params(struct cu *w, const struct cu_die *decl, const struct cu_die *die)
{
	struct unit_walker *uw = w->uw;
	bool locals = cu__same(decl, die);
	struct cu_die child;
	int err = 0;

	uw->fn.nr_params = uw->fn.nr_locals = 0;
	uw->fn.params_of = *decl;
	uw->fn.locals_of.du = NULL;
	if (!cu__child(w, decl, &child))
		goto out;
	do {
		unsigned int tag = child.d.tag;

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_unspecified_parameters) {
			err = VEC_RESERVE(uw->fn.params, uw->fn.params_cap, uw->fn.nr_params, 1);
			if (err)
				break;
			uw->fn.params[uw->fn.nr_params++] = child;
		} else if (locals && (tag == DW_TAG_lexical_block || cu__is_type_tag(tag))) {
			err = VEC_RESERVE(uw->fn.locals, uw->fn.locals_cap, uw->fn.nr_locals, 1);
			if (err)
				break;
			uw->fn.locals[uw->fn.nr_locals++] = child;
		}
	} while (cu__next(w, &child));
out:
	if (err)
		uw->fn.params_of.du = NULL;
	else if (locals)
		uw->fn.locals_of = *die;
	return err;
}

/* Are fn's parameters in uw->fn.params? */
static bool params_read(const struct cu *w, const struct cu_die *fn)
{
	return w->uw->fn.params_of.du && cu__same(fn, &w->uw->fn.params_of);
}

enum { PARAMS_BEGIN, PARAMS_LISTED, PARAMS_READING, PARAMS_DONE };

struct params_iter {
	int state;		/* PARAMS_*; PARAMS_BEGIN (0) to begin */
	size_t next;		/* listed: the next of uw->fn.params */
	struct cu_die kid;	/* reading: the last child read */
};

/* The next DW_TAG_formal_parameter child of fn, into *ret. */
static bool next_param(struct cu *w, const struct cu_die *fn, struct params_iter *it,
		       struct cu_die *ret)
{
	struct unit_walker *uw = w->uw;
	bool more;

	switch (it->state) {
	case PARAMS_BEGIN:
		if (params_read(w, fn)) {
			it->state = PARAMS_LISTED;
			return next_param(w, fn, it, ret);
		}
		it->state = PARAMS_READING;
		more = cu__child(w, fn, &it->kid);
		break;
	case PARAMS_LISTED:
		while (it->next < uw->fn.nr_params) {
			*ret = uw->fn.params[it->next++];
			if (ret->d.tag == DW_TAG_formal_parameter)
				return true;
		}
		return false;
	case PARAMS_READING:
		more = cu__next(w, &it->kid);
		break;
	default:
		return false;
	}
	for (; more; more = cu__next(w, &it->kid)) {
		if (it->kid.d.tag == DW_TAG_formal_parameter) {
			*ret = it->kid;
			return true;
		}
	}
	it->state = PARAMS_DONE;
	return false;
}

/* All parameters named?  (FUNC requires it of every non-varargs one.) */
static const char *unnamed_param(struct cu *w, const struct cu_die *decl)
{
	struct params_iter it = { 0 };
	struct cu_die p;

	while (next_param(w, decl, &it, &p)) {
		const char *name = cu__name(w, &p);

		if (!name || !*name)
			return "unnamed parameter";
	}
	return NULL;
}

/* The record of FUNC func for the policy: its word, and its code's address */
static int record_func(struct cu *w, const struct cu_die *die, int func, uint32_t flags)
{
	struct unit *u = w->u;
	struct die_attr low_pc;
	int err;

	err = VEC_RESERVE(u->funcs, u->funcs_cap, u->nr_funcs, 1);
	if (err)
		return err;
	u->funcs[u->nr_funcs].id = func;
	u->funcs[u->nr_funcs].flags = flags;
	u->funcs[u->nr_funcs].addr = cu__attr(w, die, DW_AT_low_pc, &low_pc) &&
				     low_pc.form != DW_FORM_flag_present ? low_pc.u : 0;
	u->nr_funcs++;
	return 0;
}

enum {
	WANT_MEMO_ORDER = 14,	/* 16384 function names remembered per thread */
};

/*
 * The function filter's answer for name.  Every unit declares the inline
 * functions of the headers it includes, so one name is asked about in
 * hundreds of units: the filter may know the answers for the strings of
 * .debug_str already (str_bits); else a name in .debug_str is remembered
 * by its address (the filter answers by the name alone, and stays the
 * same while the walker serves it).
 */
static bool want_func(struct cu *w, const char *name)
{
	const struct unit_func_filter *f = w->func_filter;
	struct unit_walker *uw = w->uw;
	uint32_t v;
	bool want;

	if (f->str_bits) {
		/* (below the section, the difference wraps past str_size) */
		uintptr_t o = (uintptr_t)name - (uintptr_t)f->str;

		if (o < f->str_size && (o == 0 || name[-1] == '\0'))
			return f->str_bits[o / 64] >> (o % 64) & 1;
	}
	if (uw->want_filter != f) {
		const char *str = die_reader__section(uw->r, DIE_SEC_STR);

		ptr_cache__free(uw->want_memo);
		uw->want_memo = str ? ptr_cache__new(str, die_reader__section_size(uw->r, DIE_SEC_STR),
						     WANT_MEMO_ORDER) : NULL;
		uw->want_filter = f;	/* (no memory: no memo, the same answers) */
	}
	if (uw->want_memo && ptr_cache__get(uw->want_memo, name, &v))
		return v;
	want = f->want(f->arg, name);
	if (uw->want_memo)
		ptr_cache__put(uw->want_memo, name, want);
	return want;
}

/* The policy's word for the function die (decl declares it; named names
 * it), and the prototype it made, or 0 for the declared one */
static int judge(struct cu *w, const struct unit_func_policy *pol, const struct cu_die *die,
		 const struct cu_die *decl, const struct cu_die *named, uint32_t *flags)
{
	struct fn_facts fn = {
		.w = w, .die = *die, .decl = *decl,
		.external = has_flag(w, named, DW_AT_external),
	};
	int proto;

	fn.has_origin = cu__ref_attr(w, die, DW_AT_abstract_origin, &fn.origin);
	proto = pol->judge(pol->arg, &fn, flags);
	return fn.err ? fn.err : proto;
}

/* The DECL_TAGs of FUNC func: die's, decl's and its parameters' */
static int func_decl_tags(struct cu *w, const struct cu_die *die, const struct cu_die *decl,
			  int func)
{
	struct params_iter it = { 0 };
	struct cu_die child;
	int err, idx = 0;

	err = cu_annot__decl_tags(w, decl, func, -1);
	if (!err && !cu__same(decl, die))
		err = cu_annot__decl_tags(w, die, func, -1);
	if (err < 0)
		return err;
	while (next_param(w, decl, &it, &child)) {
		err = cu_annot__decl_tags(w, &child, func, idx++);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * Read the parameters of decl, the DIE that declares die, and see that
 * all are named (C++: else a member function's definition, which names
 * them where its declaration inside the class does not, is decl).  0, 1
 * if the function is left out for a parameter without a name (noted), or
 * a negative errno.
 */
static int named_params(struct cu *w, const struct cu_die *die, struct cu_die *decl,
			const char *name)
{
	const char *why;
	int err;

	err = read_params(w, decl, die);
	if (err)
		return err;
	why = unnamed_param(w, decl);
	if (why && w->cxx && !cu__same(decl, die)) {
		cu__diag(w, D2B_DEBUG, die, "function '%s': parameters from its definition", name);
		defining_die(w, die, decl);
		err = read_params(w, decl, die);
		if (err)
			return err;
		why = unnamed_param(w, decl);
	}
	if (why) {
		cu__diag(w, D2B_INFO, die, "function '%s' left out: %s", name, why);
		return 1;
	}
	return 0;
}

static int subprogram(struct cu *w, const struct cu_die *die)
{
	const struct unit_func_filter *f = w->func_filter;
	const struct unit_func_policy *pol = f && f->policy.judge ? &f->policy : NULL;
	struct cu_die decl, named;
	const char *name;
	int proto, func, err;
	bool external, has_code;
	uint32_t flags = 0;

	if (w->opts->funcs == D2B_FUNCS_NONE || is_declaration(w, die))
		return 0;
	has_code = cu__has_attr(die, DW_AT_low_pc) || cu__has_attr(die, DW_AT_ranges);
	/* only functions with code; a filter also lets through the
	 * inline-only DIEs of a function it wants (a clone's) */
	if (!has_code && !(f && f->want))
		return 0;
	declaring_die(w, die, &decl);
	/* C++: a constructor's linkage name is on its definition (C1, C2) */
	named = w->cxx ? *die : decl;
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	if (!name || !*name)
		return 0;
	if (f && f->want && !want_func(w, name)) {
		if (has_code)
			cu__diag(w, D2B_INFO, die, "function '%s' left out: no ELF function symbol",
				 name);
		return 0;
	}
	err = named_params(w, die, &decl, name);
	if (err)
		return err < 0 ? err : 0;
	proto = pol ? judge(w, pol, die, &decl, &named, &flags) : 0;
	if (!proto)
		proto = cu_types__proto_of(w, &decl, w->uw->fn.params, NULL, w->uw->fn.nr_params);
	if (proto < 0)
		return proto;
	/* again: the types walked may have reused cu_scope.c's buffer */
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	external = has_flag(w, &named, DW_AT_external);
	func = btf_add_func_off(w->btf, cu__add_str(w, name),
				external && !(pol && pol->static_linkage) ?
				D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC, proto);
	if (func < 0)
		return func;
	if (pol) {
		err = record_func(w, die, func, flags);
		if (err < 0)
			return err;
	}
	return w->opts->skip_decl_tags ? 0 : func_decl_tags(w, die, &decl, func);
}

int cu_decls__subprogram(struct cu *w, const struct cu_die *die)
{
	int err = subprogram(w, die);

	w->uw->fn.params_of.du = NULL;	/* (the next unit may reuse its DIEs' places) */
	return err;
}

/* A trailing DW_OP_plus_uconst N (LLVM's merged globals: one symbol, each
 * variable at its offset), added to *addr; true if [p, end) is that or
 * nothing. */
static bool plus_uconst(const uint8_t *p, const uint8_t *end, uint64_t *addr)
{
	uint64_t n;

	if (p == end)
		return true;
	if (*p++ != DW_OP_plus_uconst || !cu__uleb(&p, end, &n) || p != end)
		return false;
	*addr += n;
	return true;
}

/*
 * The static address of a variable, if its location is just that: one
 * DW_OP_addr, DW_OP_addrx or DW_OP_GNU_addr_index (whose address is in
 * the unit's .debug_addr table), maybe with a DW_OP_plus_uconst after it.
 */
static bool variable_address(struct cu *w, const struct cu_die *die, uint64_t *ret)
{
	unsigned int size = die_unit__header(die->du)->addr_size, i;
	const uint8_t *p, *end;
	struct die_attr a;
	uint64_t v = 0;

	if (!cu__attr(w, die, DW_AT_location, &a) || !cu__is_expr(die, &a) || !a.len)
		return false;
	p = a.block;
	end = p + a.len;
	switch (*p++) {
	case DW_OP_addr:
		if ((size_t)(end - p) < size)
			return false;
		for (i = 0; i < size; i++)
			v |= (uint64_t)p[w->big_endian ? i : size - 1 - i] << (8 * (size - 1 - i));
		*ret = v;
		return plus_uconst(p + size, end, ret);
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		return cu__uleb(&p, end, &v) && die_unit__addrx(die->du, v, ret) == 0 &&
		       plus_uconst(p, end, ret);
	default:
		return false;
	}
}

int cu_decls__variable(struct cu *w, const struct cu_die *die)
{
	const char *vals[UNIT_MAX_TAGS];
	struct unit_var *v;
	const char *name;
	uint64_t addr = 0, off = 0;
	size_t shndx;
	int type, name_off, n, i, err;

	if (w->opts->vars == D2B_VARS_NONE || is_declaration(w, die))
		return 0;
	name = cu_scope__decl_name(w, die, &err);
	if (err)
		return err;
	if (!name || !*name)
		return 0;
	if (!variable_address(w, die, &addr)) {
		if (cu__has_attr(die, DW_AT_location))
			cu__diag(w, D2B_INFO, die, "variable '%s' left out: no static address", name);
		return 0;
	}
	if (dwarf_file__addr_section(w->df, addr, &shndx, &off) != 0 &&
	    dwarf_file__symbol_section(w->df, cu_scope__symbol_name(w, die), &shndx, &off) != 0) {
		cu__diag(w, D2B_INFO, die, "variable '%s' left out: address 0x%" PRIx64
			      " is in no allocated section", name, addr);
		return 0;
	}
	type = cu_types__type_of(w, die);
	if (type < 0)
		return type;
	/* again: the types walked may have reused cu_scope.c's buffer */
	name = cu_scope__decl_name(w, die, &err);
	if (err)
		return err;
	if (type == 0) {
		cu__diag(w, D2B_INFO, die, "variable '%s' of void type left out", name);
		return 0;
	}
	name_off = cu__add_str(w, name);
	if (name_off < 0)
		return name_off;
	err = VEC_RESERVE(w->u->vars, w->u->vars_cap, w->u->nr_vars, 1);
	if (err)
		return err;
	v = &w->u->vars[w->u->nr_vars];
	memset(v, 0, sizeof(*v));
	v->name_off = name_off;
	v->type = type;
	v->linkage = has_flag(w, die, DW_AT_external) ? D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC;
	v->shndx = shndx;
	v->offset = off;
	v->tags_start = w->u->nr_tag_offs;
	if (!w->opts->skip_decl_tags) {
		struct cu_die decl;

		n = cu_annot__collect(w, die, ANNOT_DECL_TAG, vals, UNIT_MAX_TAGS);
		if (n == 0) {
			declaring_die(w, die, &decl);
			if (!cu__same(&decl, die))
				n = cu_annot__collect(w, &decl, ANNOT_DECL_TAG, vals, UNIT_MAX_TAGS);
		}
		if (n > UNIT_MAX_TAGS)
			n = UNIT_MAX_TAGS;
		for (i = 0; i < n; i++) {
			int off_tag = cu__add_str(w, vals[i]);

			if (off_tag < 0)
				return off_tag;
			err = VEC_RESERVE(w->u->tag_offs, w->u->tag_offs_cap, w->u->nr_tag_offs, 1);
			if (err)
				return err;
			w->u->tag_offs[w->u->nr_tag_offs++] = off_tag;
		}
		v->nr_tags = w->u->nr_tag_offs - v->tags_start;
	}
	w->u->nr_vars++;
	return 0;
}
