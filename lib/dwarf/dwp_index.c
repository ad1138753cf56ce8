// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF package index theory
 *
 * A package (.dwp) concatenates the .dwo files of a program: each unit's
 * DIEs, abbreviations and string offsets are "contributions" at some
 * offset of the package's .debug_info.dwo, .debug_abbrev.dwo and
 * .debug_str_offsets.dwo, and offsets inside a unit (its header's abbrev
 * offset, its string offsets base) are relative to its own contributions.
 * The index (DWARF 5 section 7.3.5; version 2 is the same layout from the
 * GNU extension to DWARF 4, with a 4-byte version and other column ids) is:
 *
 *	header		version, columns, units, slots
 *	hash table	slots signatures (8 bytes), then slots row numbers
 *			(4 bytes, 1-based; 0: an empty slot)
 *	column ids	columns section ids (DW_SECT_*)
 *	offsets		units rows of columns 4-byte offsets
 *	sizes		units rows of columns 4-byte sizes
 *
 * We read the table whole, not through the hash: every used slot gives a
 * row, and its signature.  Every number is checked against the index's
 * size and every contribution against its section's size, so a damaged
 * index is refused here, with the reason, and nothing later reads out of
 * bounds through it.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dwarf/dwp_index.h"
#include "base/diag.h"
#include "base/vec.h"

enum {
	/* DW_SECT_* of version 5, and of version 2 where they differ */
	SECT_INFO = 1,
	SECT_V2_TYPES = 2,
	SECT_ABBREV = 3,
	SECT_STR_OFFSETS = 6,
	MAX_COLUMNS = 64,	/* there are 8 kinds of sections */
};

static uint64_t rd(const uint8_t *p, unsigned int n, bool big_endian)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

/* Which of our columns section id sect is in this version: -1 if none. */
static int column_of(unsigned int version, uint64_t sect, bool is_tu)
{
	switch (sect) {
	case SECT_INFO:
		return DWP_UNITS;
	case SECT_V2_TYPES:
		return version == 2 && is_tu ? DWP_UNITS : -1;
	case SECT_ABBREV:
		return DWP_ABBREV;
	case SECT_STR_OFFSETS:
		return DWP_STR_OFFSETS;
	}
	return -1;
}

/* Say why the index is damaged: -EINVAL. */
__attribute__((format(printf, 2, 3)))
static int bad(struct diag *diag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(diag, D2B_ERROR, NULL, UINT64_MAX, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An index's table of contributions, as dwp_index__parse() found it. */
struct dwp_table {
	const char *name;		/* the index section's, for messages */
	bool big_endian;
	uint64_t ncols;
	const int *col;			/* column -> DWP_*, or -1 */
	const uint8_t *offs, *sizes;	/* the offsets' and sizes' tables */
	uint8_t unit_sec;		/* where the units are (enum die_section) */
	const struct die_bytes *secs;	/* the package's sections */
};

/* Row row of table t's contributions into r, each checked against its section. */
static int fill_row(const struct dwp_table *t, uint64_t row, struct dwp_row *r,
		    struct diag *diag)
{
	static const enum die_section sec_of[DWP_NR] = {
		[DWP_ABBREV] = DIE_SEC_ABBREV,
		[DWP_STR_OFFSETS] = DIE_SEC_STR_OFFSETS,
	};
	unsigned int c;

	for (c = 0; c < t->ncols; c++) {
		uint64_t at = ((row - 1) * t->ncols + c) * 4;
		uint64_t off = rd(t->offs + at, 4, t->big_endian);
		uint64_t size = rd(t->sizes + at, 4, t->big_endian);
		enum die_section sec;

		if (t->col[c] < 0)
			continue;
		sec = t->col[c] == DWP_UNITS ? (enum die_section)t->unit_sec : sec_of[t->col[c]];
		if (off > t->secs[sec].size || size > t->secs[sec].size - off)
			return bad(diag, "%s: row %llu: contribution 0x%llx+0x%llx "
				   "runs past .debug_%s.dwo (0x%zx bytes)", t->name,
				   (unsigned long long)row, (unsigned long long)off,
				   (unsigned long long)size, sec == DIE_SEC_TYPES ? "types" :
				   sec == DIE_SEC_INFO ? "info" : sec == DIE_SEC_ABBREV ?
				   "abbrev" : "str_offsets", t->secs[sec].size);
		r->off[t->col[c]] = off;
		r->size[t->col[c]] = size;
	}
	if (!r->size[DWP_UNITS])
		return bad(diag, "%s: row %llu has no unit", t->name,
			   (unsigned long long)row);
	return 0;
}

int dwp_index__parse(const struct die_bytes *index, bool is_tu, bool big_endian,
		     const struct die_bytes *secs, struct dwp_row **rows, size_t *nr,
		     size_t *cap, struct diag *diag)
{
	const char *name = is_tu ? ".debug_tu_index" : ".debug_cu_index";
	const uint8_t *p = index->buf, *sigs, *idx, *ids;
	uint64_t version, ncols, nunits, nslots, need, s;
	int col[MAX_COLUMNS];
	struct dwp_table t;
	unsigned int c;
	int err;

	if (index->size < 16)
		return bad(diag, "%s: header runs past its end", name);
	version = rd(p, 2, big_endian);
	if (version != 5)
		version = rd(p, 4, big_endian);
	if (version != 2 && version != 5)
		return bad(diag, "%s: unknown version %llu", name,
			   (unsigned long long)version);
	ncols = rd(p + 4, 4, big_endian);
	nunits = rd(p + 8, 4, big_endian);
	nslots = rd(p + 12, 4, big_endian);
	if (!nunits)
		return 0;
	if (ncols == 0 || ncols > MAX_COLUMNS)
		return bad(diag, "%s: %llu columns", name, (unsigned long long)ncols);
	/* all counts are below 2^32: no product overflows 64 bits */
	need = 16 + nslots * 12 + ncols * 4 + 2 * nunits * ncols * 4;
	if (need > index->size)
		return bad(diag, "%s: %llu slots of %llu units run past its end (%zu bytes)",
			   name, (unsigned long long)nslots, (unsigned long long)nunits,
			   index->size);
	sigs = p + 16;
	idx = sigs + nslots * 8;
	ids = idx + nslots * 4;
	t = (struct dwp_table){
		.name = name, .big_endian = big_endian, .ncols = ncols, .col = col,
		.offs = ids + ncols * 4, .sizes = ids + ncols * 4 + nunits * ncols * 4,
		.unit_sec = version == 2 && is_tu ? DIE_SEC_TYPES : DIE_SEC_INFO, .secs = secs,
	};
	for (c = 0; c < ncols; c++)
		col[c] = column_of((unsigned int)version, rd(ids + 4 * c, 4, big_endian), is_tu);
	for (s = 0; s < nslots; s++) {
		uint64_t row = rd(idx + 4 * s, 4, big_endian);
		struct dwp_row *r;

		if (!row)
			continue;
		if (row > nunits)
			return bad(diag, "%s: slot %llu names row %llu of %llu", name,
				   (unsigned long long)s, (unsigned long long)row,
				   (unsigned long long)nunits);
		err = VEC_RESERVE(*rows, *cap, *nr, 1);
		if (err) {
			diag__say(diag, D2B_ERROR, "out of memory");
			return err;
		}
		r = &(*rows)[*nr];
		memset(r, 0, sizeof(*r));
		r->sig = rd(sigs + 8 * s, 8, big_endian);
		r->sec = t.unit_sec;
		r->is_type = is_tu;
		err = fill_row(&t, row, r, diag);
		if (err)
			return err;
		(*nr)++;
	}
	return 0;
}
