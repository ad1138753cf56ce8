/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The DIE reader's insides, shared by its two files and no one else:
 * die_reader.c (sections, unit headers, abbreviation tables, DIEs, walks)
 * and die_attr.c (forms: skipping and decoding them; attributes; errors),
 * which is the lower of the two: it calls nothing in die_reader.c.
 */
#ifndef D2B_DIE_INTERNAL_H
#define D2B_DIE_INTERNAL_H

#include <byteswap.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/diag.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwp_index.h"

/* How an attribute's bytes are skipped. */
enum skip {
	SKIP_FIXED,		/* size bytes */
	SKIP_LEB,		/* one LEB128 */
	SKIP_STRING,		/* NUL-terminated */
	SKIP_BLOCK1,		/* 1-, 2-, 4-byte or ULEB128 length, then as many bytes */
	SKIP_BLOCK2,
	SKIP_BLOCK4,
	SKIP_BLOCK_LEB,
	SKIP_INDIRECT,		/* ULEB128 form, then that form */
	SKIP_BAD,		/* unknown form: an error when a DIE uses it */
};

enum {
	VAR_OFF = UINT16_MAX,		/* abbrev_attr.fixed_off, tail_off: not fixed */
	VAR_SIZE = UINT32_MAX,		/* abbrev.fixed_size: not fixed */
	NO_ATTR = UINT16_MAX,		/* abbrev.sibling: no DW_AT_sibling */
	DENSE_SLACK = 64,		/* dense code table while max code <= 2n + this */
	ERR_WHY_LEN = 256,		/* die_unit_err()'s words (longer ones are cut) */
};

struct abbrev_attr {
	uint16_t name;
	uint16_t form;
	uint16_t fixed_off;
	/* or, when only attributes of fixed sizes follow it (itself
	 * included), how far before the DIE's end it starts: past a name
	 * written in place (DW_FORM_string), gcc's other attributes are
	 * found without skipping it */
	uint16_t tail_off;
	uint8_t skip;		/* enum skip */
	uint8_t size;		/* SKIP_FIXED: bytes */
};

/* How to skip a run of attributes: consecutive fixed sizes merged into one. */
struct skip_op {
	uint32_t size;		/* SKIP_FIXED: bytes */
	uint16_t form;
	uint8_t skip;		/* enum skip */
};

enum { ABBREV_HOT = 17 };

struct abbrev {
	uint64_t code;
	uint32_t first;		/* index of its first attribute in abbrev_table.attrs */
	uint32_t first_op;	/* and of its first skip_op in abbrev_table.ops */
	uint32_t fixed_size;
	uint16_t nattr;
	uint16_t nops;
	uint16_t tag;
	uint16_t sibling;	/* index (within the abbrev) of DW_AT_sibling */
	bool has_children;
	uint64_t names[2];	/* bit n set: it has attribute n (n < 128) */
	uint8_t hot[ABBREV_HOT];	/* position + 1 of the hot attributes (abbrev_hot()) it
				 * has; 0: it lacks it, or past 254, or has it twice */
};

/*
 * The attributes the walker asks for most, each with a slot in struct
 * abbrev's hot[]: the slot of name, or -1.
 */
static inline int abbrev_hot(unsigned int name)
{
	switch (name) {
	case DW_AT_type:			return 0;
	case DW_AT_name:			return 1;
	case DW_AT_data_member_location:	return 2;
	case DW_AT_byte_size:			return 3;
	case DW_AT_bit_size:			return 4;
	case DW_AT_declaration:			return 5;
	case DW_AT_external:			return 6;
	case DW_AT_abstract_origin:		return 7;
	case DW_AT_specification:		return 8;
	case DW_AT_upper_bound:			return 9;
	case DW_AT_count:			return 10;
	case DW_AT_const_value:			return 11;
	case DW_AT_encoding:			return 12;
	case DW_AT_low_pc:			return 13;
	case DW_AT_location:			return 14;
	case DW_AT_linkage_name:		return 15;
	case DW_AT_data_bit_offset:		return 16;
	default:				return -1;
	}
}

/* Whether a's DIEs surely lack attribute name (false: they may have it). */
static inline bool abbrev_lacks(const struct abbrev *a, unsigned int name)
{
	return name < 128 && !(a->names[name >> 6] >> (name & 63) & 1);
}

/* Where attribute at of d starts, if its abbreviation fixes that (from
 * the first attribute byte, or back from the end); else NULL. */
static inline const uint8_t *attr_fixed_pos(const struct abbrev_attr *at, const struct die *d)
{
	if (at->fixed_off != VAR_OFF)
		return d->attrs + at->fixed_off;
	if (at->tail_off != VAR_OFF)
		return d->end - at->tail_off;
	return NULL;
}

struct code_index {
	uint64_t code;
	uint32_t idx;
};

/* A unit of .debug_info or .debug_types, in the reader's index. */
struct unit_entry {
	uint64_t off;		/* its header */
	uint64_t end;		/* the next one's */
	uint64_t sig;		/* type units: their signature */
	uint64_t type_off;	/* type units: the type's DIE */
	uint32_t order;		/* position in the file: info first, then types */
	uint8_t sec;		/* enum die_section */
	bool is_type;
};

struct die_reader {
	struct die_bytes sec[DIE_SEC_NR];
	Dwarf *dw;			/* die_reader__from_dwarf's, or NULL */
	/* every unit whose header reads, per section in offset order, and the
	 * type units by signature (the first of a signature first) */
	struct unit_entry *units[2];	/* DIE_SEC_INFO, DIE_SEC_TYPES */
	size_t nr_units[2];
	struct unit_entry *sigs;
	size_t nr_sigs;
	/* a package (.dwp): its index's rows, by section and unit offset */
	struct dwp_row *pkg;
	size_t nr_pkg;
	/* .dwo: several .debug_info.dwo (.debug_types.dwo) joined, or NULL */
	uint8_t *joined[2];
	/* .debug_loc and .debug_loclists, of a file that is not split DWARF
	 * (die_reader__from_elf()), for die_loc.c */
	struct die_bytes loc[2];
	bool dwo;			/* split DWARF (.dwo sections) */
	bool droppable[2];		/* DIE_SEC_INFO, DIE_SEC_TYPES: die_reader__behind() */
	bool big_endian;
	bool swap;			/* file and host byte orders differ */
	bool str_nul_ended;		/* last byte of .debug_str is NUL */
	bool line_str_nul_ended;
};

/*
 * A unit's abbreviation table, decoded: kept from one unit to the next
 * that uses the same table in the same shape (die_cursor.c, same_abbrevs()).
 */
struct abbrev_table {
	/* what it decodes: valid, the table at abbrev_off for units of this shape */
	bool valid;
	uint64_t abbrev_off;
	uint8_t version, addr_size, offset_size;

	struct abbrev *abbrevs;
	size_t nr_abbrevs, cap_abbrevs;
	struct abbrev_attr *attrs;
	int64_t *implicit;		/* implicit_const values, parallel to attrs */
	size_t nr_attrs, cap_attrs, cap_implicit;
	struct skip_op *ops;
	size_t nr_ops, cap_ops;
	uint32_t *dense;		/* code -> index + 1; 0: undefined */
	size_t nr_dense, cap_dense;
	struct code_index *sparse;	/* sorted by code, when dense is not used */
	size_t cap_sparse;
	bool use_dense;
};

struct die_unit {
	const struct die_reader *r;
	struct die_unit_header hdr;
	const uint8_t *base;		/* the section */
	const uint8_t *die0;		/* the unit DIE */
	const uint8_t *end;		/* the unit's end */
	bool loaded;
	uint64_t str_offsets_base;
	uint64_t addr_base;
	/* in a package, where the unit's contributions start (else 0) */
	uint64_t abbrev_start;
	uint64_t str_offsets_start;
	struct abbrev_table tab;	/* the unit's abbreviations, decoded */
	struct diag *diag;		/* where failures are said, or NULL */
};

/* ---- bytes ---- */

static inline uint16_t rd16(const uint8_t *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_16(v) : v;
}

static inline uint32_t rd32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_32(v) : v;
}

static inline uint64_t rd64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_64(v) : v;
}

/* An unsigned integer of n = 1..8 bytes in the file's byte order. */
static inline uint64_t rd_n(const uint8_t *p, unsigned int n, bool big_endian)
{
	uint64_t v = 0;
	unsigned int i;

	switch (n) {
	case 1:
		return p[0];
	case 2:
		return rd16(p, big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
	case 4:
		return rd32(p, big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
	case 8:
		return rd64(p, big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

/*
 * LEB128 at *p before end: its bits (past 64 dropped), the shift past its
 * last byte and that byte.  0, or -1 if it runs past end.
 */
static inline int leb(const uint8_t **p, const uint8_t *end, uint64_t *ret, unsigned int *shift,
		      uint8_t *last)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned int sh = 0;
	uint8_t b;

	do {
		if (q >= end)
			return -1;
		b = *q++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	*p = q;
	*ret = v;
	*shift = sh;
	*last = b;
	return 0;
}

static inline int uleb(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	unsigned int shift;
	uint8_t last;

	return leb(p, end, ret, &shift, &last);
}

static inline int sleb(const uint8_t **p, const uint8_t *end, int64_t *ret)
{
	unsigned int shift;
	uint64_t v;
	uint8_t last;

	if (leb(p, end, &v, &shift, &last))
		return -1;
	if (shift < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << shift;
	*ret = (int64_t)v;
	return 0;
}

/* ---- die_reader.c ---- */

/* Parse the header of the unit at off of sec into u->hdr; 0, or a
 * negative errno, said. */
int die_unit_parse_header(struct die_unit *u, enum die_section sec, uint64_t off);
/* The package row whose unit contribution holds offset off of sec, or NULL. */
const struct dwp_row *die_reader_package_row(const struct die_reader *r, enum die_section sec,
					     uint64_t off);

/* ---- die_abbrev.c ---- */

/* Decode u's abbreviation table (at u->hdr's offset) into u's arrays. */
int die_unit_parse_abbrevs(struct die_unit *u);

/* The abbreviation of code in u, or NULL: on every DIE read, so inline. */
static inline const struct abbrev *find_abbrev(const struct die_unit *u, uint64_t code)
{
	size_t lo = 0, hi = u->tab.nr_dense;

	if (u->tab.use_dense) {
		if (code < u->tab.nr_dense && u->tab.dense[code])
			return &u->tab.abbrevs[u->tab.dense[code] - 1];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->tab.sparse[mid].code == code)
			return &u->tab.abbrevs[u->tab.sparse[mid].idx];
		if (u->tab.sparse[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- die_attr.c ---- */

extern const char *const die_section_names[DIE_SEC_NR];

/* Say u's failure through its diag ("unit 0x..: DIE 0x..: " and fmt, an error;
 * die may be NULL); returns err. */
__attribute__((format(printf, 4, 5)))
int die_unit_err(struct die_unit *u, int err, const uint8_t *die, const char *fmt, ...);
/* How a form is skipped in this unit; false if the form is unknown. */
bool die_form_shape(unsigned int form, const struct die_unit_header *h, uint8_t *skip,
		    uint8_t *size);
/* Attribute i of d's abbreviation (its first of that name), as die__attr(). */
int die_attr_at(struct die_unit *u, const struct die *d, uint32_t i, struct die_attr *ret);
/* skip_one() for the rarer shapes: blocks, DW_FORM_indirect, unknown forms. */
int die_skip_slow(struct die_unit *u, const uint8_t *die, unsigned int form,
		  unsigned int skip, const uint8_t **p, const uint8_t *end);

/*
 * Skip one value of shape skip/size at *p, before end; form is for
 * messages.  0, or a negative errno, said.
 */
static inline int skip_one(struct die_unit *u, const uint8_t *die, unsigned int form,
			   unsigned int skip, uint32_t size, const uint8_t **p, const uint8_t *end)
{
	const uint8_t *q = *p;

	switch (skip) {
	case SKIP_FIXED:
		if ((size_t)(end - q) < size)
			break;
		*p = q + size;
		return 0;
	case SKIP_LEB:
		while (q < end && (*q & 0x80))
			q++;
		if (q >= end)
			break;
		*p = q + 1;
		return 0;
	case SKIP_STRING:
		while (q < end && *q)
			q++;
		if (q >= end)
			return die_unit_err(u, -EINVAL, die, "DW_FORM_string runs past the unit's end");
		*p = q + 1;
		return 0;
	default:
		return die_skip_slow(u, die, form, skip, p, end);
	}
	return die_unit_err(u, -EINVAL, die, "attribute of form 0x%x runs past the unit's end", form);
}

/* Skip attributes [from, to) of a's, starting at *p, inside [.., end). */
static inline int skip_attrs(struct die_unit *u, const uint8_t *die, const struct abbrev *a,
			     uint32_t from, uint32_t to, const uint8_t **p, const uint8_t *end)
{
	const struct abbrev_attr *at = &u->tab.attrs[a->first + from];
	const struct abbrev_attr *last = &u->tab.attrs[a->first + to];
	int err;

	for (; at < last; at++) {
		err = skip_one(u, die, at->form, at->skip, at->size, p, end);
		if (err)
			return err;
	}
	return 0;
}

#endif
