// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Inline sites: theory
 *
 * With d2b_opts.inline_sites, the body of every function with code is
 * walked for DW_TAG_inlined_subroutine DIEs (in lexical blocks, and inside
 * other inlined calls), and each with an address becomes a site: the
 * function inlined there, and what the DWARF says of each of its
 * parameters at the site's entry.  Only facts are recorded (unit.h); what
 * a kernel makes of them is lib/kernel's (loc_sites.c).
 *
 *   address   DW_AT_entry_pc (an address, or in DWARF 5 a constant added
 *             to DW_AT_low_pc), else DW_AT_low_pc, else the first range
 *             of DW_AT_ranges (read by libdw); then its ELF section and
 *             offset there.  A site in no allocated section is none.
 *   function  the DW_AT_abstract_origin chain up to a subprogram (an
 *             inlined call inside an out-of-line copy of an inline
 *             function names the copy's abstract inlined call first).
 *             Each function once per unit: its prototype as declared (as
 *             cu_decls.c makes a FUNC's), its name and linkage, and the
 *             keys of its parameters' DIEs.  A function whose declaring
 *             DIE names not every parameter, or lists another number of
 *             them, has no sites (a FUNC needs named parameters).
 *   params    the site's DW_TAG_formal_parameter children, each matched to
 *             its position by its abstract origin chain; a parameter
 *             without one (optimized out) is known nowhere.  Its
 *             DW_AT_const_value, else the expression of its DW_AT_location
 *             that holds at the site's address (die_loc.h), as
 *             die_expr__value() reads it.  DW_OP_addr values become a
 *             section and an offset, as the site's address.
 *
 * Depth is bounded: nesting comes from the file.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "btf/btf.h"
#include "dwarf/die_loc.h"
#include "dwarf/dwarf_file.h"
#include "unit/cu_scope.h"
#include "unit/cu_sites.h"
#include "unit/cu_types.h"

/* An address attribute's value: the forms of the address class. */
static bool is_addr_form(unsigned int form)
{
	switch (form) {
	case DW_FORM_addr:
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_addr_index:
		return true;
	default:
		return false;
	}
}

/* die's DW_AT_low_pc: false if none. */
static bool low_pc(struct cu *w, const struct cu_die *die, uint64_t *ret)
{
	struct die_attr a;

	if (!cu__attr(w, die, DW_AT_low_pc, &a) || !is_addr_form(a.form))
		return false;
	*ret = a.u;
	return true;
}

/* The first address of die's DW_AT_ranges, through libdw. */
static bool first_range(struct cu *w, const struct cu_die *die, uint64_t *ret)
{
	Dwarf_Addr base, start, end;
	Dwarf_Die dd;

	if (!cu__has_attr(die, DW_AT_ranges) || !cu__libdw_die(w, die, &dd))
		return false;
	if (dwarf_ranges(&dd, 0, &base, &start, &end) <= 0)
		return false;
	*ret = start;
	return true;
}

/* Where the code of die (an inlined call, a function) is entered. */
static bool entry_pc(struct cu *w, const struct cu_die *die, uint64_t *ret)
{
	struct die_attr a;
	uint64_t low;

	if (cu__attr(w, die, DW_AT_entry_pc, &a)) {
		if (is_addr_form(a.form)) {
			*ret = a.u;
			return true;
		}
		if (cu__udata(&a, ret) && low_pc(w, die, &low)) {
			*ret += low;
			return true;
		}
	}
	return low_pc(w, die, ret) || first_range(w, die, ret);
}

/* The subprogram an inlined call's DW_AT_abstract_origin chain leads to. */
static bool origin_of(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__ref_attr(w, ret, DW_AT_abstract_origin, ret))
			return false;
		if (ret->d.tag == DW_TAG_subprogram)
			return true;
	}
	return false;
}

/* The DIE that declares fn (its DW_AT_specification chain). */
static void declaring(struct cu *w, const struct cu_die *fn, struct cu_die *ret)
{
	int hops;

	*ret = *fn;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__ref_attr(w, ret, DW_AT_specification, ret) &&
		    !cu__ref_attr(w, ret, DW_AT_abstract_origin, ret))
			return;
	}
}

/*
 * The parameters of fn: their keys appended to w->sites.param_keys (keys),
 * or only counted (!keys); *named: are all named?  Returns how many,
 * varargs counted (with keys: none), or a negative errno.
 */
static int list_params(struct cu *w, const struct cu_die *fn, bool keys, bool *named)
{
	struct cu_die kid;
	int n = 0, err;

	*named = true;
	if (!cu__child(w, fn, &kid))
		return 0;
	do {
		if (kid.d.tag == DW_TAG_unspecified_parameters && !keys) {
			n++;
		} else if (kid.d.tag == DW_TAG_formal_parameter) {
			const char *name = keys ? "" : cu__name(w, &kid);

			if (!name || !*name)
				*named = false;
			if (keys) {
				err = VEC_RESERVE(w->sites.keys, w->sites.keys_cap, w->sites.nr_keys, 1);
				if (err)
					return err;
				w->sites.keys[w->sites.nr_keys++] = cu__far_key(w, &kid);
			}
			n++;
		}
	} while (cu__next(w, &kid));
	return n;
}

/* DW_AT_external, of fn or of the DIE it completes. */
static bool external(struct cu *w, const struct cu_die *fn)
{
	struct die_attr a;

	return cu__attr_integrate(w, fn, DW_AT_external, &a, NULL) &&
	       (a.form == DW_FORM_flag || a.form == DW_FORM_flag_present) && a.u;
}

/*
 * Make the record of the function inlined, fn (a subprogram), into o:
 * o->fn stays -1 if it has no sites (said why).
 */
static int make_origin(struct cu *w, const struct cu_die *fn, struct cu_site_origin *o)
{
	struct cu_die decl, named;
	struct unit_site_fn *f;
	const char *name;
	bool all_named;
	int n, nd, proto, name_off, err;

	declaring(w, fn, &decl);
	named = w->cxx ? *fn : decl;
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	if (!name || !*name)
		return 0;
	o->keys_start = w->sites.nr_keys;
	n = list_params(w, fn, true, &all_named);
	nd = n < 0 ? n : list_params(w, &decl, false, &all_named);
	if (nd < 0)
		return nd;
	o->nr_keys = w->sites.nr_keys - o->keys_start;
	if (!all_named || nd < n || nd > n + 1) {
		cu__diag(w, D2B_DEBUG, fn, "inline sites of '%s' left out: %s", name,
			 all_named ? "its declaration lists other parameters" :
			 "unnamed parameter");
		return 0;
	}
	proto = cu_types__proto(w, &decl, true);
	if (proto < 0)
		return proto;
	/* again: the types walked may have reused cu_scope.c's buffer */
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	name_off = cu__add_str(w, name);
	if (name_off < 0)
		return name_off;
	err = VEC_RESERVE(w->u->site_fns, w->u->site_fns_cap, w->u->nr_site_fns, 1);
	if (err)
		return err;
	f = &w->u->site_fns[w->u->nr_site_fns];
	f->name_off = name_off;
	f->proto = proto;
	f->nr_params = nd;
	f->external = external(w, &named);
	o->fn = (int32_t)w->u->nr_site_fns++;
	return 0;
}

/* The record of the function inlined, fn, made once per unit: *ret. */
static int origin(struct cu *w, const struct cu_die *fn, const struct cu_site_origin **ret)
{
	uint64_t key = cu__far_key(w, fn), i;
	struct cu_site_origin *o;
	int err;

	if (hmap__find(&w->sites.by_key, key, &i)) {
		*ret = &w->sites.origins[i];
		return 0;
	}
	err = VEC_RESERVE(w->sites.origins, w->sites.origins_cap, w->sites.nr_origins, 1);
	if (err)
		return err;
	o = &w->sites.origins[w->sites.nr_origins];
	memset(o, 0, sizeof(*o));
	o->fn = -1;
	err = make_origin(w, fn, o);
	if (err < 0)
		return err;
	err = hmap__add(&w->sites.by_key, key, w->sites.nr_origins);
	if (err)
		return err;
	*ret = &w->sites.origins[w->sites.nr_origins++];
	return 0;
}

/* The position of an inlined call's parameter among o's: -1 if none. */
static int param_position(struct cu *w, const struct cu_site_origin *o, const struct cu_die *p)
{
	struct cu_die at = *p;
	uint32_t i;
	int hops;

	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		uint64_t key;

		if (!cu__ref_attr(w, &at, DW_AT_abstract_origin, &at))
			return -1;
		key = cu__far_key(w, &at);
		for (i = 0; i < o->nr_keys; i++)
			if (w->sites.keys[o->keys_start + i] == key)
				return (int)i;
	}
	return -1;
}

/* A constant attribute's value (DW_AT_const_value) into *l. */
static void const_value(const struct die_attr *a, bool big_endian, struct unit_loc *l)
{
	uint64_t v = 0, i;

	switch (a->form) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		l->value = (uint64_t)a->s;
		l->is_signed = true;
		break;
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
	case DW_FORM_exprloc:
		if (!a->len || a->len > 8)
			return;
		for (i = 0; i < a->len; i++)
			v |= (uint64_t)a->block[big_endian ? i : a->len - 1 - i] << (8 * (a->len - 1 - i));
		l->value = v;
		break;
	default:
		if (!cu__udata(a, &l->value))
			return;
	}
	l->kind = DIE_VAL_CONST;
}

/* What the DWARF says of parameter p (of an inlined call) at address pc. */
static void param_loc(struct cu *w, const struct cu_die *p, uint64_t pc, struct unit_loc *l)
{
	const uint8_t *expr;
	struct die_val v;
	struct die_attr a;
	size_t len, shndx;
	uint64_t off;

	l->size = (uint32_t)cu__type_size(w, p);
	if (cu__attr(w, p, DW_AT_const_value, &a)) {
		const_value(&a, w->big_endian, l);
		return;
	}
	if (!cu__attr(w, p, DW_AT_location, &a) ||
	    die_loc__at(p->du, &a, w->sites.base, pc, &expr, &len) <= 0 ||
	    die_expr__value(p->du, expr, len, &v) || v.kind == DIE_VAL_NONE)
		return;
	if (v.kind == DIE_VAL_ADDR) {
		if (dwarf_file__addr_section(w->df, v.value, &shndx, &off) != 0 || shndx > UINT32_MAX)
			return;
		v.reg = (uint32_t)shndx;
		v.value = off;
	} else if (v.kind == DIE_VAL_MEM || v.kind == DIE_VAL_REG_OFF) {
		v.value = (uint64_t)v.off;
	}
	l->kind = (uint8_t)v.kind;
	l->is_signed = v.is_signed;
	l->reg = v.reg;
	l->reg2 = v.reg2;
	l->value = v.value;
}

/* One inlined call, die, in the function entered at fn_pc. */
static int site(struct cu *w, const struct cu_die *die, uint64_t fn_pc)
{
	const struct cu_site_origin *o = NULL;
	const struct unit_site_fn *f;
	struct unit *u = w->u;
	struct unit_site *s;
	struct cu_die fn, kid;
	uint64_t pc, off;
	size_t shndx, i;
	int err, at;

	if (!entry_pc(w, die, &pc) || !pc || !origin_of(w, die, &fn))
		return 0;
	if (dwarf_file__addr_section(w->df, pc, &shndx, &off) != 0)
		return 0;
	err = origin(w, &fn, &o);
	if (err < 0 || o->fn < 0)
		return err;
	f = &u->site_fns[o->fn];
	err = VEC_RESERVE(u->sites, u->sites_cap, u->nr_sites, 1);
	if (!err)
		err = VEC_RESERVE(u->locs, u->locs_cap, u->nr_locs, f->nr_params);
	if (err)
		return err;
	s = &u->sites[u->nr_sites++];
	s->fn = (uint32_t)o->fn;
	s->locs_start = (uint32_t)u->nr_locs;
	s->shndx = shndx;
	s->offset = off;
	s->at_fn_entry = pc == fn_pc;
	memset(&u->locs[u->nr_locs], 0, f->nr_params * sizeof(*u->locs));
	u->nr_locs += f->nr_params;
	if (!cu__child(w, die, &kid))
		return 0;
	do {
		if (kid.d.tag != DW_TAG_formal_parameter)
			continue;
		at = param_position(w, o, &kid);
		if (at < 0 || (uint32_t)at >= f->nr_params)
			continue;
		i = s->locs_start + (size_t)at;
		if (u->locs[i].kind == DIE_VAL_NONE)
			param_loc(w, &kid, pc, &u->locs[i]);
	} while (cu__next(w, &kid));
	return 0;
}

/* The inlined calls among the children of scope, at depth. */
static int walk(struct cu *w, const struct cu_die *scope, uint64_t fn_pc, int depth)
{
	struct cu_die kid;
	int err;

	if (depth > CU_MAX_SCOPE_DEPTH || !cu__child(w, scope, &kid))
		return 0;
	do {
		unsigned int tag = kid.d.tag;

		err = tag == DW_TAG_inlined_subroutine ? site(w, &kid, fn_pc) : 0;
		/* and the calls inlined into it, or in the block */
		if (err >= 0 && kid.d.has_children &&
		    (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block))
			err = walk(w, &kid, fn_pc, depth + 1);
		if (err < 0)
			return err;
	} while (cu__next(w, &kid));
	return 0;
}

int cu_sites__function(struct cu *w, const struct cu_die *fn)
{
	uint64_t fn_pc;

	if (!w->sites.started) {
		struct die_attr a;

		/* the unit's base address, where location lists start from */
		w->sites.base = cu__attr(w, &w->root, DW_AT_low_pc, &a) ? a.u : 0;
		w->sites.started = true;
	}
	if (!fn->d.has_children || !entry_pc(w, fn, &fn_pc))
		return 0;
	return walk(w, fn, fn_pc, 0);
}

void cu_sites__release(struct cu *w)
{
	hmap__release(&w->sites.by_key);
	free(w->sites.origins);
	free(w->sites.keys);
	memset(&w->sites, 0, sizeof(w->sites));
}
