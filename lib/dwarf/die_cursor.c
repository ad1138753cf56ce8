// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Units loaded and their DIEs read and walked (passes 1 and 2 of the DIE
 * reader's theory, in die_reader.c): die_unit__load() parses the header
 * (die_reader.c) and the abbreviations (die_abbrev.c), then reads the unit
 * DIE's bases; read_die() finds a DIE's abbreviation and the end of its
 * attributes; child and sibling navigation, and a cursor that reads DIEs
 * in section order counting depth, bounded by DIE_MAX_DEPTH.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_internal.h"

/* Skip all of a DIE's attributes, by a's skip program. */
static inline int skip_ops(struct die_unit *u, const uint8_t *die, const struct abbrev *a,
			   const uint8_t **p, const uint8_t *end)
{
	const struct skip_op *op = &u->tab.ops[a->first_op], *last = op + a->nops;
	int err;

	for (; op < last; op++) {
		err = skip_one(u, die, op->form, op->skip, op->size, p, end);
		if (err)
			return err;
	}
	return 0;
}
/* read_die() past its common case: a long code, an error, a DIE whose
 * attributes' sizes vary (out of line: the common case then saves no
 * registers it does not use). */
static __attribute__((noinline)) int read_die_slow(struct die_unit *u, const uint8_t *p,
						   struct die *ret)
{
	const uint8_t *q = p;
	const struct abbrev *a;
	uint64_t code;
	int err;

	if (uleb(&q, u->end, &code))
		return die_unit_err(u, -EINVAL, p, "abbreviation code runs past the unit's end");
	a = find_abbrev(u, code);
	if (!a)
		return die_unit_err(u, -EINVAL, p, "abbreviation code %llu is not in the unit's table",
				(unsigned long long)code);
	ret->off = p - u->base;
	ret->tag = a->tag;
	ret->has_children = a->has_children;
	ret->abbrev = (uint32_t)(a - u->tab.abbrevs);
	ret->names = a->names;
	ret->attrs = q;
	if (a->fixed_size != VAR_SIZE) {
		if ((size_t)(u->end - q) < a->fixed_size)
			return die_unit_err(u, -EINVAL, p, "DIE runs past the unit's end");
		ret->end = q + a->fixed_size;
		return 0;
	}
	err = skip_ops(u, p, a, &q, u->end);
	ret->end = q;
	return err;
}

/* The DIE at p (a non-null entry, p < u->end), all its bytes checked. */
static inline int read_die(struct die_unit *u, const uint8_t *p, struct die *ret)
{
	const struct abbrev *a;

	if (*p >= 0x80)
		return read_die_slow(u, p, ret);
	a = find_abbrev(u, *p);
	if (!a || a->fixed_size == VAR_SIZE || (size_t)(u->end - p - 1) < a->fixed_size)
		return read_die_slow(u, p, ret);
	ret->off = p - u->base;
	ret->tag = a->tag;
	ret->has_children = a->has_children;
	ret->abbrev = (uint32_t)(a - u->tab.abbrevs);
	ret->names = a->names;
	ret->attrs = p + 1;
	ret->end = p + 1 + a->fixed_size;
	return 0;
}

/*
 * Before DWARF 5 the unit type is in the unit DIE; libdw's rules
 * (libdw_findcu.c): GNU DebugFission units have DW_AT_GNU_dwo_id.
 */
static void unit_type_v4(struct die_unit *u, const struct die *root, const struct die_attr *id)
{
	if (root->tag == DW_TAG_partial_unit)
		u->hdr.unit_type = DW_UT_partial;
	else if (root->tag == DW_TAG_type_unit)
		u->hdr.unit_type = DW_UT_type;
	if (root->tag != DW_TAG_compile_unit || !die_attr__is_constant(id))
		return;
	u->hdr.signature = id->u;
	u->hdr.unit_type = !root->has_children && die__has_attr(u, root, DW_AT_GNU_dwo_name) ?
		DW_UT_skeleton : DW_UT_split_compile;
}

/*
 * DW_AT_str_offsets_base, absent from a split unit: past the DWARF 5
 * header of its contribution (the section's start outside a package).
 */
static uint64_t str_offsets_base(const struct die_unit *u)
{
	const struct die_bytes *so = &u->r->sec[DIE_SEC_STR_OFFSETS];
	uint64_t start = u->str_offsets_start;
	unsigned int hsize;

	if (u->hdr.version < 5 || start > so->size || so->size - start < 8)
		return start;
	hsize = rd32(so->buf + start, u->r->swap) == 0xffffffff ? 16 : 8;
	return so->size - start >= hsize &&
	       rd16(so->buf + start + hsize - 4, u->r->swap) == 5 ? start + hsize : start;
}

/* In a package: the unit's contributions, from the index. */
static int package_contributions(struct die_unit *u, enum die_section sec, uint64_t off)
{
	const struct dwp_row *row;

	u->abbrev_start = u->str_offsets_start = 0;
	if (!u->r->nr_pkg)
		return 0;
	row = die_reader_package_row(u->r, sec, off);
	if (!row || row->off[DWP_UNITS] != off)
		return die_unit_err(u, -EINVAL, NULL, "the package index lists no unit at 0x%llx "
				"of .debug_%s.dwo", (unsigned long long)off, die_section_names[sec]);
	u->abbrev_start = row->off[DWP_ABBREV];
	u->str_offsets_start = row->off[DWP_STR_OFFSETS];
	return 0;
}

void die_unit__set_addr_base(struct die_unit *u, uint64_t base)
{
	u->addr_base = base;
}

uint64_t die_unit__addr_base(const struct die_unit *u)
{
	return u->addr_base;
}

/*
 * The split unit of a .dwo file or package whose dwo_id is id: the
 * index's row in a package, else the units one by one (before DWARF 5 the
 * dwo_id is an attribute of the unit DIE).
 */
int die_reader__split_unit(const struct die_reader *r, uint64_t id, uint64_t *ret)
{
	struct die_unit *u;
	size_t i;
	int err;

	for (i = 0; i < r->nr_pkg; i++) {
		if (!r->pkg[i].is_type && r->pkg[i].sig == id) {
			*ret = r->pkg[i].off[DWP_UNITS];
			return 0;
		}
	}
	if (r->nr_pkg)
		return -ENOENT;
	err = die_unit__new(r, NULL, &u);	/* (a unit that fails is not it) */
	if (err)
		return err;
	err = -ENOENT;
	for (i = 0; i < r->nr_units[0]; i++) {
		if (die_unit__load(u, DIE_SEC_INFO, r->units[0][i].off))
			continue;
		if (u->hdr.unit_type == DW_UT_split_compile && u->hdr.signature == id) {
			*ret = r->units[0][i].off;
			err = 0;
			break;
		}
	}
	die_unit__free(u);
	return err;
}

/*
 * Units often share an abbreviation table (dwz's partial units: thousands
 * of them one table): the tables decoded for the last unit serve the next
 * one when the table and everything its decoding depends on (the sizes of
 * addresses and offsets, the version) are the same.
 */
static bool same_abbrevs(const struct die_unit *u)
{
	return u->tab.valid && u->tab.abbrev_off == u->abbrev_start + u->hdr.abbrev_off &&
	       u->tab.version == u->hdr.version && u->tab.addr_size == u->hdr.addr_size &&
	       u->tab.offset_size == u->hdr.offset_size;
}

static void keep_abbrevs(struct die_unit *u)
{
	u->tab.valid = true;
	u->tab.abbrev_off = u->abbrev_start + u->hdr.abbrev_off;
	u->tab.version = (uint8_t)u->hdr.version;
	u->tab.addr_size = (uint8_t)u->hdr.addr_size;
	u->tab.offset_size = (uint8_t)u->hdr.offset_size;
}

int die_unit__load(struct die_unit *u, enum die_section sec, uint64_t off)
{
	enum { STR_OFFSETS_BASE, ADDR_BASE, GNU_ADDR_BASE, GNU_DWO_ID, NR_WANT };
	struct die_attr want[NR_WANT] = {
		{ .name = DW_AT_str_offsets_base }, { .name = DW_AT_addr_base },
		{ .name = DW_AT_GNU_addr_base }, { .name = DW_AT_GNU_dwo_id },
	};
	struct die root = { 0 };	/* (gcc 16's LTO cannot see err > 0 never comes) */
	int err;

	u->loaded = false;
	if (sec != DIE_SEC_INFO && sec != DIE_SEC_TYPES)
		return die_unit_err(u, -EINVAL, NULL, "DIEs are not in section %d", sec);
	err = die_unit_parse_header(u, sec, off);
	if (!err)
		err = package_contributions(u, sec, off);
	if (!err && !same_abbrevs(u)) {
		u->tab.valid = false;
		err = die_unit_parse_abbrevs(u);
		if (!err)
			keep_abbrevs(u);
	}
	if (!err && !*u->die0)
		err = die_unit_err(u, -EINVAL, u->die0, "a null entry, not the unit DIE");
	if (!err)
		err = read_die(u, u->die0, &root);
	if (!err)
		err = die__attrs(u, &root, want, NR_WANT);
	if (err < 0)
		return err;
	if (u->hdr.version < 5 && sec == DIE_SEC_INFO)
		unit_type_v4(u, &root, &want[GNU_DWO_ID]);
	u->str_offsets_base = want[STR_OFFSETS_BASE].form ? want[STR_OFFSETS_BASE].u :
		str_offsets_base(u);
	u->addr_base = want[ADDR_BASE].form ? want[ADDR_BASE].u : want[GNU_ADDR_BASE].u;
	u->loaded = true;
	return 0;
}

/*
 * Prefetching a unit.  A walk of a whole unit reads its DIEs in order, but
 * it also follows each type reference to a DIE it has not read yet, most
 * often further on, and each such read would miss the caches: the first
 * byte of the DIE a reference names would be a large part of cu__ref()'s
 * time.  Asking for all the unit's lines at once, as it is loaded, lets
 * their misses overlap and leaves the unit in the cache for the walk.  A
 * huge unit (C++) is asked for only up to PREFETCH_MAX, a part of a
 * core's cache.
 */
enum {
	PREFETCH_MAX = 1 << 20,		/* bytes */
	PREFETCH_LINE = 64,		/* bytes a prefetch brings, at least */
};

void die_unit__prefetch(const struct die_unit *u)
{
	const uint8_t *p = u->die0, *end = u->end;

	if (!u->loaded || !p || end <= p)
		return;
	if ((size_t)(end - p) > PREFETCH_MAX)
		end = p + PREFETCH_MAX;
	for (; p < end; p += PREFETCH_LINE)
		__builtin_prefetch(p, 0, 2);
}

int die_unit__root(struct die_unit *u, struct die *ret)
{
	if (!u->loaded)
		return die_unit_err(u, -EINVAL, NULL, "no unit loaded");
	return read_die(u, u->die0, ret);
}

int die_unit__die_at(struct die_unit *u, uint64_t off, struct die *ret)
{
	if (!u->loaded)
		return die_unit_err(u, -EINVAL, NULL, "no unit loaded");
	if (off < u->hdr.die_off || off >= u->hdr.next_off)
		return die_unit_err(u, -ENOENT, NULL, "offset 0x%llx is outside the unit's DIEs",
				(unsigned long long)off);
	if (!u->base[off])
		return die_unit_err(u, -ENOENT, u->base + off, "a null entry, not a DIE");
	return read_die(u, u->base + off, ret);
}

/*
 * Where d's next sibling would start: from DW_AT_sibling when it has one
 * (which must point past d, inside the unit), else past its subtree.
 */
static int after_subtree(struct die_unit *u, const struct die *d, const uint8_t **ret)
{
	const struct abbrev *a = &u->tab.abbrevs[d->abbrev];
	const uint8_t *p = d->end;
	unsigned int level = 1;
	struct die c;
	int err;

	if (!d->has_children) {
		*ret = d->end;
		return 0;
	}
	if (a->sibling != NO_ATTR) {
		struct die_attr sib;

		err = die_attr_at(u, d, a->sibling, &sib);
		if (err < 0)
			return err;
		if (sib.form != DW_FORM_ref_addr && !die_form_is_unit_ref(sib.form))
			goto scan;	/* not a reference into this unit */
		if (sib.u < (uint64_t)(d->end - u->base) || sib.u > u->hdr.next_off)
			return die_unit_err(u, -EINVAL, u->base + d->off,
					"DW_AT_sibling 0x%llx does not point past the DIE",
					(unsigned long long)sib.u);
		*ret = u->base + sib.u;
		return 0;
	}
scan:
	while (level) {
		if (p >= u->end)
			break;		/* missing null entries end at the unit's end */
		if (!*p) {
			p++;
			level--;
			continue;
		}
		err = read_die(u, p, &c);
		if (err)
			return err;
		p = c.end;
		if (c.has_children && ++level > DIE_MAX_DEPTH)
			return die_unit_err(u, -E2BIG, u->base + c.off, "DIEs nested deeper than %d",
					DIE_MAX_DEPTH);
	}
	*ret = p;
	return 0;
}

int die__child(struct die_unit *u, const struct die *d, struct die *ret)
{
	int err;

	if (!d->has_children || d->end >= u->end || !*d->end)
		return 0;
	err = read_die(u, d->end, ret);
	return err ? err : 1;
}

int die__sibling(struct die_unit *u, const struct die *d, struct die *ret)
{
	const uint8_t *p;
	int err;

	if (d->off == u->hdr.die_off)
		return 0;	/* the unit DIE has none */
	if (!d->has_children) {
		p = d->end;	/* (after_subtree()'s answer, without the call) */
	} else {
		err = after_subtree(u, d, &p);
		if (err)
			return err;
	}
	if (p >= u->end || !*p)
		return 0;
	err = read_die(u, p, ret);
	return err ? err : 1;
}

void die_cursor__init(struct die_unit *u, struct die_cursor *c)
{
	c->depth = 0;
	c->level = 0;
	c->pos = u->loaded ? u->die0 : NULL;
}

int die_cursor__next(struct die_unit *u, struct die_cursor *c, struct die *ret)
{
	int err;

	for (;;) {
		if (!c->pos || c->pos >= u->end) {
			c->pos = NULL;
			return 0;
		}
		if (*c->pos)
			break;
		/* a null entry closes a list of children */
		c->pos++;
		if (c->level <= 1) {
			c->pos = NULL;	/* the unit DIE's: the unit is done */
			return 0;
		}
		c->level--;
	}
	err = read_die(u, c->pos, ret);
	if (err) {
		c->pos = NULL;
		return err;
	}
	c->depth = c->level;
	c->pos = ret->end;
	if (ret->has_children) {
		if (++c->level > DIE_MAX_DEPTH) {
			c->pos = NULL;
			return die_unit_err(u, -E2BIG, u->base + ret->off,
					"DIEs nested deeper than %d", DIE_MAX_DEPTH);
		}
	} else if (c->level == 0) {
		c->pos = NULL;	/* a unit DIE without children */
	}
	return 1;
}

int die_cursor__skip_children(struct die_unit *u, struct die_cursor *c, const struct die *d)
{
	const uint8_t *p;
	int err;

	if (!d->has_children || !c->pos)
		return 0;
	if (c->pos != d->end)
		return die_unit_err(u, -EINVAL, u->base + d->off,
				"skip_children: not the DIE the cursor last returned");
	err = after_subtree(u, d, &p);
	if (err) {
		c->pos = NULL;
		return err;
	}
	c->pos = p;
	if (--c->level == 0)
		c->pos = NULL;
	return 0;
}
