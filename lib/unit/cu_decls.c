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
#include "unit/cu_types.h"
#include "dwarf/dwarf_file.h"
#include "base/vec.h"

/* A flag of die or of the DIE it completes (DW_AT_external). */
static bool has_flag(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	bool flag = false;

	if (dwarf_attr_integrate(die, name, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

/* A declaration itself, not a definition completing one: DW_AT_declaration
 * must not be inherited through DW_AT_specification. */
static bool is_declaration(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	bool flag = false;

	if (dwarf_attr(die, DW_AT_declaration, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

/* The DIE that declares what die defines (bounded: files can loop). */
static void declaring_die(Dwarf_Die *die, Dwarf_Die *ret)
{
	Dwarf_Attribute attr;
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!dwarf_attr(ret, DW_AT_abstract_origin, &attr) &&
		    !dwarf_attr(ret, DW_AT_specification, &attr))
			return;
		if (!dwarf_formref_die(&attr, ret))
			return;
	}
}

/* All parameters named?  (FUNC requires it of every non-varargs one.) */
static const char *unnamed_param(struct cu *w, Dwarf_Die *decl)
{
	Dwarf_Die child;

	if (!dwarf_haschildren(decl) || dwarf_child(decl, &child) != 0)
		return NULL;
	do {
		const char *name;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		name = dwarf_diename(&child);
		if (!name || !*name)
			return "unnamed parameter";
	} while (cu__next(w, &child));
	return NULL;
}

/*
 * The register that holds a parameter on entry, per its DW_AT_location:
 * DW_OP_regN as the first location, or DW_OP_entry_value(DW_OP_regN) in
 * any, preferring the one the ABI expects.  -1 if none (optimized out).
 */
static int param_reg(Dwarf_Attribute *loc, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	Dwarf_Attribute entry;
	size_t len, inner_len;
	ptrdiff_t off = 0;
	int nth = 0, reg = -1;

	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &expr, &len)) > 0) {
		int first = nth++ == 0;

		if (len > 1 && expr[len - 1].atom == DW_OP_stack_value)
			len--;
		if (len != 1)
			continue;
		if (expr->atom >= DW_OP_reg0 && expr->atom <= DW_OP_reg31) {
			if (!first)
				continue;
			reg = expr->atom;
		} else if (expr->atom == DW_OP_entry_value || expr->atom == DW_OP_GNU_entry_value) {
			if (dwarf_getlocation_attr(loc, expr, &entry) != 0 ||
			    dwarf_getlocation(&entry, &inner, &inner_len) != 0 || inner_len != 1)
				continue;
			reg = inner->atom;
		} else {
			continue;
		}
		if (reg == expected)
			break;
	}
	return reg;
}

/* A struct passed by value (through typedefs and const): it may take
 * several registers, so register expectations do not hold after it. */
static bool is_struct_param(Dwarf_Die *param)
{
	Dwarf_Attribute attr;
	Dwarf_Die t = *param;
	int hops;

	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!dwarf_attr_integrate(&t, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
			return false;
		switch (dwarf_tag(&t)) {
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
static Dwarf_Off param_type(Dwarf_Die *param)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(param, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
		return 0;
	return dwarf_dieoffset(&t);
}

/*
 * Does the out-of-line instance die take the parameters its abstract origin
 * declares?  A clone (foo.constprop.0, foo.isra.0) that lost some lists the
 * parameters it kept first; the types, position by position, then differ
 * from the declared ones (as pahole compares them: a clone whose remaining
 * types happen to line up passes).
 */
static bool same_params(struct cu *w, Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Die a, b;
	bool more_a, more_b;

	more_a = dwarf_haschildren(die) && dwarf_child(die, &a) == 0;
	more_b = dwarf_haschildren(origin) && dwarf_child(origin, &b) == 0;
	for (;;) {
		while (more_a && dwarf_tag(&a) != DW_TAG_formal_parameter)
			more_a = cu__next(w, &a);
		while (more_b && dwarf_tag(&b) != DW_TAG_formal_parameter)
			more_b = cu__next(w, &b);
		if (!more_a || !more_b)
			return more_a == more_b;
		if (param_type(&a) != param_type(&b))
			return false;
		more_a = cu__next(w, &a);
		more_b = cu__next(w, &b);
	}
}

/*
 * What the kernel's function policy needs to know of a function with code
 * (die; decl declares it): does each parameter arrive where the ABI puts it?
 * As pahole decides it: a parameter passed in a register must be in the
 * ABI's register for its position (or the function has a struct parameter,
 * which shifts registers legitimately); one with no location, or a constant
 * value, is optimized out.
 */
static int record_func(struct cu *w, Dwarf_Die *die, int func, bool external)
{
	Dwarf_Die origin;
	struct unit *u = w->u;
	bool unexpected = false, has_struct = false;
	uint32_t flags = external ? UNIT_FUNC_EXTERNAL : 0;
	Dwarf_Attribute attr;
	Dwarf_Die child;
	int idx = 0, err;

	if (dwarf_haschildren(die) && dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			if (is_struct_param(&child))
				has_struct = true;
			if (idx >= w->nr_reg_params) {
				idx++;
				continue;
			}
			if (dwarf_attr(&child, DW_AT_location, &attr)) {
				int reg = param_reg(&attr, w->reg_params[idx]);

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
	if (dwarf_attr(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin) &&
	    !same_params(w, die, &origin))
		flags |= UNIT_FUNC_CLONE_CHANGED;
	err = VEC_RESERVE(u->funcs, u->funcs_cap, u->nr_funcs, 1);
	if (err)
		return err;
	u->funcs[u->nr_funcs].id = func;
	u->funcs[u->nr_funcs].flags = flags;
	u->nr_funcs++;
	return 0;
}

int cu_decls__subprogram(struct cu *w, Dwarf_Die *die)
{
	Dwarf_Die decl, child;
	const char *name, *why;
	int proto, func, err, idx;
	bool external, has_code, kernel;

	if (w->opts->funcs == D2B_FUNCS_NONE || is_declaration(die))
		return 0;
	has_code = dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
	kernel = w->opts->funcs == D2B_FUNCS_KERNEL;
	/* only functions with code; the kernel's policy also compares the
	 * inline-only DIEs of a function that has an ELF symbol (a clone's) */
	if (!has_code && (!kernel || !w->func_filter))
		return 0;
	declaring_die(die, &decl);
	name = dwarf_diename(&decl);
	if (!name || !*name)
		return 0;
	if (kernel && w->func_filter && !w->func_filter->want(w->func_filter->arg, name)) {
		if (has_code)
			cu__diag(w, D2B_INFO, die, "function '%s' left out: no ELF function symbol",
				 name);
		return 0;
	}
	why = unnamed_param(w, &decl);
	if (why) {
		cu__diag(w, D2B_INFO, die, "function '%s' left out: %s", name, why);
		return 0;
	}
	proto = cu_types__proto(w, &decl, true);
	if (proto < 0)
		return proto;
	external = has_flag(&decl, DW_AT_external);
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
	if (!err && decl.addr != die->addr)
		err = cu_annot__decl_tags(w, die, func, -1);
	if (err < 0 || !dwarf_haschildren(&decl) || dwarf_child(&decl, &child) != 0)
		return err;
	idx = 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		err = cu_annot__decl_tags(w, &child, func, idx++);
		if (err < 0)
			return err;
	} while (cu__next(w, &child));
	return 0;
}

/* The static address of a variable, if its location is just that. */
static bool variable_address(Dwarf_Die *die, uint64_t *ret)
{
	Dwarf_Attribute attr, addr_attr;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Addr addr;

	if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &nops) != 0 ||
	    nops != 1)
		return false;
	switch (ops[0].atom) {
	case DW_OP_addr:
		*ret = ops[0].number;
		return true;
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		if (dwarf_getlocation_attr(&attr, &ops[0], &addr_attr) != 0 ||
		    dwarf_formaddr(&addr_attr, &addr) != 0)
			return false;
		*ret = addr;
		return true;
	default:
		return false;
	}
}

int cu_decls__variable(struct cu *w, Dwarf_Die *die)
{
	const char *vals[UNIT_MAX_TAGS];
	struct unit_var *v;
	const char *name;
	uint64_t addr, off;
	size_t shndx;
	int type, name_off, n, i, err;

	if (w->opts->vars == D2B_VARS_NONE || is_declaration(die))
		return 0;
	name = dwarf_diename(die);
	if (!name || !*name)
		return 0;
	if (!variable_address(die, &addr)) {
		if (dwarf_hasattr(die, DW_AT_location))
			cu__diag(w, D2B_INFO, die, "variable '%s' left out: no static address", name);
		return 0;
	}
	if (dwarf_file__addr_section(w->df, addr, &shndx, &off) != 0 &&
	    dwarf_file__symbol_section(w->df, name, &shndx, &off) != 0) {
		cu__diag(w, D2B_INFO, die, "variable '%s' left out: address 0x%" PRIx64
			      " is in no allocated section", name, addr);
		return 0;
	}
	type = cu_types__type_of(w, die);
	if (type <= 0) {
		if (type == 0)
			cu__diag(w, D2B_INFO, die, "variable '%s' of void type left out", name);
		return type;
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
	v->linkage = has_flag(die, DW_AT_external) ? D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC;
	v->shndx = shndx;
	v->offset = off;
	v->tags_start = w->u->nr_tag_offs;
	if (!w->opts->skip_decl_tags) {
		Dwarf_Die decl;

		n = cu_annot__collect(w, die, ANNOT_DECL_TAG, vals, UNIT_MAX_TAGS);
		if (n == 0) {
			declaring_die(die, &decl);
			if (decl.addr != die->addr)
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
