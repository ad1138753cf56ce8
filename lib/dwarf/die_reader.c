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
 * Files.  This one reads sections, unit headers, abbreviation tables and
 * DIEs; die_attr.c decodes forms and attributes; die_internal.h is what
 * they share.
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
		      struct die_reader **ret, char *errbuf, size_t errlen)
{
	struct die_reader *r;
	int i;

	*ret = NULL;
	if (!secs->sec[DIE_SEC_INFO].buf && !secs->sec[DIE_SEC_TYPES].buf) {
		snprintf(errbuf, errlen, "no .debug_info section");
		return -ENODATA;
	}
	if (!secs->sec[DIE_SEC_ABBREV].buf) {
		snprintf(errbuf, errlen, "no .debug_abbrev section");
		return -ENODATA;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(errbuf, errlen, "out of memory");
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
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

int die_reader__new(const struct die_sections *secs, bool big_endian, struct die_reader **ret,
		    char *errbuf, size_t errlen)
{
	return reader_new(secs, big_endian, true, ret, errbuf, errlen);
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

/*
 * The sections libdw reads (libdw/dwarf_begin_elf.c, check_section): by
 * name, the first of each, not in a section group (an object's COMDAT
 * type units), not SHT_NOBITS, not empty.
 */
static int reader_from_elf(Elf *elf, bool list, struct die_reader **ret, char *errbuf,
			   size_t errlen)
{
	struct die_sections secs = {0};
	struct die_bytes index[SEC_ALL - DIE_SEC_NR] = {{0}}, *slot;
	uint8_t *joined[2] = { NULL, NULL };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr ehdr;
	bool dwo;
	int err = 0;

	*ret = NULL;
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		snprintf(errbuf, errlen, "cannot read the ELF file behind the DWARF: %s",
			 elf_errmsg(-1));
		return -ENOEXEC;
	}
	dwo = dwo_only(elf, shstrndx);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		Elf_Data *data;
		bool gnu;
		int i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    (shdr.sh_flags & SHF_GROUP))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || (i = section_of(name, dwo, &gnu)) < 0)
			continue;
		slot = i < DIE_SEC_NR ? &secs.sec[i] : &index[i - DIE_SEC_NR];
		/* gcc writes each type unit of a .dwo file in a section of its own */
		if (slot->buf && !(dwo && (i == DIE_SEC_INFO || i == DIE_SEC_TYPES)))
			continue;
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
			continue;
		if (slot->buf) {
			err = join(slot, &joined[i == DIE_SEC_TYPES], data);
			if (err) {
				snprintf(errbuf, errlen, "out of memory");
				goto out;
			}
			continue;
		}
		slot->buf = data->d_buf;
		slot->size = data->d_size;
		continue;
bad:
		snprintf(errbuf, errlen, "cannot read section %s: %s", name, elf_errmsg(-1));
		err = -EINVAL;
		goto out;
	}
	/* a relocatable file's debug sections are relocated in place */
	secs.unwritten = ehdr.e_type != ET_REL;
	err = reader_new(&secs, ehdr.e_ident[EI_DATA] == ELFDATA2MSB, list, ret, errbuf, errlen);
	if (!err) {
		memcpy((*ret)->joined, joined, sizeof(joined));
		memset(joined, 0, sizeof(joined));
	}
	if (!err) {
		(*ret)->dwo = dwo;
		(*ret)->loc[0] = index[SEC_LOC - DIE_SEC_NR];
		(*ret)->loc[1] = index[SEC_LOCLISTS - DIE_SEC_NR];
	}
	if (!err && (index[0].buf || index[1].buf))
		err = die_reader__set_package(*ret, &index[0], &index[1], errbuf, errlen);
	if (err) {
		die_reader__free(*ret);
		*ret = NULL;
	}
out:
	free(joined[0]);
	free(joined[1]);
	return err;
}

int die_reader__from_elf(Elf *elf, struct die_reader **ret, char *errbuf, size_t errlen)
{
	return reader_from_elf(elf, true, ret, errbuf, errlen);
}

static int reader_from_dwarf(Dwarf *dw, bool list, struct die_reader **ret, char *errbuf,
			     size_t errlen)
{
	int err = reader_from_elf(dwarf_getelf(dw), list, ret, errbuf, errlen);

	if (!err)
		(*ret)->dw = dw;
	return err;
}

int die_reader__from_dwarf_unlisted(Dwarf *dw, struct die_reader **ret, char *errbuf,
				    size_t errlen)
{
	return reader_from_dwarf(dw, false, ret, errbuf, errlen);
}

int die_reader__from_dwarf(Dwarf *dw, struct die_reader **ret, char *errbuf, size_t errlen)
{
	return reader_from_dwarf(dw, true, ret, errbuf, errlen);
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
			    const struct die_bytes *tu_index, char *errbuf, size_t errlen)
{
	const struct die_bytes *secs = r->sec;
	size_t cap = 0, i;
	int err = 0;

	if (cu_index->buf)
		err = dwp_index__parse(cu_index, false, r->big_endian, secs, &r->pkg, &r->nr_pkg,
				       &cap, errbuf, errlen);
	if (!err && tu_index->buf)
		err = dwp_index__parse(tu_index, true, r->big_endian, secs, &r->pkg, &r->nr_pkg,
				       &cap, errbuf, errlen);
	if (err)
		return err;
	if (r->nr_pkg > 1)
		qsort(r->pkg, r->nr_pkg, sizeof(*r->pkg), cmp_row);
	for (i = 1; i < r->nr_pkg; i++) {
		const struct dwp_row *a = &r->pkg[i - 1], *b = &r->pkg[i];

		if (a->sec == b->sec && a->off[DWP_UNITS] + a->size[DWP_UNITS] > b->off[DWP_UNITS]) {
			snprintf(errbuf, errlen, "package index: units at 0x%llx and 0x%llx of "
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
static const struct dwp_row *package_row(const struct die_reader *r, enum die_section sec,
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

int die_unit__new(const struct die_reader *r, struct die_unit **ret)
{
	struct die_unit *u = calloc(1, sizeof(*u));

	*ret = u;
	if (!u)
		return -ENOMEM;
	u->r = r;
	return 0;
}

void die_unit__free(struct die_unit *u)
{
	if (!u)
		return;
	free(u->abbrevs);
	free(u->attrs);
	free(u->implicit);
	free(u->ops);
	free(u->dense);
	free(u->sparse);
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

static int parse_header(struct die_unit *u, enum die_section sec, uint64_t off)
{
	const struct die_bytes *b = &u->r->sec[sec];
	struct die_unit_header *h = &u->hdr;
	bool swap = u->r->swap;
	const uint8_t *p, *end;
	uint64_t len;

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
	switch (h->unit_type) {
	case DW_UT_compile:
	case DW_UT_partial:
		break;
	case DW_UT_skeleton:
	case DW_UT_split_compile:
		if (end - p < 8)
			goto trunc;
		h->signature = rd64(p, swap);
		p += 8;
		break;
	case DW_UT_type:
	case DW_UT_split_type:
		if ((size_t)(end - p) < 8 + h->offset_size)
			goto trunc;
		h->signature = rd64(p, swap);
		h->type_off = off + rd_n(p + 8, h->offset_size, u->r->big_endian);
		p += 8 + h->offset_size;
		break;
	default:
		return die_unit_err(u, -EINVAL, NULL, "unknown unit type 0x%x", h->unit_type);
	}
	if (p >= end)
		goto trunc;
	h->die_off = p - b->buf;
	u->die0 = p;
	u->end = end;
	return 0;
trunc:
	return die_unit_err(u, -EINVAL, NULL, "unit header runs past the unit's end");
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
			if (parse_header(&tmp, secs[s], off))
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

/* ---- units: the abbreviation table ---- */

static int add_attr(struct die_unit *u, uint64_t name, uint64_t form, int64_t implicit)
{
	struct abbrev_attr *at;
	int err;

	err = VEC_RESERVE(u->attrs, u->cap_attrs, u->nr_attrs, 1);
	if (!err)
		err = VEC_RESERVE(u->implicit, u->cap_implicit, u->nr_attrs, 1);
	if (err)
		return die_unit_err(u, err, NULL, "out of memory for abbreviations");
	at = &u->attrs[u->nr_attrs];
	at->name = name > UINT16_MAX ? 0 : (uint16_t)name;
	at->form = (uint16_t)form;
	if (form > UINT16_MAX || !die_form_shape((unsigned int)form, &u->hdr, &at->skip, &at->size))
		at->skip = SKIP_BAD;
	at->fixed_off = VAR_OFF;
	at->tail_off = VAR_OFF;
	u->implicit[u->nr_attrs++] = implicit;
	return 0;
}

/*
 * Fixed offsets and sizes, and the skip program, once an abbreviation's
 * attributes are known.
 */
static int abbrev_layout(struct die_unit *u, struct abbrev *a)
{
	struct skip_op *op = NULL;
	uint32_t off = 0, i;
	bool fixed = true;
	int err;

	a->sibling = NO_ATTR;
	a->first_op = (uint32_t)u->nr_ops;
	a->names[0] = a->names[1] = 0;
	memset(a->hot, 0, sizeof(a->hot));
	for (i = 0; i < a->nattr; i++) {
		struct abbrev_attr *at = &u->attrs[a->first + i];
		int h = abbrev_hot(at->name);

		if (at->name == DW_AT_sibling && a->sibling == NO_ATTR)
			a->sibling = (uint16_t)i;
		/* a second one: the first counts, which the search finds */
		if (h >= 0 && i < UINT8_MAX && !(a->names[at->name >> 6] >> (at->name & 63) & 1))
			a->hot[h] = (uint8_t)(i + 1);
		if (at->name < 128)
			a->names[at->name >> 6] |= (uint64_t)1 << (at->name & 63);
		if (fixed && off < VAR_OFF)
			at->fixed_off = (uint16_t)off;
		if (at->skip == SKIP_FIXED)
			off += at->size;
		else
			fixed = false;
		if (at->skip == SKIP_FIXED && op && op->skip == SKIP_FIXED) {
			op->size += at->size;
			continue;
		}
		err = VEC_RESERVE(u->ops, u->cap_ops, u->nr_ops, 1);
		if (err)
			return die_unit_err(u, err, NULL, "out of memory for abbreviations");
		op = &u->ops[u->nr_ops++];
		*op = (struct skip_op){ at->size, at->form, at->skip };
	}
	a->nops = (uint16_t)(u->nr_ops - a->first_op);
	a->fixed_size = fixed ? off : VAR_SIZE;
	/* back from the end, over the attributes of fixed sizes after the
	 * last one whose size varies */
	for (off = 0, i = a->nattr; !fixed && i-- > 0;) {
		struct abbrev_attr *at = &u->attrs[a->first + i];

		if (at->skip != SKIP_FIXED || off + at->size >= VAR_OFF)
			break;
		off += at->size;
		at->tail_off = (uint16_t)off;
	}
	return 0;
}

/* One abbreviation at *p (its code already read). */
static int parse_abbrev(struct die_unit *u, uint64_t code, const uint8_t **p, const uint8_t *end)
{
	struct abbrev *a;
	uint64_t tag, name, form;
	int64_t implicit;
	size_t first = u->nr_attrs;
	int err;

	if (uleb(p, end, &tag) || *p >= end)
		goto trunc;
	if (tag > UINT16_MAX)
		return die_unit_err(u, -EINVAL, NULL, "abbreviation %llu: tag 0x%llx out of range",
				(unsigned long long)code, (unsigned long long)tag);
	err = VEC_RESERVE(u->abbrevs, u->cap_abbrevs, u->nr_abbrevs, 1);
	if (err)
		return die_unit_err(u, err, NULL, "out of memory for abbreviations");
	a = &u->abbrevs[u->nr_abbrevs];
	a->code = code;
	a->tag = (uint16_t)tag;
	a->has_children = *(*p)++ != DW_CHILDREN_no;
	for (;;) {
		if (uleb(p, end, &name) || uleb(p, end, &form))
			goto trunc;
		if (!name && !form)
			break;
		implicit = 0;
		if (form == DW_FORM_implicit_const && sleb(p, end, &implicit))
			goto trunc;
		if (u->nr_attrs - first >= UINT16_MAX - 1)
			return die_unit_err(u, -EINVAL, NULL, "abbreviation %llu: too many attributes",
					(unsigned long long)code);
		err = add_attr(u, name, form, implicit);
		if (err)
			return err;
	}
	a->first = (uint32_t)first;
	a->nattr = (uint16_t)(u->nr_attrs - first);
	err = abbrev_layout(u, a);
	if (err)
		return err;
	u->nr_abbrevs++;
	return 0;
trunc:
	return die_unit_err(u, -EINVAL, NULL, "abbreviation %llu runs past .debug_abbrev's end",
			(unsigned long long)code);
}

static int cmp_code(const void *a, const void *b)
{
	const struct code_index *x = a, *y = b;

	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The code -> entry map: dense when codes are small, else sorted. */
static int index_codes(struct die_unit *u, uint64_t max_code)
{
	size_t i, j;
	int err;

	u->use_dense = max_code <= 2 * (uint64_t)u->nr_abbrevs + DENSE_SLACK;
	if (u->use_dense) {
		u->nr_dense = (size_t)max_code + 1;
		err = VEC_RESERVE(u->dense, u->cap_dense, 0, u->nr_dense);
		if (err)
			return die_unit_err(u, err, NULL, "out of memory for abbreviations");
		memset(u->dense, 0, u->nr_dense * sizeof(*u->dense));
		/* the first definition of a code wins */
		for (i = u->nr_abbrevs; i-- > 0;)
			u->dense[u->abbrevs[i].code] = (uint32_t)i + 1;
		return 0;
	}
	err = VEC_RESERVE(u->sparse, u->cap_sparse, 0, u->nr_abbrevs);
	if (err)
		return die_unit_err(u, err, NULL, "out of memory for abbreviations");
	for (i = 0; i < u->nr_abbrevs; i++)
		u->sparse[i] = (struct code_index){ u->abbrevs[i].code, (uint32_t)i };
	qsort(u->sparse, u->nr_abbrevs, sizeof(*u->sparse), cmp_code);
	for (i = j = 0; i < u->nr_abbrevs; i++)
		if (!j || u->sparse[j - 1].code != u->sparse[i].code)
			u->sparse[j++] = u->sparse[i];
	u->nr_dense = j;	/* entries of sparse */
	return 0;
}

static int parse_abbrevs(struct die_unit *u)
{
	const struct die_bytes *b = &u->r->sec[DIE_SEC_ABBREV];
	const uint8_t *p, *end = b->buf + b->size;
	uint64_t code, max_code = 0;
	int err;

	u->nr_abbrevs = u->nr_attrs = u->nr_ops = 0;
	if (u->abbrev_start > b->size || u->hdr.abbrev_off >= b->size - u->abbrev_start)
		return die_unit_err(u, -EINVAL, NULL, "abbreviation offset 0x%llx past .debug_abbrev",
				(unsigned long long)u->hdr.abbrev_off);
	p = b->buf + u->abbrev_start + u->hdr.abbrev_off;
	for (;;) {
		if (uleb(&p, end, &code))
			return die_unit_err(u, -EINVAL, NULL,
					"abbreviation table runs past .debug_abbrev's end");
		if (!code)
			break;
		if (u->nr_abbrevs >= UINT32_MAX - 1)
			return die_unit_err(u, -EINVAL, NULL, "too many abbreviations");
		err = parse_abbrev(u, code, &p, end);
		if (err)
			return err;
		if (code > max_code)
			max_code = code;
	}
	return index_codes(u, max_code);
}

bool die_unit__has_abbrev_tag(const struct die_unit *u, unsigned int tag)
{
	size_t i;

	for (i = 0; u->loaded && i < u->nr_abbrevs; i++)
		if (u->abbrevs[i].tag == tag)
			return true;
	return false;
}

bool die_unit__has_abbrev_attr(const struct die_unit *u, unsigned int name)
{
	size_t i;

	for (i = 0; u->loaded && i < u->nr_attrs; i++)
		if (u->attrs[i].name == name)
			return true;
	return false;
}

static inline const struct abbrev *find_abbrev(const struct die_unit *u, uint64_t code)
{
	size_t lo = 0, hi = u->nr_dense;

	if (u->use_dense) {
		if (code < u->nr_dense && u->dense[code])
			return &u->abbrevs[u->dense[code] - 1];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->sparse[mid].code == code)
			return &u->abbrevs[u->sparse[mid].idx];
		if (u->sparse[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- DIEs ---- */

/* Skip all of a DIE's attributes, by a's skip program. */
static inline int skip_ops(struct die_unit *u, const uint8_t *die, const struct abbrev *a,
			   const uint8_t **p, const uint8_t *end)
{
	const struct skip_op *op = &u->ops[a->first_op], *last = op + a->nops;
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
	ret->abbrev = (uint32_t)(a - u->abbrevs);
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
	ret->abbrev = (uint32_t)(a - u->abbrevs);
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
	row = package_row(u->r, sec, off);
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
	err = die_unit__new(r, &u);
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
	return u->tables_valid && u->tab_abbrev == u->abbrev_start + u->hdr.abbrev_off &&
	       u->tab_version == u->hdr.version && u->tab_addr_size == u->hdr.addr_size &&
	       u->tab_offset_size == u->hdr.offset_size;
}

static void keep_abbrevs(struct die_unit *u)
{
	u->tables_valid = true;
	u->tab_abbrev = u->abbrev_start + u->hdr.abbrev_off;
	u->tab_version = (uint8_t)u->hdr.version;
	u->tab_addr_size = (uint8_t)u->hdr.addr_size;
	u->tab_offset_size = (uint8_t)u->hdr.offset_size;
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
	u->errmsg[0] = 0;
	if (sec != DIE_SEC_INFO && sec != DIE_SEC_TYPES)
		return die_unit_err(u, -EINVAL, NULL, "DIEs are not in section %d", sec);
	err = parse_header(u, sec, off);
	if (!err)
		err = package_contributions(u, sec, off);
	if (!err && !same_abbrevs(u)) {
		u->tables_valid = false;
		err = parse_abbrevs(u);
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
	const struct abbrev *a = &u->abbrevs[d->abbrev];
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

