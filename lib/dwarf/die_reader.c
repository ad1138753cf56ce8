// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DIE reader theory
 *
 * libdw pays per DIE for generality we do not need: dwarf_tag() looks the
 * abbreviation up in a hash table under a reader-writer lock, dwarf_attr()
 * rescans the abbreviation's attribute list and skips forms one switch at a
 * time, dwarf_siblingof() re-reads what it skips.  Like the indexers of drgn
 * and gdb, this reader decodes each unit's abbreviation table once and then
 * reads DIEs straight from the section bytes.
 *
 * Input.  The bytes of .debug_info, .debug_abbrev, .debug_str, ... as libdw
 * sees them.  die_reader__from_dwarf() takes them from the Elf behind the
 * Dwarf (dwarf_getelf) with elf_rawdata(), the call libdw and libdwfl use,
 * and picks sections as libdw does (dwarf_begin_elf.c, check_section): by
 * name, the first of each, none in a section group (an object's COMDAT type
 * units), plain .debug_* over split-DWARF .debug_*.dwo.  It relies on:
 *  - libdwfl applying an ET_REL file's relocations to the debug sections'
 *    raw data in place before it makes the Dwarf (libdwfl/relocate.c,
 *    relocate_section: elf_rawdata(tscn), then writes into it), so we read
 *    relocated bytes;
 *  - libdw inflating SHF_COMPRESSED and .zdebug sections in place with
 *    elf_compress()/elf_compress_gnu() when it makes the Dwarf; a section
 *    still flagged compressed is inflated here the same way (so make the
 *    reader before threads share the Dwarf);
 *  - with a separate debug file, dwarf_getelf() being that file.
 * tests/unit/test_die_reader.c checks this against libdw, DIE by DIE, on
 * objects (relocated strp, strx and addrx), -gz objects, type units,
 * big-endian and 32-bit targets and kernel modules.
 *
 * Pass 0, per reader (index_units): the unit headers of .debug_info and
 * .debug_types, read once, list every unit's extent and every type unit's
 * signature, so that a reference leaving its unit (DW_FORM_ref_addr,
 * DW_FORM_ref_sig8) finds the unit to load by bisection.
 *
 * Pass 1, per unit (die_unit__load): parse the header (DWARF 2-5, 32- and
 * 64-bit DWARF, every unit type), then decode the abbreviation table into
 * flat arrays: struct abbrev (tag, children, its attribute range, and a
 * bit set of its attribute names below 128, so that asking for an absent
 * attribute, the common case, costs one test), struct abbrev_attr (name,
 * form, how to skip it, and its offset from the DIE's first attribute byte
 * when every attribute before it has a fixed size, or back from the DIE's
 * end when every attribute from it on has one) and a skip program of
 * struct skip_op, in which runs of fixed-size attributes are merged into
 * one step.  An abbreviation whose attributes all have fixed sizes records
 * the total, so reading past such a DIE is one addition.  Codes map to
 * entries through a dense array when they are small (producers number them
 * 1..n), else through a sorted array searched by bisection.  A die_unit
 * keeps its tables for the next unit it loads when that unit has the same
 * table (dwz makes thousands of partial units share one).  Last, the
 * unit DIE's DW_AT_str_offsets_base and DW_AT_addr_base are read for strx
 * and addrx.
 *
 * Pass 2, per DIE (read_die): the code, the abbreviation, and the end of
 * the attributes, found by running the skip program.  Reading a DIE checks
 * all of its bytes, so attribute decoding later works inside [attrs, end);
 * an attribute at a fixed offset is read without skipping anything.
 * Walks: a cursor reads DIEs in section order, counting depth from the
 * children flags and null entries; child/sibling navigation like libdw's,
 * with DW_AT_sibling used when present and the subtree read past
 * otherwise.  A unit whose last null entries are missing ends at its end,
 * as in libdw.
 *
 * Split DWARF.  A .dwo file's reader reads its .debug_*.dwo sections (gcc
 * puts each type unit in a .debug_info.dwo or .debug_types.dwo of its own:
 * those are read as one, joined in a buffer of the reader's).  A
 * package's (.dwp) also reads its index (dwp_index.c): a unit's header
 * offsets into .debug_abbrev.dwo and .debug_str_offsets.dwo are relative
 * to the unit's contributions there, which die_unit__load() finds by
 * bisection over the index's rows sorted by unit offset.  A split unit's
 * addresses are in its skeleton's .debug_addr: the caller lends the
 * reader the skeleton file's (die_reader__borrow_addr) and sets the
 * skeleton's DW_AT_addr_base on the loaded unit (die_unit__set_addr_base).
 *
 * Not here: values that need more than this unit and these sections stay
 * raw (rnglistx and loclistx indices, references and strings into a dwz
 * supplementary file, type signatures: die_reader__type_unit() and the
 * supplementary file's own reader resolve them).  Attributes are the DIE's
 * own: unlike dwarf_diename() nothing follows DW_AT_abstract_origin or
 * DW_AT_specification.
 *
 * Invariants.  Every read is bounds-checked against the unit's end (or the
 * section's, for strings, offsets and addresses); positions only move
 * forward in walks (DW_AT_sibling must point past the DIE), and nesting is
 * bounded by DIE_MAX_DEPTH, so damaged input ends in an error and a message
 * naming the unit and the DIE, never in a read out of bounds or a loop.
 *
 * Threading.  A die_reader is read-only after it is made; a die_unit holds
 * one unit's tables and its last error and belongs to one thread at a time.
 * Tables are decoded per unit, not shared: nothing is locked.
 *
 * Files.  This one reads sections and unit headers and indexes the units
 * (pass 0); die_abbrev.c decodes abbreviation tables (pass 1);
 * die_cursor.c loads units and reads and walks DIEs (pass 2); die_attr.c
 * decodes forms and attributes; die_internal.h is what they share.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_internal.h"
#include "base/pages.h"
#include "base/vec.h"

/* ---- the reader ---- */

static int index_units(struct die_reader *r);

static bool nul_ended(const struct die_bytes *b)
{
	return b->size && b->buf[b->size - 1] == 0;
}

static int reader_new(const struct die_sections *secs, bool big_endian, bool list,
		      struct diag *diag, struct die_reader **ret)
{
	struct die_reader *r;
	int i;

	*ret = NULL;
	if (!secs->sec[DIE_SEC_INFO].buf && !secs->sec[DIE_SEC_TYPES].buf) {
		diag__say(diag, D2B_ERROR, "no .debug_info section");
		return -ENODATA;
	}
	if (!secs->sec[DIE_SEC_ABBREV].buf) {
		diag__say(diag, D2B_ERROR, "no .debug_abbrev section");
		return -ENODATA;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		diag__say(diag, D2B_ERROR, "out of memory");
		return -ENOMEM;
	}
	memcpy(r->sec, secs->sec, sizeof(r->sec));
	for (i = 0; i < 2; i++) {
		const struct die_bytes *b = &r->sec[i ? DIE_SEC_TYPES : DIE_SEC_INFO];

		r->droppable[i] = secs->unwritten && pages__in_file_mapping(b->buf, b->size);
	}
	r->big_endian = big_endian;
	r->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	r->str_nul_ended = nul_ended(&r->sec[DIE_SEC_STR]);
	r->line_str_nul_ended = nul_ended(&r->sec[DIE_SEC_LINE_STR]);
	if (list && index_units(r)) {
		die_reader__free(r);
		diag__say(diag, D2B_ERROR, "out of memory");
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

int die_reader__new(const struct die_sections *secs, bool big_endian, struct diag *diag,
		    struct die_reader **ret)
{
	return reader_new(secs, big_endian, true, diag, ret);
}

int die_reader__list_units(struct die_reader *r)
{
	return index_units(r);
}


/* A package's index sections, and the location lists (die_loc.c) of a
 * file that is not split DWARF, read beside the die_sections. */
enum {
	SEC_CU_INDEX = DIE_SEC_NR,
	SEC_TU_INDEX,
	SEC_LOC,
	SEC_LOCLISTS,
	SEC_ALL,
};

/*
 * Which of our sections a name is: .debug_X, .zdebug_X, or in a split
 * DWARF file .debug_X.dwo (and .zdebug_X.dwo), and a package's
 * .debug_cu_index and .debug_tu_index.  -1 if none.
 */
static int section_of(const char *name, bool dwo, bool *gnu_compressed)
{
	size_t n, len;
	int i;

	*gnu_compressed = !strncmp(name, ".zdebug_", 8);
	if (*gnu_compressed)
		name += 8;
	else if (!strncmp(name, ".debug_", 7))
		name += 7;
	else
		return -1;
	len = strlen(name);
	if (dwo && !*gnu_compressed && (!strcmp(name, "cu_index") || !strcmp(name, "tu_index")))
		return name[0] == 'c' ? SEC_CU_INDEX : SEC_TU_INDEX;
	if (!dwo && (!strcmp(name, "loc") || !strcmp(name, "loclists")))
		return name[3] ? SEC_LOCLISTS : SEC_LOC;
	if (dwo != (len > 4 && !strcmp(name + len - 4, ".dwo")))
		return -1;
	for (i = 0; i < DIE_SEC_NR; i++) {
		n = strlen(die_section_names[i]);
		if (n == len - (dwo ? 4 : 0) && !strncmp(name, die_section_names[i], n))
			return i;
	}
	return -1;
}

/*
 * Whether the file's DWARF is a split DWARF (.dwo) set: as in libdw, plain
 * .debug_* sections win over .dwo ones.  Sections in groups do not count.
 */
static bool dwo_only(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	bool dwo = false, gnu;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || (shdr.sh_flags & SHF_GROUP))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name)
			continue;
		if (section_of(name, false, &gnu) >= 0)
			return false;
		dwo |= section_of(name, true, &gnu) >= 0;
	}
	return dwo;
}

/*
 * Append data to the section in *slot, in a buffer of our own (*joined,
 * which the reader frees): the units of several sections of one name are
 * read as one section's.
 */
static int join(struct die_bytes *slot, uint8_t **joined, const Elf_Data *data)
{
	uint8_t *p;

	if (slot->size > SIZE_MAX - data->d_size)
		return -ENOMEM;
	p = realloc(*joined, slot->size + data->d_size);
	if (!p)
		return -ENOMEM;
	if (!*joined)
		memcpy(p, slot->buf, slot->size);
	memcpy(p + slot->size, data->d_buf, data->d_size);
	*joined = p;
	slot->buf = p;
	slot->size += data->d_size;
	return 0;
}

/* The sections reader_from_elf() finds. */
struct elf_sections {
	struct die_sections secs;
	struct die_bytes index[SEC_ALL - DIE_SEC_NR];	/* a package's, locations */
	uint8_t *joined[2];	/* DIE_SEC_INFO, DIE_SEC_TYPES of several sections */
	bool dwo;		/* a .dwo file's or package's (dwo_only()) */
};

/*
 * Take section scn into f if it is one the reader reads (and the first of
 * its name, but for a .dwo file's units): 0, or a negative errno said
 * through diag.
 */
static int take_section(Elf *elf, Elf_Scn *scn, size_t shstrndx, struct elf_sections *f,
			struct diag *diag)
{
	struct die_bytes *slot;
	GElf_Shdr shdr;
	const char *name;
	Elf_Data *data;
	bool gnu;
	int i;

	if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
	    (shdr.sh_flags & SHF_GROUP))
		return 0;
	name = elf_strptr(elf, shstrndx, shdr.sh_name);
	if (!name || (i = section_of(name, f->dwo, &gnu)) < 0)
		return 0;
	slot = i < DIE_SEC_NR ? &f->secs.sec[i] : &f->index[i - DIE_SEC_NR];
	/* gcc writes each type unit of a .dwo file in a section of its own */
	if (slot->buf && !(f->dwo && (i == DIE_SEC_INFO || i == DIE_SEC_TYPES)))
		return 0;
	/* libdw has inflated them already: this is for sections it skipped.
	 * As libdw, ignore elf_compress_gnu()'s errors: a .zdebug section
	 * libdwfl inflated to relocate it says "not compressed" */
	if (gnu)
		elf_compress_gnu(scn, 0, 0);
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		goto bad;
	data = elf_rawdata(scn, NULL);
	if (!data)
		goto bad;
	if (!data->d_buf || !data->d_size)
		return 0;
	if (slot->buf) {
		if (join(slot, &f->joined[i == DIE_SEC_TYPES], data)) {
			diag__say(diag, D2B_ERROR, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	slot->buf = data->d_buf;
	slot->size = data->d_size;
	return 0;
bad:
	diag__say(diag, D2B_ERROR, "cannot read section %s: %s", name, elf_errmsg(-1));
	return -EINVAL;
}

/*
 * The sections libdw reads (libdw/dwarf_begin_elf.c, check_section): by
 * name, the first of each, not in a section group (an object's COMDAT
 * type units), not SHT_NOBITS, not empty.
 */
static int reader_from_elf(Elf *elf, bool list, struct diag *diag, struct die_reader **ret)
{
	struct elf_sections f = {0};
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr ehdr;
	int err = 0;

	*ret = NULL;
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		diag__say(diag, D2B_ERROR, "cannot read the ELF file behind the DWARF: %s",
			  elf_errmsg(-1));
		return -ENOEXEC;
	}
	f.dwo = dwo_only(elf, shstrndx);
	while (!err && (scn = elf_nextscn(elf, scn)))
		err = take_section(elf, scn, shstrndx, &f, diag);
	if (err)
		goto out;
	/* a relocatable file's debug sections are relocated in place */
	f.secs.unwritten = ehdr.e_type != ET_REL;
	err = reader_new(&f.secs, ehdr.e_ident[EI_DATA] == ELFDATA2MSB, list, diag, ret);
	if (!err) {
		memcpy((*ret)->joined, f.joined, sizeof(f.joined));
		memset(f.joined, 0, sizeof(f.joined));
		(*ret)->dwo = f.dwo;
		(*ret)->loc[0] = f.index[SEC_LOC - DIE_SEC_NR];
		(*ret)->loc[1] = f.index[SEC_LOCLISTS - DIE_SEC_NR];
	}
	if (!err && (f.index[0].buf || f.index[1].buf))
		err = die_reader__set_package(*ret, &f.index[0], &f.index[1], diag);
	if (err) {
		die_reader__free(*ret);
		*ret = NULL;
	}
out:
	free(f.joined[0]);
	free(f.joined[1]);
	return err;
}

int die_reader__from_elf(Elf *elf, struct diag *diag, struct die_reader **ret)
{
	return reader_from_elf(elf, true, diag, ret);
}

static int reader_from_dwarf(Dwarf *dw, bool list, struct diag *diag, struct die_reader **ret)
{
	int err = reader_from_elf(dwarf_getelf(dw), list, diag, ret);

	if (!err)
		(*ret)->dw = dw;
	return err;
}

int die_reader__from_dwarf_unlisted(Dwarf *dw, struct diag *diag, struct die_reader **ret)
{
	return reader_from_dwarf(dw, false, diag, ret);
}

int die_reader__from_dwarf(Dwarf *dw, struct diag *diag, struct die_reader **ret)
{
	return reader_from_dwarf(dw, true, diag, ret);
}

static int cmp_row(const void *a, const void *b)
{
	const struct dwp_row *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off[DWP_UNITS] != y->off[DWP_UNITS])
		return x->off[DWP_UNITS] < y->off[DWP_UNITS] ? -1 : 1;
	return 0;
}

int die_reader__set_package(struct die_reader *r, const struct die_bytes *cu_index,
			    const struct die_bytes *tu_index, struct diag *diag)
{
	const struct die_bytes *secs = r->sec;
	size_t cap = 0, i;
	int err = 0;

	if (cu_index->buf)
		err = dwp_index__parse(cu_index, false, r->big_endian, secs, &r->pkg, &r->nr_pkg,
				       &cap, diag);
	if (!err && tu_index->buf)
		err = dwp_index__parse(tu_index, true, r->big_endian, secs, &r->pkg, &r->nr_pkg,
				       &cap, diag);
	if (err)
		return err;
	if (r->nr_pkg > 1)
		qsort(r->pkg, r->nr_pkg, sizeof(*r->pkg), cmp_row);
	for (i = 1; i < r->nr_pkg; i++) {
		const struct dwp_row *a = &r->pkg[i - 1], *b = &r->pkg[i];

		if (a->sec == b->sec && a->off[DWP_UNITS] + a->size[DWP_UNITS] > b->off[DWP_UNITS]) {
			diag__say(diag, D2B_ERROR, "package index: units at 0x%llx and 0x%llx of "
				  ".debug_%s.dwo overlap", (unsigned long long)a->off[DWP_UNITS],
				  (unsigned long long)b->off[DWP_UNITS], die_section_names[a->sec]);
			return -EINVAL;
		}
	}
	return 0;
}

bool die_reader__is_package(const struct die_reader *r)
{
	return r->nr_pkg > 0;
}

/* The package row whose unit contribution holds offset off of sec, or NULL. */
const struct dwp_row *die_reader_package_row(const struct die_reader *r, enum die_section sec,
					     uint64_t off)
{
	size_t lo = 0, hi = r->nr_pkg, mid;

	while (lo < hi) {
		const struct dwp_row *row;

		mid = lo + (hi - lo) / 2;
		row = &r->pkg[mid];
		if (row->sec < sec || (row->sec == sec && row->off[DWP_UNITS] + row->size[DWP_UNITS] <= off))
			lo = mid + 1;
		else if (row->sec > sec || row->off[DWP_UNITS] > off)
			hi = mid;
		else
			return row;
	}
	return NULL;
}

void die_reader__borrow_addr(struct die_reader *r, const struct die_reader *skeleton)
{
	r->sec[DIE_SEC_ADDR] = skeleton->sec[DIE_SEC_ADDR];
}

size_t die_reader__nr_units(const struct die_reader *r, enum die_section sec)
{
	return sec == DIE_SEC_INFO ? r->nr_units[0] : sec == DIE_SEC_TYPES ? r->nr_units[1] : 0;
}

uint64_t die_reader__unit_off(const struct die_reader *r, enum die_section sec, size_t i)
{
	return r->units[sec == DIE_SEC_TYPES][i].off;
}

void die_reader__set_dwarf(struct die_reader *r, Dwarf *dw)
{
	r->dw = dw;
}

Dwarf *die_reader__dwarf(const struct die_reader *r)
{
	return r->dw;
}

void die_reader__free(struct die_reader *r)
{
	if (!r)
		return;
	free(r->units[0]);
	free(r->units[1]);
	free(r->sigs);
	free(r->pkg);
	free(r->joined[0]);
	free(r->joined[1]);
	free(r);
}

size_t die_reader__section_size(const struct die_reader *r, enum die_section sec)
{
	return sec < DIE_SEC_NR ? r->sec[sec].size : 0;
}

const char *die_reader__section(const struct die_reader *r, enum die_section sec)
{
	return sec < DIE_SEC_NR ? (const char *)r->sec[sec].buf : NULL;
}

/* ---- units: the header ---- */

int die_unit__new(const struct die_reader *r, struct diag *diag, struct die_unit **ret)
{
	struct die_unit *u = calloc(1, sizeof(*u));

	*ret = u;
	if (!u)
		return -ENOMEM;
	u->r = r;
	u->diag = diag;
	return 0;
}

void die_unit__free(struct die_unit *u)
{
	if (!u)
		return;
	free(u->tab.abbrevs);
	free(u->tab.attrs);
	free(u->tab.implicit);
	free(u->tab.ops);
	free(u->tab.dense);
	free(u->tab.sparse);
	free(u);
}

const struct die_unit_header *die_unit__header(const struct die_unit *u)
{
	return &u->hdr;
}

const struct die_reader *die_unit__reader(const struct die_unit *u)
{
	return u->r;
}

static int header_truncated(struct die_unit *u)
{
	return die_unit_err(u, -EINVAL, NULL, "unit header runs past the unit's end");
}

/*
 * The fields of u's header that its unit type adds, at *p before end: a
 * skeleton's or split unit's signature, a type unit's and its type DIE's
 * offset.
 */
static int parse_unit_type_fields(struct die_unit *u, const uint8_t **p, const uint8_t *end)
{
	struct die_unit_header *h = &u->hdr;
	const uint8_t *q = *p;

	switch (h->unit_type) {
	case DW_UT_compile:
	case DW_UT_partial:
		break;
	case DW_UT_skeleton:
	case DW_UT_split_compile:
		if (end - q < 8)
			return header_truncated(u);
		h->signature = rd64(q, u->r->swap);
		q += 8;
		break;
	case DW_UT_type:
	case DW_UT_split_type:
		if ((size_t)(end - q) < 8 + h->offset_size)
			return header_truncated(u);
		h->signature = rd64(q, u->r->swap);
		h->type_off = h->off + rd_n(q + 8, h->offset_size, u->r->big_endian);
		q += 8 + h->offset_size;
		break;
	default:
		return die_unit_err(u, -EINVAL, NULL, "unknown unit type 0x%x", h->unit_type);
	}
	*p = q;
	return 0;
}

int die_unit_parse_header(struct die_unit *u, enum die_section sec, uint64_t off)
{
	const struct die_bytes *b = &u->r->sec[sec];
	struct die_unit_header *h = &u->hdr;
	bool swap = u->r->swap;
	const uint8_t *p, *end;
	uint64_t len;
	int err;

	memset(h, 0, sizeof(*h));
	h->off = off;
	h->sec = sec;
	if (!b->buf || off >= b->size || b->size - off < 4)
		return die_unit_err(u, -EINVAL, NULL, "no unit header at offset 0x%llx of .debug_%s",
				(unsigned long long)off, die_section_names[sec]);
	u->base = b->buf;
	p = b->buf + off;
	end = b->buf + b->size;
	len = rd32(p, swap);
	p += 4;
	h->offset_size = 4;
	if (len == 0xffffffff) {
		if (end - p < 8)
			goto trunc;
		len = rd64(p, swap);
		p += 8;
		h->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return die_unit_err(u, -EINVAL, NULL, "reserved unit length 0x%llx",
				(unsigned long long)len);
	}
	if ((uint64_t)(end - p) < len)
		return die_unit_err(u, -EINVAL, NULL, "unit length 0x%llx runs past the section's end",
				(unsigned long long)len);
	end = p + len;
	h->next_off = end - b->buf;
	if (end - p < 2)
		goto trunc;
	h->version = rd16(p, swap);
	p += 2;
	if (h->version < 2 || h->version > 5)
		return die_unit_err(u, -EINVAL, NULL, "unsupported DWARF version %u", h->version);
	if (h->version >= 5) {
		if (end - p < 2)
			goto trunc;
		h->unit_type = p[0];
		h->addr_size = p[1];
		p += 2;
	} else {
		h->unit_type = sec == DIE_SEC_TYPES ? DW_UT_type : DW_UT_compile;
	}
	if ((size_t)(end - p) < h->offset_size)
		goto trunc;
	h->abbrev_off = rd_n(p, h->offset_size, u->r->big_endian);
	p += h->offset_size;
	if (h->version < 5) {
		if (end - p < 1)
			goto trunc;
		h->addr_size = *p++;
	}
	if (h->addr_size != 1 && h->addr_size != 2 && h->addr_size != 4 && h->addr_size != 8)
		return die_unit_err(u, -EINVAL, NULL, "bad address size %u", h->addr_size);
	err = parse_unit_type_fields(u, &p, end);
	if (err)
		return err;
	if (p >= end)
		goto trunc;
	h->die_off = p - b->buf;
	u->die0 = p;
	u->end = end;
	return 0;
trunc:
	return header_truncated(u);
}

/* ---- the unit index ---- */

void die_reader__behind(const struct die_reader *r, enum die_section sec, struct pages_behind *ret)
{
	bool droppable = (sec == DIE_SEC_INFO || sec == DIE_SEC_TYPES) &&
			 r->droppable[sec == DIE_SEC_TYPES];

	pages_behind__init(ret, droppable ? r->sec[sec].buf : NULL, r->sec[sec].size,
			   PAGES_BEHIND_BATCH);
}

static int cmp_sig(const void *a, const void *b)
{
	const struct unit_entry *x = a, *y = b;

	if (x->sig != y->sig)
		return x->sig < y->sig ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * List the units of .debug_info and .debug_types by their headers alone,
 * for references that leave a unit: DW_FORM_ref_addr names an offset, and
 * DW_FORM_ref_sig8 a type unit's signature (libdw keeps the first unit of
 * a signature, and so do we).  A header that does not parse ends its
 * section's list; loading that unit says what is wrong.
 *
 * Reading a header maps its page and, as the kernel faults around it, the
 * cached pages beside it: over a large file (vmlinux's .debug_info, a
 * header every 75 KiB) most of the section at once, for a few bytes of
 * each.  A droppable section's pages are dropped behind the listing.
 */
static int index_units(struct die_reader *r)
{
	static const enum die_section secs[2] = { DIE_SEC_INFO, DIE_SEC_TYPES };
	struct die_unit tmp = { .r = r };
	size_t cap[2] = { 0, 0 }, sig_cap = 0;
	uint32_t order = 0;
	uint64_t off;
	int s;

	for (s = 0; s < 2; s++) {
		struct pages_behind pb;

		die_reader__behind(r, secs[s], &pb);
		for (off = 0; off < r->sec[secs[s]].size; off = tmp.hdr.next_off) {
			struct unit_entry *e;

			pages_behind__reach(&pb, off);
			if (die_unit_parse_header(&tmp, secs[s], off))
				break;
			if (VEC_RESERVE(r->units[s], cap[s], r->nr_units[s], 1))
				return -ENOMEM;
			e = &r->units[s][r->nr_units[s]++];
			e->off = off;
			e->end = tmp.hdr.next_off;
			e->sig = tmp.hdr.signature;
			e->type_off = tmp.hdr.type_off;
			e->order = order++;
			e->sec = (uint8_t)secs[s];
			e->is_type = tmp.hdr.unit_type == DW_UT_type ||
				     tmp.hdr.unit_type == DW_UT_split_type;
			if (!e->is_type)
				continue;
			if (VEC_RESERVE(r->sigs, sig_cap, r->nr_sigs, 1))
				return -ENOMEM;
			r->sigs[r->nr_sigs++] = *e;
		}
		pages_behind__all(&pb);
	}
	if (r->nr_sigs > 1)
		qsort(r->sigs, r->nr_sigs, sizeof(*r->sigs), cmp_sig);
	return 0;
}

int die_reader__unit_of(const struct die_reader *r, enum die_section sec, uint64_t off,
			uint64_t *ret)
{
	int s = sec == DIE_SEC_TYPES;
	const struct unit_entry *u = r->units[s];
	size_t lo = 0, hi = r->nr_units[s], mid;

	if (sec != DIE_SEC_INFO && sec != DIE_SEC_TYPES)
		return -EINVAL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (off < u[mid].off)
			hi = mid;
		else if (off >= u[mid].end)
			lo = mid + 1;
		else {
			*ret = u[mid].off;
			return 0;
		}
	}
	return -ENOENT;
}

int die_reader__type_unit(const struct die_reader *r, uint64_t sig, enum die_section *ret_sec,
			  uint64_t *ret_unit, uint64_t *ret_die)
{
	size_t lo = 0, hi = r->nr_sigs, mid;

	/* the first entry of sig */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->sigs[mid].sig < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->nr_sigs || r->sigs[lo].sig != sig)
		return -ENOENT;
	*ret_sec = (enum die_section)r->sigs[lo].sec;
	*ret_unit = r->sigs[lo].off;
	*ret_die = r->sigs[lo].type_off;
	return 0;
}
