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
 * function as declared, not as the optimizer left it.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "btf/btf.h"
#include "unit/cu_annot.h"
#include "unit/cu_decls.h"
#include "unit/cu_params.h"
#include "unit/cu_scope.h"
#include "unit/cu_types.h"
#include "dwarf/die_loc.h"
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

/* All parameters named?  (FUNC requires it of every non-varargs one.) */
static const char *unnamed_param(struct cu *w, const struct cu_die *decl)
{
	struct cu_die child;

	if (!cu__child(w, decl, &child))
		return NULL;
	do {
		const char *name;

		if (child.d.tag != DW_TAG_formal_parameter)
			continue;
		name = cu__name(w, &child);
		if (!name || !*name)
			return "unnamed parameter";
	} while (cu__next(w, &child));
	return NULL;
}

/*
 * The register that holds a parameter on entry, per its DW_AT_location:
 * DW_OP_regN as the first location, or DW_OP_entry_value(DW_OP_regN) in
 * any, preferring the one the ABI expects.  -1 if none (optimized out).
 * Read by libdw (param_reg()) or by die_loc.c (param_reg_fast()), one
 * location after the other, each judged by loc_reg().
 */
enum {
	LOC_SKIP = -1,		/* this location names no register */
	LOC_ENTRY = -3,		/* an entry value: its expression's single operation decides */
	REG_ASK_LIBDW = -2,	/* param_reg_fast(): only libdw can answer */
};

/*
 * A location of n operations (first and last given; a trailing
 * DW_OP_stack_value does not count), the nth_first'th: its register, or
 * LOC_SKIP, or LOC_ENTRY.
 */
static int loc_reg(size_t n, unsigned int first, unsigned int last, bool nth_first)
{
	if (n > 1 && last == DW_OP_stack_value)
		n--;
	if (n != 1)
		return LOC_SKIP;
	if (first >= DW_OP_reg0 && first <= DW_OP_reg31)
		return nth_first ? (int)first : LOC_SKIP;
	if (first == DW_OP_entry_value || first == DW_OP_GNU_entry_value)
		return LOC_ENTRY;
	return LOC_SKIP;
}

static int param_reg(Dwarf_Attribute *loc, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	Dwarf_Attribute entry;
	size_t len, inner_len;
	ptrdiff_t off = 0;
	int nth = 0, reg = -1, r;

	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &expr, &len)) > 0) {
		r = loc_reg(len, len ? expr[0].atom : 0, len ? expr[len - 1].atom : 0, nth++ == 0);
		if (r == LOC_ENTRY) {
			if (dwarf_getlocation_attr(loc, expr, &entry) != 0 ||
			    dwarf_getlocation(&entry, &inner, &inner_len) != 0 || inner_len != 1)
				continue;
			r = inner->atom;
		}
		if (r == LOC_SKIP)
			continue;
		reg = r;
		if (reg == expected)
			break;
	}
	return reg;
}

/* param_reg() from our own reader (die_loc.c), for the parameter param:
 * the same answer, or REG_ASK_LIBDW. */
static int param_reg_fast(struct cu *w, const struct cu_die *param, int expected)
{
	struct die_op op, last;
	struct die_loc_iter it;
	struct die_attr a;
	const uint8_t *expr;
	size_t len, n;
	int nth = 0, reg = -1, r;

	if (!cu__attr(w, param, DW_AT_location, &a) || die_loc__begin(param->du, &a, &it))
		return REG_ASK_LIBDW;
	while ((r = die_loc__next(&it, &expr, &len)) > 0) {
		if (die_expr__ops(param->du, expr, len, &n, &op, &last))
			return REG_ASK_LIBDW;
		r = loc_reg(n, n ? op.atom : 0, n ? last.atom : 0, nth++ == 0);
		if (r == LOC_ENTRY) {
			if (die_expr__ops(param->du, op.block, op.block_len, &n, &op, &last))
				return REG_ASK_LIBDW;
			if (n != 1)
				continue;
			r = op.atom;
		}
		if (r == LOC_SKIP)
			continue;
		reg = r;
		if (reg == expected)
			return reg;
	}
	return r < 0 ? REG_ASK_LIBDW : reg;
}

/* The DIE die's DW_AT_type (integrated) points at. */
static bool type_die(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	struct cu_die owner;
	struct die_attr a;

	return cu__attr_integrate(w, die, DW_AT_type, &a, &owner) && cu__ref(w, &owner, &a, ret);
}

/* A struct passed by value (through typedefs and const): it may take
 * several registers, so register expectations do not hold after it. */
static bool is_struct_param(struct cu *w, const struct cu_die *param)
{
	struct cu_die t = *param;
	int hops;

	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!type_die(w, &t, &t))
			return false;
		switch (t.d.tag) {
		case DW_TAG_structure_type:
			return true;
		case DW_TAG_typedef:
		case DW_TAG_const_type:
			continue;
		default:
			return false;
		}
	}
	return false;
}

/* The type DIE offset of a parameter, through its abstract origin. */
static uint64_t param_type(struct cu *w, const struct cu_die *param)
{
	struct cu_die t;

	return type_die(w, param, &t) ? t.d.off : 0;
}

/*
 * Does the out-of-line instance die take the parameters its abstract origin
 * declares?  A clone (foo.constprop.0, foo.isra.0) that lost some lists the
 * parameters it kept first; the types, position by position, then differ
 * from the declared ones (as pahole compares them: a clone whose remaining
 * types happen to line up passes).
 */
static bool same_params(struct cu *w, const struct cu_die *die, const struct cu_die *origin)
{
	struct cu_die a, b;
	bool more_a, more_b;

	more_a = cu__child(w, die, &a);
	more_b = cu__child(w, origin, &b);
	for (;;) {
		while (more_a && a.d.tag != DW_TAG_formal_parameter)
			more_a = cu__next(w, &a);
		while (more_b && b.d.tag != DW_TAG_formal_parameter)
			more_b = cu__next(w, &b);
		if (!more_a || !more_b)
			return more_a == more_b;
		if (param_type(w, &a) != param_type(w, &b))
			return false;
		more_a = cu__next(w, &a);
		more_b = cu__next(w, &b);
	}
}

/*
 * What the kernel's function policy needs to know of a function (die; decl
 * declares it): its code's address, and does each parameter arrive where
 * the ABI puts it?  pahole 1.32's answer is cu_params.c's; pahole 1.31's is
 * here: a parameter passed in a register must be in the
 * ABI's register for its position (or the function has a struct parameter,
 * which shifts registers legitimately); one with no location, or a constant
 * value, is optimized out.
 */
static int record_func(struct cu *w, const struct cu_die *die, int func, bool external)
{
	struct cu_die origin, child;
	struct unit *u = w->u;
	bool unexpected = false, has_struct = false;
	uint32_t flags = external ? UNIT_FUNC_EXTERNAL : 0;
	struct die_attr low_pc;
	Dwarf_Attribute attr;
	Dwarf_Die param;
	int idx = 0, err;

	if (w->opts->kernel_policy != D2B_KERNEL_POLICY_PAHOLE_1_31)
		flags |= cu_params__judge(w, die);	/* pahole 1.32's reading */
	else if (cu__child(w, die, &child)) {
		do {
			if (child.d.tag != DW_TAG_formal_parameter)
				continue;
			if (is_struct_param(w, &child))
				has_struct = true;
			if (idx >= w->nr_reg_params) {
				idx++;
				continue;
			}
			/* location lists: libdw reads them */
			if (cu__has_attr(&child, DW_AT_location)) {
				/* (read here where it can be, else by libdw) */
				int reg = param_reg_fast(w, &child, w->reg_params[idx]);

				if (reg == REG_ASK_LIBDW) {
					reg = -1;
					if (cu__libdw_die(w, &child, &param) &&
					    dwarf_attr(&param, DW_AT_location, &attr))
						reg = param_reg(&attr, w->reg_params[idx]);
				}

				if (reg < 0)
					flags |= UNIT_FUNC_OPTIMIZED;
				else if (reg != w->reg_params[idx])
					unexpected = true;
			} else {
				flags |= UNIT_FUNC_OPTIMIZED;
			}
			idx++;
		} while (cu__next(w, &child));
	}
	if (unexpected && !has_struct)
		flags |= UNIT_FUNC_UNEXPECTED_REG;
	if (cu__ref_attr(w, die, DW_AT_abstract_origin, &origin) && !same_params(w, die, &origin))
		flags |= UNIT_FUNC_CLONE_CHANGED;
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
 * hundreds of units: a name in .debug_str is remembered by its address
 * (the filter answers by the name alone, and stays the same while the
 * walker serves it).
 */
static bool want_func(struct cu *w, const char *name)
{
	const struct unit_func_filter *f = w->func_filter;
	struct unit_walker *uw = w->uw;
	uint32_t v;
	bool want;

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

int cu_decls__subprogram(struct cu *w, const struct cu_die *die)
{
	struct cu_die decl, named, child;
	const char *name, *why;
	int proto, func, err, idx;
	bool external, has_code, kernel;

	if (w->opts->funcs == D2B_FUNCS_NONE || is_declaration(w, die))
		return 0;
	has_code = cu__has_attr(die, DW_AT_low_pc) || cu__has_attr(die, DW_AT_ranges);
	kernel = w->opts->funcs == D2B_FUNCS_KERNEL;
	/* only functions with code; the kernel's policy also compares the
	 * inline-only DIEs of a function that has an ELF symbol (a clone's) */
	if (!has_code && (!kernel || !w->func_filter))
		return 0;
	declaring_die(w, die, &decl);
	/* C++: a constructor's linkage name is on its definition (C1, C2) */
	named = w->cxx ? *die : decl;
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	if (!name || !*name)
		return 0;
	if (kernel && w->func_filter && !want_func(w, name)) {
		if (has_code)
			cu__diag(w, D2B_INFO, die, "function '%s' left out: no ELF function symbol",
				 name);
		return 0;
	}
	why = unnamed_param(w, &decl);
	if (why && w->cxx && !cu__same(&decl, die)) {
		cu__diag(w, D2B_DEBUG, die, "function '%s': parameters from its definition", name);
		defining_die(w, die, &decl);
		why = unnamed_param(w, &decl);
	}
	if (why) {
		cu__diag(w, D2B_INFO, die, "function '%s' left out: %s", name, why);
		return 0;
	}
	proto = cu_types__proto(w, &decl, true);
	if (proto < 0)
		return proto;
	/* again: the types walked may have reused cu_scope.c's buffer */
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	external = has_flag(w, &named, DW_AT_external);
	func = d2b_btf__add_func(w->btf, name,
				 external && w->opts->funcs != D2B_FUNCS_KERNEL ?
				 D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC, proto);
	if (func < 0)
		return func;
	if (w->opts->funcs == D2B_FUNCS_KERNEL) {
		err = record_func(w, die, func, external);
		if (err < 0)
			return err;
	}
	if (w->opts->skip_decl_tags)
		return 0;
	err = cu_annot__decl_tags(w, &decl, func, -1);
	if (!err && !cu__same(&decl, die))
		err = cu_annot__decl_tags(w, die, func, -1);
	if (err < 0 || !cu__child(w, &decl, &child))
		return err;
	idx = 0;
	do {
		if (child.d.tag != DW_TAG_formal_parameter)
			continue;
		err = cu_annot__decl_tags(w, &child, func, idx++);
		if (err < 0)
			return err;
	} while (cu__next(w, &child));
	return 0;
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
	name_off = d2b_btf__add_str(w->btf, name);
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
			int off_tag = d2b_btf__add_str(w->btf, vals[i]);

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
