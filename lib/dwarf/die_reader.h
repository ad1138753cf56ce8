/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct die_reader: our own reader of DWARF DIEs, over the section bytes
 * that libdw/libdwfl hand us (relocated, decompressed).  A unit's
 * abbreviations are decoded once into flat tables; DIEs are read by
 * offset, walked in order with a cursor or navigated child/sibling like
 * libdw; attributes are read by name, without allocating.  Theory in
 * die_reader.c.
 *
 *	struct die_reader *r;	one per file, read-only once made: shared by threads
 *	struct die_unit *u;	one per thread, loaded with one unit after another
 *	struct die d;		a DIE of the loaded unit, a value (no allocation)
 *
 *	die_reader__from_dwarf(dw, diag, &r);
 *	die_unit__new(r, diag, &u);
 *	for (off = 0; off < die_reader__section_size(r, DIE_SEC_INFO); off = next) {
 *		if (die_unit__load(u, DIE_SEC_INFO, off) < 0)
 *			... stop: diag has said why ...
 *		next = die_unit__header(u)->next_off;
 *		die_cursor__init(u, &c);
 *		while ((err = die_cursor__next(u, &c, &d)) > 0)
 *			... d.tag, d.off, c.depth, die__attr(u, &d, DW_AT_name, &a) ...
 *	}
 *
 * Functions returning int give a negative errno on failure, and say the
 * reason (naming the unit's and the DIE's offsets) through the unit's diag
 * (base/diag.h): a held one, where the caller words the failure; a
 * reader's makers say theirs through the diag they are given.  A struct
 * die is valid with the unit that gave it until that unit is loaded again.
 */
#ifndef D2B_DIE_READER_H
#define D2B_DIE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>

/* The sections the reader uses (.debug_X, .zdebug_X or .debug_X.dwo). */
enum die_section {
	DIE_SEC_INFO,
	DIE_SEC_TYPES,		/* DWARF 4 type units */
	DIE_SEC_ABBREV,
	DIE_SEC_STR,
	DIE_SEC_LINE_STR,
	DIE_SEC_STR_OFFSETS,
	DIE_SEC_ADDR,
	DIE_SEC_NR,
};

enum {
	DIE_MAX_DEPTH = 1024,	/* DIEs nested deeper than this are an error */
};

struct die_bytes {
	const uint8_t *buf;
	size_t size;
};

/* A file's sections; absent ones are { NULL, 0 }.  The reader borrows them. */
struct die_sections {
	struct die_bytes sec[DIE_SEC_NR];
	/*
	 * The sections are the file's bytes as they were mapped, never
	 * written (not relocated in place): pages of .debug_info and
	 * .debug_types that lie in a private file mapping may be dropped
	 * (pages__drop()) once read, and come back from the file if read again.
	 */
	bool unwritten;
};

struct diag;
struct die_reader;
struct die_unit;
struct pages_behind;

/* A unit's header, as parsed; offsets are section offsets. */
struct die_unit_header {
	uint64_t off;		/* the header */
	uint64_t next_off;	/* the next unit's header: this unit's end */
	uint64_t die_off;	/* the unit DIE */
	uint64_t abbrev_off;	/* its abbreviation table in .debug_abbrev */
	uint64_t signature;	/* type units: type signature; skeleton, split: dwo_id */
	uint64_t type_off;	/* type units: the type's DIE (section offset) */
	enum die_section sec;
	unsigned int version;	/* 2 to 5 */
	unsigned int unit_type;	/* DW_UT_*; before DWARF 5 compile, or type in .debug_types */
	unsigned int addr_size;	/* 1, 2, 4 or 8 */
	unsigned int offset_size; /* 4 (32-bit DWARF) or 8 (64-bit DWARF) */
};

/* A DIE: a small value; its attributes are read with die__attr(). */
struct die {
	uint64_t off;		/* section offset */
	unsigned int tag;	/* DW_TAG_* */
	bool has_children;	/* as the abbreviation says (the list may be empty) */
	/* private */
	uint32_t abbrev;
	const uint64_t *names;	/* the abbreviation's attributes below 128 (a bit set) */
	const uint8_t *attrs;	/* first attribute byte */
	const uint8_t *end;	/* after the last one */
};

/* Whether form refers within the unit (ref1/2/4/8, ref_udata: die_attr's u
 * is then a section offset, the unit's added) */
static inline bool die_form_is_unit_ref(unsigned int form)
{
	return form >= DW_FORM_ref1 && form <= DW_FORM_ref_udata;
}

/*
 * Whether d surely lacks attribute name, as its abbreviation says: no call,
 * for the common question about an attribute most DIEs lack.
 */
static inline bool die__lacks(const struct die *d, unsigned int name)
{
	return name < 128 && d->names && !(d->names[name >> 6] >> (name & 63) & 1);
}

/*
 * One attribute's value.  form is the form in the DIE (DW_FORM_indirect
 * resolved); 0 means the DIE has no such attribute.  What is set, by form:
 *   data1/2/4/8, udata	   u (zero-extended)	die_attr__sdata() sign-extends
 *   sdata, implicit_const s
 *   flag, flag_present	   u (0 or 1)
 *   ref1/2/4/8, ref_udata u: the target's section offset (unit offset added)
 *   ref_addr		   u: a .debug_info offset (possibly another unit)
 *   ref_sig8		   u: the type signature
 *   string, strp, line_strp, strx*  str (resolved; never NULL)
 *   strp_sup, GNU_strp_alt, ref_sup4/8, GNU_ref_alt  u: an offset into the
 *			   supplementary (dwz) file, str NULL: not resolved here
 *   addr, addrx*	   u: the address (addrx through .debug_addr)
 *   sec_offset		   u: the offset, as is
 *   loclistx, rnglistx	   u: the index, as is
 *   exprloc, block*, data16  block, len
 */
struct die_attr {
	unsigned int name;	/* DW_AT_* */
	unsigned int form;	/* DW_FORM_*, 0: absent */
	union {
		uint64_t u;
		int64_t s;
	};
	const char *str;
	const uint8_t *block;
	uint64_t len;
};

/* A walk over every DIE of a unit in section order (pre-order). */
struct die_cursor {
	unsigned int depth;	/* of the DIE last returned: 0 for the unit DIE */
	/* private */
	const uint8_t *pos;	/* NULL: done */
	unsigned int level;	/* depth of the entry at pos */
};

/* Iteration over all attributes of one DIE, in abbreviation order. */
struct die_attr_iter {
	/* private */
	uint32_t i;
	const uint8_t *pos;
};

/*
 * A reader over sections that stay valid while it lives.  big_endian: the
 * file's byte order.  Fails only for lack of memory or of .debug_info and
 * .debug_abbrev (said through diag, as every maker of a reader says why it
 * failed).
 */
int die_reader__new(const struct die_sections *secs, bool big_endian, struct diag *diag,
		    struct die_reader **ret);
/*
 * A pages_behind over sec (base/pages.h): its pages if they may be dropped
 * once read (pages__drop()), as .debug_info's and .debug_types' may when
 * they are the file's bytes, never written (die_sections.unwritten), in a
 * private file mapping; else none.  Listing the units (die_reader__new())
 * drops such pages as it goes.
 */
void die_reader__behind(const struct die_reader *r, enum die_section sec, struct pages_behind *ret);
/*
 * A reader over the sections of the file behind dw (dwarf_getelf()),
 * which must outlive it.  Call it before any thread uses dw: it may
 * inflate a section that libdw left compressed.
 */
int die_reader__from_dwarf(Dwarf *dw, struct diag *diag, struct die_reader **ret);
/*
 * The same, but the units are not listed yet: die_reader__list_units()
 * must be called, once, before the reader is used.  Listing reads every
 * unit header (for vmlinux, a page fault each), and needs nothing of
 * libdw, so it can run on a thread of its own while libdw lists the units
 * too (the reader is the listing thread's until it returns).
 */
int die_reader__from_dwarf_unlisted(Dwarf *dw, struct diag *diag, struct die_reader **ret);
/* List the units of a reader made unlisted: 0 or -ENOMEM. */
int die_reader__list_units(struct die_reader *r);
/*
 * A reader over the sections of an ELF file (a .dwo file or a .dwp
 * package: their .debug_*.dwo sections; a package's index is read and
 * checked), which must outlive it.  Not thread-safe while it runs.
 */
int die_reader__from_elf(Elf *elf, struct diag *diag, struct die_reader **ret);
/*
 * Make r a package's reader: units are read through the rows of its
 * .debug_cu_index and .debug_tu_index (either may be empty), which are
 * checked here (-EINVAL for a damaged index, said through diag).
 */
int die_reader__set_package(struct die_reader *r, const struct die_bytes *cu_index,
			    const struct die_bytes *tu_index, struct diag *diag);
bool die_reader__is_package(const struct die_reader *r);
/*
 * Split units read addresses from their skeleton's .debug_addr: give r
 * (a .dwo file's or a package's) that of skeleton's file.  Before threads.
 */
void die_reader__borrow_addr(struct die_reader *r, const struct die_reader *skeleton);
/*
 * The split unit whose dwo_id is id (a skeleton's): its header's offset
 * in .debug_info(.dwo).  -ENOENT if none.
 */
int die_reader__split_unit(const struct die_reader *r, uint64_t id, uint64_t *ret);
/* The units of sec (DIE_SEC_INFO or DIE_SEC_TYPES), in offset order. */
size_t die_reader__nr_units(const struct die_reader *r, enum die_section sec);
uint64_t die_reader__unit_off(const struct die_reader *r, enum die_section sec, size_t i);
void die_reader__free(struct die_reader *r);
size_t die_reader__section_size(const struct die_reader *r, enum die_section sec);
/* The section's bytes (unchanged while r lives), or NULL if it has none. */
const char *die_reader__section(const struct die_reader *r, enum die_section sec);
/*
 * The unit of section sec (DIE_SEC_INFO or DIE_SEC_TYPES) that holds
 * offset off: its header's offset, for DW_FORM_ref_addr.  -ENOENT if none.
 */
int die_reader__unit_of(const struct die_reader *r, enum die_section sec, uint64_t off,
			uint64_t *ret);
/*
 * The type unit of signature sig (DW_FORM_ref_sig8): its section, its
 * header's offset and its type DIE's.  -ENOENT if none.
 */
int die_reader__type_unit(const struct die_reader *r, uint64_t sig, enum die_section *ret_sec,
			  uint64_t *ret_unit, uint64_t *ret_die);
/*
 * A Dwarf of the same file, for what libdw still reads (location lists):
 * for a .dwo file, libdw's split Dwarf of it.  Before threads.
 */
void die_reader__set_dwarf(struct die_reader *r, Dwarf *dw);
/* The Dwarf a reader was made from (die_reader__from_dwarf), or NULL. */
Dwarf *die_reader__dwarf(const struct die_reader *r);
/*
 * The string at offset off of .debug_str: for DW_FORM_strp_sup and
 * DW_FORM_GNU_strp_alt, read with the supplementary file's reader.
 */
int die_reader__str(const struct die_reader *r, uint64_t off, const char **ret);

/*
 * An empty unit object (-ENOMEM only); load units into it one by one.
 * Its calls that fail say why through diag (an error naming the unit's
 * and the DIE's offsets), or, if diag is NULL, only fail.
 */
int die_unit__new(const struct die_reader *r, struct diag *diag, struct die_unit **ret);
void die_unit__free(struct die_unit *u);
/*
 * Load the unit whose header is at section offset off: parse the header,
 * decode its abbreviation table, read the unit DIE's base attributes
 * (DW_AT_str_offsets_base, DW_AT_addr_base) and, before DWARF 5, its unit
 * type as libdw infers it (GNU DebugFission skeletons, partial units).
 * For a libdw unit DIE cudie, off is dwarf_dieoffset(cudie) -
 * dwarf_cuoffset(cudie).  Units lie one after another: the next one is at
 * die_unit__header(u)->next_off.
 */
int die_unit__load(struct die_unit *u, enum die_section sec, uint64_t off);
const struct die_unit_header *die_unit__header(const struct die_unit *u);
const struct die_reader *die_unit__reader(const struct die_unit *u);
/* Whether some abbreviation of the loaded unit has this tag, or this attribute. */
bool die_unit__has_abbrev_tag(const struct die_unit *u, unsigned int tag);
bool die_unit__has_abbrev_attr(const struct die_unit *u, unsigned int name);
/*
 * The unit's DW_AT_addr_base (or DW_AT_GNU_addr_base).  A split unit has
 * its skeleton's: set it after loading the unit.
 */
uint64_t die_unit__addr_base(const struct die_unit *u);
void die_unit__set_addr_base(struct die_unit *u, uint64_t base);
/* Entry idx of the unit's .debug_addr table (DW_OP_addrx, DW_FORM_addrx). */
int die_unit__addrx(struct die_unit *u, uint64_t idx, uint64_t *ret);

/* The unit DIE. */
int die_unit__root(struct die_unit *u, struct die *ret);
/* Ask the loaded unit's DIEs (up to a few hundred KiB of them) into the
 * cache, for a walk of all of them; a hint, which changes no answer. */
void die_unit__prefetch(const struct die_unit *u);
/* The DIE at section offset off, inside the loaded unit. */
int die_unit__die_at(struct die_unit *u, uint64_t off, struct die *ret);
/* First child: 1 and *ret, 0 if none. */
int die__child(struct die_unit *u, const struct die *d, struct die *ret);
/*
 * Next sibling: 1 and *ret, 0 if none.  Uses DW_AT_sibling when the DIE has
 * it, else reads past the DIE's subtree.
 */
int die__sibling(struct die_unit *u, const struct die *d, struct die *ret);

/* The cursor at the unit DIE. */
void die_cursor__init(struct die_unit *u, struct die_cursor *c);
/* The next DIE: 1 and *ret (depth in c->depth), 0 at the unit's end. */
int die_cursor__next(struct die_unit *u, struct die_cursor *c, struct die *ret);
/*
 * Skip the children of d, the DIE c last returned, so that the next call
 * gives d's next sibling (or goes up).  Uses DW_AT_sibling when d has it.
 */
int die_cursor__skip_children(struct die_unit *u, struct die_cursor *c, const struct die *d);

/* Whether d's abbreviation lists attribute name (without reading it). */
bool die__has_attr(const struct die_unit *u, const struct die *d, unsigned int name);
/*
 * Read attribute name of d: 1 and *ret, 0 (ret->form = 0) if absent.  The
 * first of that name, as dwarf_attr(); the DIE's own: nothing follows
 * DW_AT_abstract_origin or DW_AT_specification (dwarf_diename() does).
 * An attribute whose offset in the DIE is fixed by the abbreviation is read
 * without skipping the ones before it.
 */
int die__attr(struct die_unit *u, const struct die *d, unsigned int name, struct die_attr *ret);
/*
 * Read several attributes: set want[i].name first; each is filled as by
 * die__attr(), form 0 if absent.  Returns how many were found.  Names
 * asked in abbreviation order are found in one forward pass.
 */
int die__attrs(struct die_unit *u, const struct die *d, struct die_attr *want, size_t n);
void die__attr_iter_init(const struct die *d, struct die_attr_iter *it);
/* The next attribute of d: 1 and *ret, 0 after the last. */
int die__next_attr(struct die_unit *u, const struct die *d, struct die_attr_iter *it,
		   struct die_attr *ret);

/* A constant as libdw's dwarf_formsdata() gives it: data1/2/4 sign-extended. */
int64_t die_attr__sdata(const struct die_attr *a);
/* A constant as dwarf_formudata() gives it: sdata and implicit_const as is. */
uint64_t die_attr__udata(const struct die_attr *a);
/* Whether the form is a constant (data*, udata, sdata, implicit_const). */
bool die_attr__is_constant(const struct die_attr *a);

#endif
