// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The facts of a function a policy asks for (func_facts.h), read from its
 * DIEs as asked.  The parameters of the code and of its abstract origin are
 * listed once per function, on the first question about them, into the
 * walker's scratch (uw->fn.facts); the code's are taken from the list
 * cu_decls.c read already where the code declares itself.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>

#include "base/vec.h"
#include "dwarf/dwarf_file.h"
#include "unit/cu_types.h"
#include "unit/func_facts.h"

unsigned int fn_facts__machine(const struct fn_facts *fn)
{
	return dwarf_file__machine(fn->w->df);
}

unsigned int fn_facts__ptr_size(const struct fn_facts *fn)
{
	return fn->w->ptr_size;
}

const char *fn_facts__producer(const struct fn_facts *fn)
{
	return fn->w->producer;
}

bool fn_facts__external(const struct fn_facts *fn)
{
	return fn->external;
}

bool fn_facts__declares_itself(const struct fn_facts *fn)
{
	return cu__same(&fn->die, &fn->decl);
}

bool fn_facts__has_children(struct fn_facts *fn)
{
	struct cu_die child;

	return cu__child(fn->w, &fn->die, &child);
}

bool fn_facts__has_origin(const struct fn_facts *fn)
{
	return fn->has_origin;
}

static const struct cu_die *fn_die(const struct fn_facts *fn, enum fn_which which)
{
	return which == FN_ORIGIN ? &fn->origin : &fn->die;
}

bool fn_facts__has(struct fn_facts *fn, enum fn_which which, unsigned int name)
{
	if (which == FN_ORIGIN && !fn->has_origin)
		return false;
	return cu__has_attr(fn_die(fn, which), name);
}

bool fn_facts__udata(struct fn_facts *fn, enum fn_which which, unsigned int name, uint64_t *ret)
{
	if (which == FN_ORIGIN && !fn->has_origin)
		return false;
	return cu__attr_udata(fn->w, fn_die(fn, which), name, ret);
}

/* The parameters of the function DIE which, listed: the code's from the
 * declaration's list where the code declares itself (and so has it read) */
static int list_params(struct fn_facts *fn, enum fn_which which)
{
	struct unit_walker *uw = fn->w->uw;
	const struct cu_die *of = fn_die(fn, which);
	bool from_decl = which == FN_CODE && uw->fn.params_of.du && cu__same(of, &uw->fn.params_of);
	struct cu_die child;
	size_t k = 0;
	bool more;
	int err;

	if (which != FN_CODE && which != FN_ORIGIN)
		return -EINVAL;	/* (which says gcc 16 the arrays' bounds hold) */
	fn->listed[which] = true;
	fn->nr[which] = 0;
	if (which == FN_ORIGIN && !fn->has_origin)
		return 0;
	more = from_decl ? uw->fn.nr_params > 0 : cu__child(fn->w, of, &child);
	for (; more; more = from_decl ? ++k < uw->fn.nr_params : cu__next(fn->w, &child)) {
		if (from_decl)
			child = uw->fn.params[k];
		if (which == FN_CODE && child.d.tag == DW_TAG_unspecified_parameters)
			fn->varargs = child;
		if (child.d.tag != DW_TAG_formal_parameter)
			continue;
		err = VEC_RESERVE(uw->fn.facts[which], uw->fn.facts_cap[which], fn->nr[which], 1);
		if (err) {
			fn->nr[which] = 0;
			fn->err = err;
			return err;
		}
		uw->fn.facts[which][fn->nr[which]++] = child;
	}
	return 0;
}

size_t fn_facts__nr_params(struct fn_facts *fn, enum fn_which which)
{
	if (!fn->listed[which])
		list_params(fn, which);
	return fn->nr[which];
}

bool fn_facts__varargs(struct fn_facts *fn)
{
	if (!fn->listed[FN_CODE])
		list_params(fn, FN_CODE);
	return fn->varargs.du != NULL;
}

/* Parameter i of which (listed, and i in range: the policy asks so) */
static const struct cu_die *param(struct fn_facts *fn, enum fn_which which, size_t i)
{
	return &fn->w->uw->fn.facts[which][i];
}

/* Is die's type a struct, through typedefs and const? */
static bool is_struct(struct cu *w, const struct cu_die *die)
{
	struct cu_die owner, t = *die;
	struct die_attr a;
	int hops;

	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__attr_integrate(w, &t, DW_AT_type, &a, &owner) || !cu__ref(w, &owner, &a, &t))
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

bool fn_facts__param_has(struct fn_facts *fn, enum fn_which which, size_t i, unsigned int name)
{
	return cu__has_attr(param(fn, which, i), name);
}

uint64_t fn_facts__param_size(struct fn_facts *fn, enum fn_which which, size_t i)
{
	return cu__type_size(fn->w, param(fn, which, i));
}

bool fn_facts__param_is_struct(struct fn_facts *fn, enum fn_which which, size_t i)
{
	return is_struct(fn->w, param(fn, which, i));
}

const char *fn_facts__param_name(struct fn_facts *fn, enum fn_which which, size_t i)
{
	return cu__name(fn->w, param(fn, which, i));
}

bool fn_facts__param_location(struct fn_facts *fn, enum fn_which which, size_t i,
			      struct die_unit **du, struct die_attr *ret)
{
	const struct cu_die *p = param(fn, which, i);

	*du = p->du;
	return cu__attr(fn->w, p, DW_AT_location, ret);
}

bool fn_facts__param_libdw_location(struct fn_facts *fn, enum fn_which which, size_t i,
				    Dwarf_Attribute *ret)
{
	return cu__libdw_location(fn->w, param(fn, which, i), ret);
}

/* The type DIE offset of a parameter, through its abstract origin. */
static uint64_t param_type(struct cu *w, const struct cu_die *p)
{
	struct cu_die owner, t;
	struct die_attr a;

	return cu__attr_integrate(w, p, DW_AT_type, &a, &owner) && cu__ref(w, &owner, &a, &t) ?
	       t.d.off : 0;
}

bool fn_facts__same_types(struct fn_facts *fn)
{
	size_t n = fn_facts__nr_params(fn, FN_CODE), i;

	if (!fn->has_origin)
		return true;
	if (n != fn_facts__nr_params(fn, FN_ORIGIN))
		return false;
	for (i = 0; i < n; i++) {
		if (param_type(fn->w, param(fn, FN_CODE, i)) !=
		    param_type(fn->w, param(fn, FN_ORIGIN, i)))
			return false;
	}
	return true;
}

bool fn_facts__param_origin(struct fn_facts *fn, size_t i, int *ret)
{
	struct cu_die oparam;
	size_t k, n;

	if (!cu__ref_attr(fn->w, param(fn, FN_CODE, i), DW_AT_abstract_origin, &oparam) ||
	    !fn->has_origin)
		return false;
	n = fn_facts__nr_params(fn, FN_ORIGIN);
	*ret = -1;
	for (k = 0; k < n; k++) {
		const struct cu_die *p = param(fn, FN_ORIGIN, k);

		if (p->d.off == oparam.d.off && p->du == fn->origin.du) {
			*ret = (int)k;
			break;
		}
	}
	return true;
}

int fn_facts__origin_param_code(struct fn_facts *fn, size_t oi)
{
	const struct cu_die *oparam = param(fn, FN_ORIGIN, oi);
	size_t n = fn_facts__nr_params(fn, FN_CODE), i;
	struct cu_die o;

	for (i = 0; i < n; i++) {
		if (cu__ref_attr(fn->w, param(fn, FN_CODE, i), DW_AT_abstract_origin, &o) &&
		    cu__same(&o, oparam))
			return (int)i;
	}
	return -1;
}

/* The member at byte at of the struct p's own type is, into *ret. */
static bool member_at(struct cu *w, const struct cu_die *p, uint64_t at, struct cu_die *ret)
{
	struct cu_die t;
	uint64_t size, off;
	int hops;

	if (!cu__ref_attr(w, p, DW_AT_type, &t))
		return false;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (cu__attr_udata(w, &t, DW_AT_byte_size, &size) && size)
			break;
		if (!cu__ref_attr(w, &t, DW_AT_type, &t))
			return false;
	}
	if (hops == CU_MAX_REF_HOPS || t.d.tag != DW_TAG_structure_type || !cu__child(w, &t, ret))
		return false;
	do {
		if (ret->d.tag != DW_TAG_member)
			continue;
		if (cu__attr_udata(w, ret, DW_AT_data_bit_offset, &off)) {
			if (off == at * 8)
				return true;
		} else if (cu__attr_udata(w, ret, DW_AT_data_member_location, &off) && off == at) {
			return true;
		}
	} while (cu__next(w, ret));
	return false;
}

bool fn_facts__param_member(struct fn_facts *fn, size_t i, uint64_t at, struct fn_member *ret)
{
	struct cu_die m;

	if (!member_at(fn->w, param(fn, FN_CODE, i), at, &m))
		return false;
	ret->name = cu__name(fn->w, &m);
	ret->has_name = cu__has_attr(&m, DW_AT_name);
	ret->has_type = cu__has_attr(&m, DW_AT_type);
	ret->is_struct = is_struct(fn->w, &m);
	return true;
}

int fn_facts__proto(struct fn_facts *fn, const struct fn_proto_param *v, size_t n, bool varargs)
{
	struct cu_die *dies = NULL;
	const char **names = NULL;
	size_t k, nr = 0;
	int ret = -ENOMEM;

	if (!(dies = calloc(n + 1, sizeof(*dies))) || !(names = calloc(n + 1, sizeof(*names))))
		goto out;
	for (k = 0; k < n; k++) {
		const struct cu_die *p = param(fn, FN_CODE, v[k].i);

		dies[nr] = *p;
		/* an out-of-line instance's parameter: its declaration's */
		if (!cu__has_attr(p, DW_AT_type))
			cu__ref_attr(fn->w, p, DW_AT_abstract_origin, &dies[nr]);
		if (v[k].member && !member_at(fn->w, p, v[k].member_at, &dies[nr]))
			dies[nr] = *p;
		names[nr++] = v[k].name;
	}
	if (varargs && fn->varargs.du)
		dies[nr++] = fn->varargs;
	ret = cu_types__proto_of(fn->w, &fn->decl, dies, names, nr);
out:
	free(names);
	free(dies);
	return ret;
}
