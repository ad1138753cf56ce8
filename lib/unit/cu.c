// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What every translator of lib/unit shares: diagnostics, kept with the unit
 * and handed on when it is merged, so that their order does not depend on
 * which thread walked which unit; and reading DIEs.
 *
 * DIEs are read with lib/dwarf's die_reader, with libdw's meanings: the
 * helpers here are named after the libdw calls whose results they give
 * (dwarf_attr_integrate, dwarf_diename, dwarf_formudata, ...), so that the
 * translators read as they would over libdw.  A reference that leaves the
 * unit (DW_FORM_ref_addr, a type unit's signature, the dwz file) leads to
 * a unit the reader's index finds; it is loaded into one more die_unit,
 * kept until the walk ends.  libdw is left the location lists.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <dwarf.h>

#include "base/vec.h"
#include "unit/cu.h"

void cu__diag(struct cu *w, enum d2b_level level, const struct cu_die *die, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(&w->u->diag, level, NULL, die ? die->d.off : UINT64_MAX,
		  die ? (int)die->d.tag : 0, fmt, ap);
	va_end(ap);
}

enum { CU_WHY_LEN = 512 };	/* cu__corrupt()'s words (longer ones are cut) */

void cu__corrupt(struct cu *w, const char *fmt, ...)
{
	char why[CU_WHY_LEN];
	va_list ap;

	if (w->corrupt)
		return;
	w->corrupt = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cu__diag(w, D2B_ERROR, NULL, "corrupt .debug_info in compile unit %s: %s",
		 w->u->name ?: "(unnamed)", why);
}

/* ---- walking ---- */

/* One more step of a walk: false when there have been too many. */
static bool step(struct cu *w)
{
	if (w->steps_left) {
		w->steps_left--;
		return true;
	}
	cu__corrupt(w, "DIEs met again and again: does a DW_AT_sibling point into its own "
		    "DIE's subtree?");
	return false;
}

bool cu__child(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	int r;

	if (!die->d.has_children || !step(w))
		return false;
	r = die__child(die->du, &die->d, &ret->d);
	if (r < 0)
		cu__corrupt(w, "%s", cu__why(w));
	ret->du = die->du;
	return r > 0;
}

bool cu__next(struct cu *w, struct cu_die *die)
{
	struct die next;
	int r;

	if (!step(w))
		return false;
	r = die__sibling(die->du, &die->d, &next);
	if (r < 0)
		cu__corrupt(w, "%s", cu__why(w));
	if (r <= 0)
		return false;
	die->d = next;
	return true;
}

/* ---- attributes ---- */

void cu__attr_failed(struct cu *w)
{
	cu__corrupt(w, "%s", cu__why(w));
}

/* cu__attr_integrate() past die itself, which lacks the attribute */
bool cu__attr_inherited(struct cu *w, const struct cu_die *die, unsigned int name,
			struct die_attr *ret, struct cu_die *owner)
{
	struct cu_die cur = *die;
	struct die_attr ref;
	int i;

	for (i = 0; i < CU_MAX_INTEGRATE; i++) {
		if (i && cu__attr(w, &cur, name, ret)) {
			if (owner)
				*owner = cur;
			return true;
		}
		if (!cu__attr(w, &cur, DW_AT_abstract_origin, &ref) &&
		    !cu__attr(w, &cur, DW_AT_specification, &ref))
			return false;
		if (!cu__ref(w, &cur, &ref, &cur))
			return false;
	}
	return false;
}

const char *cu__alt_str(struct cu *w, const struct die_attr *a)
{
	const char *s;

	/* strings of the dwz file */
	if ((a->form == DW_FORM_GNU_strp_alt || a->form == DW_FORM_strp_sup) && w->uw->alt &&
	    die_reader__str(w->uw->alt, a->u, &s) == 0)
		return s;
	return NULL;
}

bool cu__flag_read(struct cu *w, const struct cu_die *die, unsigned int name)
{
	struct die_attr a;

	return cu__attr(w, die, name, &a) &&
	       (a.form == DW_FORM_flag || a.form == DW_FORM_flag_present) && a.u;
}

bool cu__udata(const struct die_attr *a, uint64_t *ret)
{
	switch (a->form) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		*ret = a->u;
		return true;
	default:
		return false;
	}
}

bool cu__attr_udata(struct cu *w, const struct cu_die *die, unsigned int name, uint64_t *ret)
{
	struct die_attr a;

	return cu__attr(w, die, name, &a) && cu__udata(&a, ret);
}

bool cu__is_expr(const struct cu_die *owner, const struct die_attr *a)
{
	switch (a->form) {
	case DW_FORM_exprloc:
		return true;
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
		return die_unit__header(owner->du)->version < 4;
	default:
		return false;
	}
}

bool cu__uleb(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	const uint8_t *q = *p;
	unsigned int shift = 0;
	uint64_t v = 0;

	for (; q < end; q++) {
		if (shift < 64)
			v |= (uint64_t)(*q & 0x7f) << shift;
		shift += 7;
		if (!(*q & 0x80)) {
			*p = q + 1;
			*ret = v;
			return true;
		}
	}
	return false;
}

/* ---- references ---- */

uint64_t cu__far_key(const struct cu *w, const struct cu_die *die)
{
	const struct die_unit_header *h = die_unit__header(die->du);

	return (uint64_t)(die_unit__reader(die->du) != die_unit__reader(w->du)) << 63 |
	       (uint64_t)(h->sec == DIE_SEC_TYPES) << 62 | die->d.off;
}

bool cu__libdw_die(struct cu *w, const struct cu_die *die, Dwarf_Die *ret)
{
	Dwarf *dw = die_reader__dwarf(die_unit__reader(die->du));

	(void)w;
	if (!dw)
		return false;
	if (die_unit__header(die->du)->sec == DIE_SEC_TYPES)
		return dwarf_offdie_types(dw, die->d.off, ret) != NULL;
	return dwarf_offdie(dw, die->d.off, ret) != NULL;
}

bool cu__libdw_location(struct cu *w, const struct cu_die *die, Dwarf_Attribute *ret)
{
	Dwarf_Die d;

	return cu__libdw_die(w, die, &d) && dwarf_attr(&d, DW_AT_location, ret);
}

/*
 * A unit the walk reads for the first time, loaded now or kept from an
 * earlier walk: the walk may take as many steps more in it.
 */
static void far_steps(struct cu *w, const struct die_unit *du)
{
	w->steps_left += CU_STEPS_PER_BYTE *
			 (die_unit__header(du)->next_off - die_unit__header(du)->off);
}

/*
 * The die_unit holding unit off of r's section sec: the unit walked, or
 * one of uw->far, loaded now if no DIE of this walk holds it.  far[0 ..
 * far_used) are the units this walk uses; those after it are kept from
 * earlier walks and may be reloaded.
 */
static struct die_unit *far_unit(struct cu *w, const struct die_reader *r, enum die_section sec,
				 uint64_t off)
{
	struct unit_walker *uw = w->uw;
	struct cu_far *f, tmp;
	size_t i;
	int err;

	if (r == die_unit__reader(w->du) && sec == DIE_SEC_INFO && off == w->unit_off)
		return w->du;
	for (i = 0; i < uw->nr_far; i++) {
		f = &uw->far[i];
		if (f->r != r || f->sec != sec || f->off != off)
			continue;
		if (i >= uw->far_used) {
			tmp = uw->far[uw->far_used];
			uw->far[uw->far_used] = *f;
			*f = tmp;
			f = &uw->far[uw->far_used++];
			far_steps(w, f->du);
		}
		return f->du;
	}
	if (uw->far_used == uw->nr_far) {
		if (VEC_RESERVE(uw->far, uw->far_cap, uw->nr_far, 1))
			return NULL;
		f = &uw->far[uw->nr_far];
		if (die_unit__new(r, &uw->why, &f->du))
			return NULL;
		f->off = UINT64_MAX;
		uw->nr_far++;
	}
	f = &uw->far[uw->far_used];
	if (die_unit__reader(f->du) != r) {
		struct die_unit *du;

		if (die_unit__new(r, &uw->why, &du))
			return NULL;
		die_unit__free(f->du);
		f->du = du;
	}
	f->r = r;
	f->sec = sec;
	f->off = UINT64_MAX;
	err = die_unit__load(f->du, sec, off);
	if (err) {
		cu__diag(w, D2B_WARN, NULL, "a reference leads to a unit that cannot be read: %s",
			 cu__why(w));
		return NULL;
	}
	f->off = off;
	uw->far_used++;
	far_steps(w, f->du);
	return f->du;
}

/* A reference leads nowhere: say why, held for the caller (cu__why()). */
__attribute__((format(printf, 2, 3)))
static bool ref_err(struct cu *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(&w->uw->why, D2B_ERROR, NULL, UINT64_MAX, 0, fmt, ap);
	va_end(ap);
	return false;
}

/* The DIE at off in unit unit_off of r's section sec. */
static bool die_in(struct cu *w, const struct die_reader *r, enum die_section sec,
		   uint64_t unit_off, uint64_t off, struct cu_die *ret)
{
	struct die_unit *du = far_unit(w, r, sec, unit_off);
	struct die d;

	if (!du)
		return ref_err(w, "the unit at 0x%llx cannot be read", (unsigned long long)unit_off);
	if (die_unit__die_at(du, off, &d) < 0)
		return false;	/* (du said why) */
	ret->d = d;
	ret->du = du;
	return true;
}

/*
 * A reference that leaves owner's unit: an offset in .debug_info
 * (DW_FORM_ref_addr), in the dwz file's (DW_FORM_GNU_ref_alt,
 * DW_FORM_ref_sup*), or a type unit's signature.
 */
static bool far_ref(struct cu *w, const struct cu_die *owner, const struct die_attr *a,
		    struct cu_die *ret)
{
	const struct die_reader *r = die_unit__reader(owner->du);
	enum die_section sec = DIE_SEC_INFO;
	uint64_t unit_off, off = a->u;

	switch (a->form) {
	case DW_FORM_ref_sig8:
		if (die_reader__type_unit(r, a->u, &sec, &unit_off, &off))
			return ref_err(w, "no type unit has signature 0x%llx",
				       (unsigned long long)a->u);
		return die_in(w, r, sec, unit_off, off, ret);
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_ref_sup4:
	case DW_FORM_ref_sup8:
		r = w->uw->alt;
		if (!r)
			return ref_err(w, "no supplementary (dwz) file to refer to");
		break;
	}
	if (die_reader__unit_of(r, DIE_SEC_INFO, off, &unit_off))
		return ref_err(w, "offset 0x%llx is in no unit", (unsigned long long)off);
	return die_in(w, r, DIE_SEC_INFO, unit_off, off, ret);
}

bool cu__ref(struct cu *w, const struct cu_die *owner, const struct die_attr *a,
	     struct cu_die *ret)
{
	const struct die_unit_header *h;
	struct die d;

	if (!die_form_is_unit_ref(a->form)) {
		switch (a->form) {
		case DW_FORM_ref_addr:
			h = die_unit__header(owner->du);
			if (h->sec == DIE_SEC_INFO && a->u >= h->die_off && a->u < h->next_off)
				break;	/* into this unit after all */
			return far_ref(w, owner, a, ret);
		case DW_FORM_ref_sig8:
		case DW_FORM_GNU_ref_alt:
		case DW_FORM_ref_sup4:
		case DW_FORM_ref_sup8:
			return far_ref(w, owner, a, ret);
		default:
			return ref_err(w, "form 0x%x is not a reference", a->form);
		}
	}
	/* ret may be owner; on failure it is left as it was */
	if (die_unit__die_at(owner->du, a->u, &d) < 0)
		return false;	/* (owner->du said why) */
	ret->d = d;
	ret->du = owner->du;
	return true;
}

bool cu__ref_attr(struct cu *w, const struct cu_die *owner, unsigned int name,
		  struct cu_die *ret)
{
	struct die_attr a;

	return cu__attr(w, owner, name, &a) && cu__ref(w, owner, &a, ret);
}

/* The byte size of the type of die, a parameter: a pointer is a word, a
 * type without DW_AT_byte_size is its own type's size; 0 if none. */
uint64_t cu__type_size(struct cu *w, const struct cu_die *die)
{
	struct cu_die owner, t;
	struct die_attr a;
	uint64_t size;
	int hops;

	if (!cu__attr_integrate(w, die, DW_AT_type, &a, &owner) || !cu__ref(w, &owner, &a, &t))
		return 0;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (t.d.tag == DW_TAG_pointer_type)
			return w->ptr_size;
		if (cu__attr_udata(w, &t, DW_AT_byte_size, &size) && size)
			return size;
		if (!cu__ref_attr(w, &t, DW_AT_type, &t))
			return 0;
	}
	return 0;
}
