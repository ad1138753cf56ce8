// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * lib/dwarf/die_reader: our DIE reader, checked three ways.
 *
 *  handmade:*	 small units built here byte by byte (DWARF 2 to 5, 32- and
 *		 64-bit DWARF, both byte orders, type units) decode to the
 *		 values put in, form by form;
 *  malformed:*	 damaged units (truncated at every byte, bad codes, forms,
 *		 headers, runaway nesting, bad DW_AT_sibling, offsets past
 *		 their sections, random byte flips) fail with a message naming
 *		 the unit and the DIE, and never read out of bounds (run it
 *		 under make SANITIZE=address,undefined);
 *  libdw:*	 real objects (the e2e fixtures by gcc and clang-19, DWARF 4
 *		 and 5, -O0 and -O2, and variants: DWARF 2/3, 64-bit DWARF, -gz,
 *		 .zdebug, split DWARF, type units, 32-bit and big-endian
 *		 targets, a shared object, a kernel module from the corpus)
 *		 are walked in lockstep with libdw and compared DIE by DIE:
 *		 offset, tag, children, depth, and every attribute's name,
 *		 form and value; references that leave their unit are found
 *		 through the reader's index of units.  Every location
 *		 attribute's expressions (die_loc.c) are compared with
 *		 dwarf_getlocations()'s, operation counts and opcodes, where
 *		 die_loc.c reads them rather than leave them to libdw.
 *
 * Environment:
 *	D2B_DIE_READER_FILE=PATH  also compare PATH (e.g. the corpus vmlinux)
 *	D2B_BENCH_DIE_READER=1	  only time a walk of the corpus vmlinux (or
 *				  D2B_BENCH_FILE) reading each DIE's name and
 *				  type, ours against libdw; prints "#" lines
 *	D2B_CORPUS		  the corpus directory (default
 *				  ~/.cache/dwarf2btf-corpus)
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>

#include "test.h"
#include "base/diag.h"
#include "base/job.h"
#include "base/pages.h"
#include "dwarf/die_loc.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"

/* ---- a byte builder for handmade DWARF ---- */

struct bb {
	uint8_t *b;
	size_t n, cap;
	bool be;
};

static void bb_bytes(struct bb *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->b = realloc(b->b, b->cap);
		if (!b->b)
			abort();
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void bb_patch(struct bb *b, size_t at, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * (b->be ? n - 1 - i : i)));
}

static size_t bb_int(struct bb *b, uint64_t v, unsigned int n)
{
	static const uint8_t zero[16];
	size_t at = b->n;

	bb_bytes(b, zero, n);
	bb_patch(b, at, v, n);
	return at;
}

static void bb_uleb(struct bb *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		if (v)
			c |= 0x80;
		bb_bytes(b, &c, 1);
	} while (v);
}

static void bb_sleb(struct bb *b, int64_t v)
{
	bool more = true;

	while (more) {
		uint8_t c = v & 0x7f;

		v >>= 7;	/* arithmetic on gcc and clang */
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)))
			more = false;
		else
			c |= 0x80;
		bb_bytes(b, &c, 1);
	}
}

static void bb_str(struct bb *b, const char *s)
{
	bb_bytes(b, s, strlen(s) + 1);
}

/* ---- handmade units ---- */

struct shape {
	unsigned int version;	/* 2 .. 5 */
	unsigned int offset_size;
	unsigned int addr_size;
	bool be;
	bool type_unit;		/* v5: DW_UT_type in .debug_info; v4: in .debug_types */
};

struct handmade {
	struct bb sec[DIE_SEC_NR];
	struct shape s;
	/* section offsets of DIEs, for the checks */
	uint64_t unit_off, cu_die, int_die, struct_die, member_a, member_b, var_die, const_die,
		 big_die, after_struct;
};

enum {
	AB_CU = 1, AB_INT, AB_STRUCT, AB_MEMBER, AB_VAR, AB_CONST, AB_BIG,
	STR_PRODUCER = 1,	/* offsets in .debug_str: "\0producer\0S\0v\0" */
	STR_S = 10,
	STR_V = 12,
	LSTR_DIR = 1,		/* in .debug_line_str: "\0/dir\0" */
	ADDR0 = 0x1000,
	ADDR1 = 0x2000,
};

static void abbrev_attr(struct bb *a, unsigned int name, unsigned int form)
{
	bb_uleb(a, name);
	bb_uleb(a, form);
}

static void make_abbrevs(struct bb *a, const struct shape *s)
{
	bool v5 = s->version >= 5, v4 = s->version >= 4;

	bb_uleb(a, AB_CU);
	bb_uleb(a, s->type_unit ? DW_TAG_type_unit : DW_TAG_compile_unit);
	bb_int(a, DW_CHILDREN_yes, 1);
	abbrev_attr(a, DW_AT_producer, DW_FORM_strp);
	abbrev_attr(a, DW_AT_name, DW_FORM_string);
	abbrev_attr(a, DW_AT_comp_dir, v5 ? DW_FORM_line_strp : DW_FORM_string);
	abbrev_attr(a, DW_AT_language, DW_FORM_data1);
	if (v5) {
		abbrev_attr(a, DW_AT_str_offsets_base, DW_FORM_sec_offset);
		abbrev_attr(a, DW_AT_addr_base, DW_FORM_sec_offset);
	}
	abbrev_attr(a, 0, 0);

	bb_uleb(a, AB_INT);
	bb_uleb(a, DW_TAG_base_type);
	bb_int(a, DW_CHILDREN_no, 1);
	abbrev_attr(a, DW_AT_name, DW_FORM_string);
	abbrev_attr(a, DW_AT_byte_size, DW_FORM_data1);
	abbrev_attr(a, DW_AT_encoding, DW_FORM_data1);
	abbrev_attr(a, 0, 0);

	bb_uleb(a, AB_STRUCT);
	bb_uleb(a, DW_TAG_structure_type);
	bb_int(a, DW_CHILDREN_yes, 1);
	abbrev_attr(a, DW_AT_sibling, DW_FORM_ref4);
	abbrev_attr(a, DW_AT_name, DW_FORM_strp);
	abbrev_attr(a, DW_AT_byte_size, DW_FORM_udata);
	abbrev_attr(a, 0, 0);

	bb_uleb(a, AB_MEMBER);
	bb_uleb(a, DW_TAG_member);
	bb_int(a, DW_CHILDREN_no, 1);
	abbrev_attr(a, DW_AT_name, DW_FORM_string);
	abbrev_attr(a, DW_AT_type, DW_FORM_ref_udata);
	abbrev_attr(a, DW_AT_data_member_location, v4 ? DW_FORM_data1 : DW_FORM_block1);
	abbrev_attr(a, 0, 0);

	bb_uleb(a, AB_VAR);
	bb_uleb(a, DW_TAG_variable);
	bb_int(a, DW_CHILDREN_no, 1);
	abbrev_attr(a, DW_AT_name, v5 ? DW_FORM_strx1 : DW_FORM_string);
	abbrev_attr(a, DW_AT_type, DW_FORM_ref_addr);
	abbrev_attr(a, DW_AT_external, v4 ? DW_FORM_flag_present : DW_FORM_flag);
	abbrev_attr(a, DW_AT_location, v4 ? DW_FORM_exprloc : DW_FORM_block1);
	abbrev_attr(a, DW_AT_low_pc, v5 ? DW_FORM_addrx : DW_FORM_addr);
	abbrev_attr(a, 0, 0);

	bb_uleb(a, AB_CONST);
	bb_uleb(a, DW_TAG_subrange_type);
	bb_int(a, DW_CHILDREN_no, 1);
	if (v5) {
		abbrev_attr(a, DW_AT_const_value, DW_FORM_implicit_const);
		bb_sleb(a, -5);
	} else {
		abbrev_attr(a, DW_AT_const_value, DW_FORM_sdata);
	}
	abbrev_attr(a, DW_AT_upper_bound, DW_FORM_sdata);
	abbrev_attr(a, DW_AT_count, DW_FORM_indirect);
	abbrev_attr(a, DW_AT_bit_size, DW_FORM_data4);
	abbrev_attr(a, DW_AT_data_bit_offset, DW_FORM_data8);
	abbrev_attr(a, DW_AT_declaration, DW_FORM_flag);
	abbrev_attr(a, 0, 0);

	bb_uleb(a, AB_BIG);
	bb_uleb(a, DW_TAG_variable);
	bb_int(a, DW_CHILDREN_no, 1);
	abbrev_attr(a, DW_AT_const_value, v5 ? DW_FORM_data16 : DW_FORM_block2);
	abbrev_attr(a, DW_AT_name, v5 ? DW_FORM_strx : DW_FORM_strp);
	abbrev_attr(a, DW_AT_byte_size, DW_FORM_udata);
	abbrev_attr(a, DW_AT_decl_line, DW_FORM_data2);
	abbrev_attr(a, DW_AT_upper_bound, DW_FORM_block4);
	abbrev_attr(a, DW_AT_abstract_origin, DW_FORM_ref2);
	abbrev_attr(a, DW_AT_specification, DW_FORM_ref8);
	abbrev_attr(a, DW_AT_high_pc, DW_FORM_addrx3 * v5 + DW_FORM_data4 * !v5);
	abbrev_attr(a, 0, 0);
	bb_uleb(a, 0);
}

/* A DWARF 5 section header (str_offsets, addr); returns its size. */
static size_t v5_table_header(struct bb *b, const struct shape *s, size_t len, bool addr)
{
	size_t start = b->n;

	if (s->offset_size == 8) {
		bb_int(b, 0xffffffff, 4);
		bb_int(b, len + 4, 8);
	} else {
		bb_int(b, len + 4, 4);
	}
	bb_int(b, 5, 2);
	if (addr) {
		bb_int(b, s->addr_size, 1);
		bb_int(b, 0, 1);
	} else {
		bb_int(b, 0, 2);
	}
	return b->n - start;
}

/* Unit-relative reference of a DIE at section offset off. */
static uint64_t rel(const struct handmade *h, uint64_t off)
{
	return off - h->unit_off;
}

static void make_info(struct handmade *h)
{
	const struct shape *s = &h->s;
	bool v5 = s->version >= 5, v4 = s->version >= 4;
	struct bb *b = &h->sec[s->type_unit && !v5 ? DIE_SEC_TYPES : DIE_SEC_INFO];
	unsigned int os = s->offset_size;
	size_t len_at, sib_at, type_off_at = 0, str_base, addr_base;
	static const uint8_t data16[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	/* strings, offsets and addresses */
	bb_bytes(&h->sec[DIE_SEC_STR], "\0producer\0S\0v", 14);
	bb_bytes(&h->sec[DIE_SEC_LINE_STR], "\0/dir", 6);
	str_base = v5_table_header(&h->sec[DIE_SEC_STR_OFFSETS], s, 2 * os, false);
	bb_int(&h->sec[DIE_SEC_STR_OFFSETS], STR_V, os);
	bb_int(&h->sec[DIE_SEC_STR_OFFSETS], STR_PRODUCER, os);
	addr_base = v5_table_header(&h->sec[DIE_SEC_ADDR], s, 2 * s->addr_size, true);
	bb_int(&h->sec[DIE_SEC_ADDR], ADDR0, s->addr_size);
	bb_int(&h->sec[DIE_SEC_ADDR], ADDR1, s->addr_size);

	bb_int(b, 0, 3);		/* the unit does not start the section */
	h->unit_off = b->n;
	if (os == 8)
		bb_int(b, 0xffffffff, 4);
	len_at = bb_int(b, 0, os);
	bb_int(b, s->version, 2);
	if (v5) {
		bb_int(b, s->type_unit ? DW_UT_type : DW_UT_compile, 1);
		bb_int(b, s->addr_size, 1);
		bb_int(b, 0, os);	/* abbrev offset */
	} else {
		bb_int(b, 0, os);
		bb_int(b, s->addr_size, 1);
	}
	if (s->type_unit) {
		bb_int(b, 0x1122334455667788ull, 8);
		type_off_at = bb_int(b, 0, os);
	}

	h->cu_die = b->n;
	bb_uleb(b, AB_CU);
	bb_int(b, STR_PRODUCER, os);
	bb_str(b, "unit.c");
	if (v5)
		bb_int(b, LSTR_DIR, os);
	else
		bb_str(b, "/dir");
	bb_int(b, DW_LANG_C99, 1);
	if (v5) {
		bb_int(b, str_base, os);
		bb_int(b, addr_base, os);
	}

	h->int_die = b->n;
	bb_uleb(b, AB_INT);
	bb_str(b, "int");
	bb_int(b, 4, 1);
	bb_int(b, DW_ATE_signed, 1);

	h->struct_die = b->n;
	if (s->type_unit)
		bb_patch(b, type_off_at, rel(h, h->struct_die), os);
	bb_uleb(b, AB_STRUCT);
	sib_at = bb_int(b, 0, 4);
	bb_int(b, STR_S, os);
	bb_uleb(b, 300);
	h->member_a = b->n;
	bb_uleb(b, AB_MEMBER);
	bb_str(b, "a");
	bb_uleb(b, rel(h, h->int_die));
	if (v4) {
		bb_int(b, 0, 1);
	} else {
		bb_int(b, 2, 1);
		bb_int(b, DW_OP_plus_uconst, 1);
		bb_uleb(b, 0);
	}
	h->member_b = b->n;
	bb_uleb(b, AB_MEMBER);
	bb_str(b, "b");
	bb_uleb(b, rel(h, h->int_die));
	if (v4) {
		bb_int(b, 4, 1);
	} else {
		bb_int(b, 2, 1);
		bb_int(b, DW_OP_plus_uconst, 1);
		bb_uleb(b, 4);
	}
	bb_int(b, 0, 1);		/* end of S's members */
	h->after_struct = b->n;
	bb_patch(b, sib_at, rel(h, h->after_struct), 4);

	h->var_die = b->n;
	bb_uleb(b, AB_VAR);
	if (v5)
		bb_int(b, 0, 1);	/* strx1 0: "v" */
	else
		bb_str(b, "v");
	bb_int(b, h->int_die, s->version == 2 ? s->addr_size : os);
	if (!v4)
		bb_int(b, 1, 1);
	bb_uleb(b, 1 + s->addr_size);
	bb_int(b, DW_OP_addr, 1);
	bb_int(b, 0xabcd, s->addr_size);
	if (v5)
		bb_uleb(b, 1);		/* addrx 1 */
	else
		bb_int(b, ADDR1, s->addr_size);

	h->const_die = b->n;
	bb_uleb(b, AB_CONST);
	if (!v5)
		bb_sleb(b, -5);
	bb_sleb(b, -300);
	bb_uleb(b, DW_FORM_data2);	/* indirect */
	bb_int(b, 0x1234, 2);
	bb_int(b, 0x89abcdef, 4);
	bb_int(b, 0x0123456789abcdefull, 8);
	bb_int(b, 0, 1);

	h->big_die = b->n;
	bb_uleb(b, AB_BIG);
	if (v5) {
		bb_bytes(b, data16, 16);
		bb_uleb(b, 1);		/* strx 1: "producer" */
	} else {
		bb_int(b, 16, 2);
		bb_bytes(b, data16, 16);
		bb_int(b, STR_PRODUCER, os);
	}
	bb_uleb(b, 1ull << 40);
	bb_int(b, 0xfffe, 2);
	bb_int(b, 3, 4);
	bb_bytes(b, "\x30\x31\x22", 3);	/* DW_OP_lit0 DW_OP_lit1 DW_OP_plus */
	bb_int(b, rel(h, h->int_die), 2);
	bb_int(b, rel(h, h->struct_die), 8);
	if (v5)
		bb_int(b, 0, 3);	/* addrx3 0 */
	else
		bb_int(b, 0x40, 4);

	bb_int(b, 0, 1);		/* end of the unit DIE's children */
	bb_patch(b, len_at, b->n - (len_at + os), os);
	bb_int(b, 0, 2);		/* padding after the unit: not ours */
}

static void handmade_make(struct handmade *h, const struct shape *s)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->s = *s;
	for (i = 0; i < DIE_SEC_NR; i++)
		h->sec[i].be = s->be;
	make_abbrevs(&h->sec[DIE_SEC_ABBREV], s);
	make_info(h);
}

static void handmade_free(struct handmade *h)
{
	int i;

	for (i = 0; i < DIE_SEC_NR; i++)
		free(h->sec[i].b);
}

/*
 * A reader over copies of h's sections, each in a buffer of exactly its
 * size, so that AddressSanitizer sees a read one byte past.
 */
struct copies {
	uint8_t *buf[DIE_SEC_NR];
	struct die_reader *r;
};

/* A reader over copies of h's sections: 0, or why it failed in err. */
static int copies_make(struct copies *c, struct handmade *h, char *err, size_t errlen)
{
	struct die_sections secs = {0};
	struct diag held;
	int i, rc;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < DIE_SEC_NR; i++) {
		if (!h->sec[i].n)
			continue;
		c->buf[i] = malloc(h->sec[i].n);
		memcpy(c->buf[i], h->sec[i].b, h->sec[i].n);
		secs.sec[i].buf = c->buf[i];
		secs.sec[i].size = h->sec[i].n;
	}
	diag__init_held(&held);
	rc = die_reader__new(&secs, h->s.be, &held, &c->r);
	snprintf(err, errlen, "%s", diag__last(&held));
	diag__release(&held);
	return rc;
}

static void copies_free(struct copies *c)
{
	int i;

	die_reader__free(c->r);
	for (i = 0; i < DIE_SEC_NR; i++)
		free(c->buf[i]);
}

/* What the units of the tests say of their failures (a bench thread's
 * units, its own). */
static struct diag why = { .kept = true, .newest_only = true };

static bool has_attr_value(struct die_unit *u, struct die *d, unsigned int name,
			   unsigned int form, uint64_t v)
{
	struct die_attr a;

	if (die__attr(u, d, name, &a) != 1 || a.form != form || a.u != v) {
		printf("#   DIE 0x%llx attribute 0x%x: form 0x%x value 0x%llx, expected 0x%x 0x%llx"
		       " (%s)\n", (unsigned long long)d->off, name, a.form, (unsigned long long)a.u,
		       form, (unsigned long long)v, diag__last(&why));
		return false;
	}
	return true;
}

static bool has_attr_str(struct die_unit *u, struct die *d, unsigned int name, const char *s)
{
	struct die_attr a;

	if (die__attr(u, d, name, &a) != 1 || !a.str || strcmp(a.str, s)) {
		printf("#   DIE 0x%llx attribute 0x%x: \"%s\", expected \"%s\" (%s)\n",
		       (unsigned long long)d->off, name, a.str ? a.str : "(null)", s,
		       diag__last(&why));
		return false;
	}
	return true;
}

/* Decode the handmade unit of shape s, and check every value. */
static void check_handmade(const struct shape *s)
{
	bool v5 = s->version >= 5, v4 = s->version >= 4;
	enum die_section sec = s->type_unit && !v5 ? DIE_SEC_TYPES : DIE_SEC_INFO;
	static const unsigned int tags[] = {
		0, DW_TAG_base_type, DW_TAG_structure_type, DW_TAG_member, DW_TAG_member,
		DW_TAG_variable, DW_TAG_subrange_type, DW_TAG_variable,
	};
	static const unsigned int depths[] = { 0, 1, 1, 2, 2, 1, 1, 1 };
	const struct die_unit_header *hdr;
	struct die_attr a, want[4];
	struct handmade h;
	struct copies c;
	struct die_unit *u = NULL;
	struct die_cursor cur;
	struct die d, e;
	char err[128];
	int n = 0, r;

	handmade_make(&h, s);
	REQUIRE(copies_make(&c, &h, err, sizeof(err)) == 0);
	CHECK(die_unit__new(c.r, &why, &u) == 0);
	if (!u)
		goto out;
	r = die_unit__load(u, sec, h.unit_off);
	if (r) {
		printf("#   load: %s\n", diag__last(&why));
		CHECK(r == 0);
		goto out;
	}
	hdr = die_unit__header(u);
	CHECK_EQ(hdr->version, s->version);
	CHECK_EQ(hdr->offset_size, s->offset_size);
	CHECK_EQ(hdr->addr_size, s->addr_size);
	CHECK_EQ(hdr->unit_type, s->type_unit ? DW_UT_type : DW_UT_compile);
	CHECK_EQ(hdr->die_off, h.cu_die);
	CHECK_EQ(hdr->next_off, h.sec[sec].n - 2);
	if (s->type_unit) {
		CHECK_EQ(hdr->signature, 0x1122334455667788ull);
		CHECK_EQ(hdr->type_off, h.struct_die);
	}

	/* the cursor: every DIE, in order, at its depth */
	die_cursor__init(u, &cur);
	while ((r = die_cursor__next(u, &cur, &d)) > 0) {
		if (n < 8) {
			CHECK_EQ(d.tag, n ? tags[n] : (s->type_unit ? DW_TAG_type_unit :
						      DW_TAG_compile_unit));
			CHECK_EQ(cur.depth, depths[n]);
		}
		n++;
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(n, 8);

	REQUIRE(die_unit__root(u, &d) == 0);
	CHECK(has_attr_str(u, &d, DW_AT_producer, "producer"));
	CHECK(has_attr_str(u, &d, DW_AT_name, "unit.c"));
	CHECK(has_attr_str(u, &d, DW_AT_comp_dir, "/dir"));
	CHECK(has_attr_value(u, &d, DW_AT_language, DW_FORM_data1, DW_LANG_C99));
	CHECK_EQ(die__attr(u, &d, DW_AT_byte_size, &a), 0);
	CHECK_EQ(a.form, 0);
	CHECK_EQ(die__sibling(u, &d, &e), 0);

	/* navigation: child, sibling by DW_AT_sibling and by skipping */
	REQUIRE(die__child(u, &d, &d) == 1);
	CHECK_EQ(d.off, h.int_die);
	CHECK(has_attr_str(u, &d, DW_AT_name, "int"));
	CHECK(has_attr_value(u, &d, DW_AT_byte_size, DW_FORM_data1, 4));
	CHECK_EQ(die__child(u, &d, &e), 0);
	REQUIRE(die__sibling(u, &d, &d) == 1);
	CHECK_EQ(d.off, h.struct_die);
	CHECK(has_attr_value(u, &d, DW_AT_sibling, DW_FORM_ref4, h.after_struct));
	CHECK(has_attr_str(u, &d, DW_AT_name, "S"));
	CHECK(has_attr_value(u, &d, DW_AT_byte_size, DW_FORM_udata, 300));
	REQUIRE(die__child(u, &d, &e) == 1);
	CHECK_EQ(e.off, h.member_a);
	CHECK(has_attr_str(u, &e, DW_AT_name, "a"));
	CHECK(has_attr_value(u, &e, DW_AT_type, DW_FORM_ref_udata, h.int_die));
	if (v4) {
		CHECK(has_attr_value(u, &e, DW_AT_data_member_location, DW_FORM_data1, 0));
	} else {
		CHECK_EQ(die__attr(u, &e, DW_AT_data_member_location, &a), 1);
		CHECK_EQ(a.form, DW_FORM_block1);
		CHECK(a.len == 2 && a.block[0] == DW_OP_plus_uconst && a.block[1] == 0);
	}
	REQUIRE(die__sibling(u, &e, &e) == 1);
	CHECK_EQ(e.off, h.member_b);
	CHECK(has_attr_str(u, &e, DW_AT_name, "b"));
	CHECK_EQ(die__sibling(u, &e, &e), 0);
	REQUIRE(die__sibling(u, &d, &d) == 1);
	CHECK_EQ(d.off, h.var_die);

	/* the variable: strx1, ref_addr, flag_present, exprloc, addrx */
	CHECK(has_attr_str(u, &d, DW_AT_name, "v"));
	CHECK(has_attr_value(u, &d, DW_AT_type, DW_FORM_ref_addr, h.int_die));
	CHECK(has_attr_value(u, &d, DW_AT_external, v4 ? DW_FORM_flag_present : DW_FORM_flag, 1));
	CHECK(has_attr_value(u, &d, DW_AT_low_pc, v5 ? DW_FORM_addrx : DW_FORM_addr, ADDR1));
	CHECK_EQ(die__attr(u, &d, DW_AT_location, &a), 1);
	CHECK_EQ(a.form, v4 ? DW_FORM_exprloc : DW_FORM_block1);
	CHECK(a.len == 1 + s->addr_size && a.block[0] == DW_OP_addr);
	REQUIRE(die_unit__die_at(u, h.int_die, &e) == 0);
	CHECK_EQ(e.tag, DW_TAG_base_type);

	/* the constants: implicit_const, sdata, indirect, data4, data8, flag */
	REQUIRE(die__sibling(u, &d, &d) == 1);
	CHECK_EQ(d.off, h.const_die);
	CHECK_EQ(die__attr(u, &d, DW_AT_const_value, &a), 1);
	CHECK_EQ(a.form, v5 ? DW_FORM_implicit_const : DW_FORM_sdata);
	CHECK_EQ(a.s, -5);
	CHECK_EQ(die_attr__sdata(&a), -5);
	CHECK(die_attr__is_constant(&a));
	CHECK_EQ(die__attr(u, &d, DW_AT_upper_bound, &a), 1);
	CHECK_EQ(a.s, -300);
	CHECK(has_attr_value(u, &d, DW_AT_count, DW_FORM_data2, 0x1234));
	CHECK(has_attr_value(u, &d, DW_AT_bit_size, DW_FORM_data4, 0x89abcdef));
	CHECK_EQ(die__attr(u, &d, DW_AT_bit_size, &a), 1);
	CHECK_EQ(die_attr__sdata(&a), (int32_t)0x89abcdef);
	CHECK_EQ(die_attr__udata(&a), 0x89abcdef);
	CHECK(has_attr_value(u, &d, DW_AT_data_bit_offset, DW_FORM_data8, 0x0123456789abcdefull));
	CHECK(has_attr_value(u, &d, DW_AT_declaration, DW_FORM_flag, 0));
	want[0].name = DW_AT_declaration;
	want[1].name = DW_AT_name;
	want[2].name = DW_AT_count;
	want[3].name = DW_AT_const_value;
	CHECK_EQ(die__attrs(u, &d, want, 4), 3);
	CHECK(want[0].form == DW_FORM_flag && want[0].u == 0);
	CHECK_EQ(want[1].form, 0);
	CHECK(want[2].form == DW_FORM_data2 && want[2].u == 0x1234);
	CHECK(want[3].s == -5);

	/* data16/block2, strx/strp, udata, data2, block4, ref2, ref8, addrx3/data4 */
	REQUIRE(die__sibling(u, &d, &d) == 1);
	CHECK_EQ(d.off, h.big_die);
	CHECK_EQ(die__attr(u, &d, DW_AT_const_value, &a), 1);
	CHECK_EQ(a.form, v5 ? DW_FORM_data16 : DW_FORM_block2);
	CHECK(a.len == 16 && a.block[0] == 1 && a.block[15] == 16);
	CHECK(has_attr_str(u, &d, DW_AT_name, "producer"));
	CHECK(has_attr_value(u, &d, DW_AT_byte_size, DW_FORM_udata, 1ull << 40));
	CHECK(has_attr_value(u, &d, DW_AT_decl_line, DW_FORM_data2, 0xfffe));
	CHECK_EQ(die__attr(u, &d, DW_AT_decl_line, &a), 1);
	CHECK_EQ(die_attr__sdata(&a), -2);
	CHECK_EQ(die__attr(u, &d, DW_AT_upper_bound, &a), 1);
	CHECK(a.form == DW_FORM_block4 && a.len == 3 && a.block[2] == 0x22);
	CHECK(has_attr_value(u, &d, DW_AT_abstract_origin, DW_FORM_ref2, h.int_die));
	CHECK(has_attr_value(u, &d, DW_AT_specification, DW_FORM_ref8, h.struct_die));
	CHECK(has_attr_value(u, &d, DW_AT_high_pc, v5 ? DW_FORM_addrx3 : DW_FORM_data4,
			     v5 ? ADDR0 : 0x40));
	CHECK(die__has_attr(u, &d, DW_AT_specification));
	CHECK(!die__has_attr(u, &d, DW_AT_type));
	CHECK_EQ(die__sibling(u, &d, &d), 0);

	/* the attribute iterator sees all eight, in order */
	{
		struct die_attr_iter it;

		n = 0;
		die__attr_iter_init(&d, &it);
		while ((r = die__next_attr(u, &d, &it, &a)) > 0)
			n++;
		CHECK_EQ(r, 0);
		CHECK_EQ(n, 8);
	}
	/* the cursor skips a subtree: the struct's, with DW_AT_sibling */
	die_cursor__init(u, &cur);
	n = 0;
	while ((r = die_cursor__next(u, &cur, &d)) > 0) {
		if (d.tag == DW_TAG_structure_type)
			CHECK_EQ(die_cursor__skip_children(u, &cur, &d), 0);
		CHECK(d.tag != DW_TAG_member);
		n++;
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(n, 6);
	/* and the unit DIE's: nothing after it */
	die_cursor__init(u, &cur);
	CHECK_EQ(die_cursor__next(u, &cur, &d), 1);
	CHECK_EQ(die_cursor__skip_children(u, &cur, &d), 0);
	CHECK_EQ(die_cursor__next(u, &cur, &d), 0);
out:
	die_unit__free(u);
	copies_free(&c);
	handmade_free(&h);
}

static const struct shape shapes[] = {
	{ 5, 4, 8, false, false },
	{ 5, 4, 8, true, false },
	{ 5, 8, 8, false, false },
	{ 5, 8, 4, true, false },
	{ 5, 4, 8, false, true },
	{ 4, 4, 8, false, false },
	{ 4, 8, 4, true, false },
	{ 4, 4, 8, false, true },
	{ 3, 4, 4, false, false },
	{ 2, 4, 4, true, false },
	{ 2, 4, 8, false, false },
};

static void run_handmade(void)
{
	size_t i;
	char name[96];

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];

		snprintf(name, sizeof(name), "handmade:v%u-%s-%ubit-addr%u%s", s->version,
			 s->be ? "be" : "le", s->offset_size * 8, s->addr_size,
			 s->type_unit ? "-typeunit" : "");
		test_failed_now = 0;
		check_handmade(s);
		printf("%s %s%s\n", test_failed_now ? "FAIL" : "PASS", name,
		       test_failed_now ? ": see above" : "");
		test_nfail += test_failed_now;
	}
}

/* ---- malformed input ---- */

static bool is_ref_form(unsigned int form)
{
	return form >= DW_FORM_ref1 && form <= DW_FORM_ref_udata;
}

/* Read everything of one DIE: all attributes, the DIEs it refers to. */
static int exercise_die(struct die_unit *u, const struct die *d)
{
	struct die_attr_iter it;
	struct die_attr a;
	struct die t;
	int r;

	die__attr_iter_init(d, &it);
	while ((r = die__next_attr(u, d, &it, &a)) > 0) {
		if (is_ref_form(a.form) && (r = die_unit__die_at(u, a.u, &t)) < 0)
			return r;
	}
	return r;
}

/* The tree by child and sibling, depth first. */
static int exercise_tree(struct die_unit *u, const struct die *d, int depth)
{
	struct die c;
	int r;

	if (depth > DIE_MAX_DEPTH + 8)
		return 0;
	for (r = die__child(u, d, &c); r > 0; r = die__sibling(u, &c, &c)) {
		r = exercise_tree(u, &c, depth + 1);
		if (r < 0)
			return r;
	}
	return r;
}

/*
 * Everything the reader can be asked about the unit at off; 0, or the
 * first error, its message (which must name the unit) in msg.
 */
static int exercise_unit(struct die_reader *r, enum die_section sec, uint64_t off, char *msg,
			 size_t msglen)
{
	struct die_unit *u;
	struct die_cursor c;
	struct die d, e;
	int err;

	msg[0] = 0;
	diag__clear(&why);
	if (die_unit__new(r, &why, &u))
		return -ENOMEM;
	err = die_unit__load(u, sec, off);
	if (err)
		goto out;
	die_cursor__init(u, &c);
	while ((err = die_cursor__next(u, &c, &d)) > 0) {
		err = exercise_die(u, &d);
		if (!err)
			err = die__child(u, &d, &e);
		if (err >= 0)
			err = die__sibling(u, &d, &e);
		if (err < 0)
			goto out;
	}
	if (err)
		goto out;
	err = die_unit__root(u, &d);
	if (!err)
		err = exercise_tree(u, &d, 0);
out:
	if (err < 0) {
		snprintf(msg, msglen, "%s", diag__last(&why));
		if (strncmp(msg, "unit 0x", 7)) {
			printf("#   error %d without a message naming the unit: \"%s\"\n", err, msg);
			test_failed_now = 1;
		}
	}
	die_unit__free(u);
	return err < 0 ? err : 0;
}

/* exercise_unit() over h, with section sec replaced by its first len bytes. */
static int exercise_cut(struct handmade *h, enum die_section sec, size_t len, char *msg,
			size_t msglen)
{
	size_t saved = h->sec[sec].n;
	struct copies c;
	char err[128];
	int r;

	h->sec[sec].n = len;
	r = copies_make(&c, h, err, sizeof(err));
	h->sec[sec].n = saved;
	if (r) {
		snprintf(msg, msglen, "unit 0x0: %s", err);
		copies_free(&c);
		return r;
	}
	r = exercise_unit(c.r, h->s.type_unit && h->s.version < 5 ? DIE_SEC_TYPES : DIE_SEC_INFO,
			  h->unit_off, msg, msglen);
	copies_free(&c);
	return r;
}

static size_t unit_end(const struct handmade *h)
{
	return h->sec[DIE_SEC_INFO].n - 2;	/* before the padding */
}

/* Every cut of .debug_info or .debug_abbrev fails: the header or the table says more. */
static void test_truncated(void)
{
	struct handmade h;
	char msg[256];
	size_t len;

	handmade_make(&h, &shapes[0]);
	for (len = 0; len < unit_end(&h); len++) {
		if (exercise_cut(&h, DIE_SEC_INFO, len, msg, sizeof(msg)) >= 0) {
			printf("#   .debug_info cut to %zu bytes: no error\n", len);
			test_failed_now = 1;
		}
	}
	CHECK_EQ(exercise_cut(&h, DIE_SEC_INFO, unit_end(&h), msg, sizeof(msg)), 0);
	for (len = 0; len < h.sec[DIE_SEC_ABBREV].n; len++) {
		if (exercise_cut(&h, DIE_SEC_ABBREV, len, msg, sizeof(msg)) >= 0) {
			printf("#   .debug_abbrev cut to %zu bytes: no error\n", len);
			test_failed_now = 1;
		}
	}
	CHECK_EQ(exercise_cut(&h, DIE_SEC_ABBREV, h.sec[DIE_SEC_ABBREV].n, msg, sizeof(msg)), 0);
	handmade_free(&h);
}

/*
 * The unit's length cut to every size with the header saying so: DIEs cut
 * in the middle fail; missing null entries at the end are allowed, as in
 * libdw.  Cuts of the string, offset and address sections fail where used.
 */
static void test_truncated_inside(void)
{
	size_t len, nfail = 0, i;
	struct handmade h;
	char msg[256];
	int sec;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		enum die_section s = shapes[i].type_unit && shapes[i].version < 5 ? DIE_SEC_TYPES :
			DIE_SEC_INFO;
		size_t len_at, os = shapes[i].offset_size;

		handmade_make(&h, &shapes[i]);
		len_at = h.unit_off + (os == 8 ? 4 : 0);
		for (len = h.cu_die; len < h.sec[s].n - 2; len++) {
			uint8_t save[8];

			memcpy(save, h.sec[s].b + len_at, os);
			bb_patch(&h.sec[s], len_at, len - (len_at + os), os);
			if (exercise_cut(&h, s, len, msg, sizeof(msg)) < 0)
				nfail++;
			memcpy(h.sec[s].b + len_at, save, os);
		}
		for (sec = DIE_SEC_STR; sec < DIE_SEC_NR; sec++)
			for (len = 0; len < h.sec[sec].n; len++)
				if (exercise_cut(&h, sec, len, msg, sizeof(msg)) < 0)
					nfail++;
		handmade_free(&h);
	}
	CHECK(nfail > 0);
	/* a DW_FORM_string cut short: the unit DIE's name */
	handmade_make(&h, &shapes[0]);
	len = h.cu_die + 1 + 4 + 3;
	bb_patch(&h.sec[DIE_SEC_INFO], h.unit_off, len - (h.unit_off + 4), 4);
	CHECK(exercise_cut(&h, DIE_SEC_INFO, len, msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "DW_FORM_string runs past") != NULL);
	handmade_free(&h);
	/* "v" (strx1 0) loses its NUL */
	handmade_make(&h, &shapes[0]);
	CHECK(exercise_cut(&h, DIE_SEC_STR, h.sec[DIE_SEC_STR].n - 1, msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "not terminated") != NULL);
	handmade_free(&h);
}

/* Patch one byte of section sec (at offset at) and check the error. */
static void expect_patch(const struct shape *s, enum die_section sec, size_t at, uint8_t v,
			 const char *want, uint64_t die)
{
	struct handmade h;
	char msg[256], where[64];
	int r;

	handmade_make(&h, s);
	h.sec[sec].b[at] = v;
	r = exercise_cut(&h, DIE_SEC_INFO, h.sec[DIE_SEC_INFO].n, msg, sizeof(msg));
	snprintf(where, sizeof(where), "DIE 0x%llx:", (unsigned long long)die);
	if (r >= 0 || !strstr(msg, want) || (die && !strstr(msg, where))) {
		printf("#   byte %zu of section %d = 0x%x: %d \"%s\", expected \"%s\" at %s\n",
		       at, sec, v, r, msg, want, die ? where : "the unit");
		test_failed_now = 1;
	}
	handmade_free(&h);
}

static size_t find_bytes(const struct bb *b, const uint8_t *pat, size_t n)
{
	size_t i;

	for (i = 0; i + n <= b->n; i++)
		if (!memcmp(b->b + i, pat, n))
			return i;
	abort();
}

/* DW_AT_sibling past the unit's end: die__sibling says so (die_at would too). */
static void sibling_past_end(const struct shape *s)
{
	struct handmade h;
	struct copies c;
	struct die_unit *u = NULL;
	struct die d, e;
	char err[128];

	handmade_make(&h, s);
	h.sec[DIE_SEC_INFO].b[h.struct_die + 2] = 0x10;
	if (copies_make(&c, &h, err, sizeof(err)) == 0 && die_unit__new(c.r, &why, &u) == 0 &&
	    die_unit__load(u, DIE_SEC_INFO, h.unit_off) == 0 &&
	    die_unit__die_at(u, h.struct_die, &d) == 0) {
		CHECK(die__sibling(u, &d, &e) < 0);
		CHECK(strstr(diag__last(&why), "does not point past the DIE") != NULL);
	} else {
		CHECK(!"the unit loads");
	}
	die_unit__free(u);
	copies_free(&c);
	handmade_free(&h);
}

static void test_bad_bytes(void)
{
	const struct shape *s = &shapes[0];	/* v5, 32-bit, little-endian */
	static const uint8_t byte_size_udata[] = { DW_AT_byte_size, DW_FORM_udata };
	struct handmade h;
	size_t u, form_at;

	handmade_make(&h, s);
	u = h.unit_off;
	form_at = find_bytes(&h.sec[DIE_SEC_ABBREV], byte_size_udata, 2) + 1;
	/* headers */
	expect_patch(s, DIE_SEC_INFO, u + 4, 1, "unsupported DWARF version 1", 0);
	expect_patch(s, DIE_SEC_INFO, u + 4, 6, "unsupported DWARF version 6", 0);
	expect_patch(s, DIE_SEC_INFO, u + 6, 0x7f, "unknown unit type 0x7f", 0);
	expect_patch(s, DIE_SEC_INFO, u + 7, 3, "bad address size 3", 0);
	expect_patch(s, DIE_SEC_INFO, u + 3, 0xff, "runs past the section's end", 0);
	expect_patch(s, DIE_SEC_INFO, u + 11, 0x7f, "abbreviation offset", 0);
	/* codes, forms */
	expect_patch(s, DIE_SEC_INFO, h.member_a, 99, "abbreviation code 99 is not", h.member_a);
	expect_patch(s, DIE_SEC_INFO, h.cu_die, 0, "a null entry", h.cu_die);
	expect_patch(s, DIE_SEC_ABBREV, form_at, 0x7f, "unknown attribute form 0x7f", h.struct_die);
	expect_patch(s, DIE_SEC_INFO, h.const_die + 3, 0x7f, "DW_FORM_indirect names form 0x7f",
		     h.const_die);
	expect_patch(s, DIE_SEC_INFO, h.const_die + 3, DW_FORM_implicit_const,
		     "DW_FORM_indirect names form 0x21", h.const_die);
	/* DW_AT_sibling backwards, and past the unit */
	expect_patch(s, DIE_SEC_INFO, h.struct_die + 1, (uint8_t)rel(&h, h.struct_die),
		     "does not point past the DIE", h.struct_die);
	/* offsets past their sections: strp, strx1, addrx, a reference */
	expect_patch(s, DIE_SEC_INFO, h.struct_die + 8, 0x40, "string offset 0x4000000a past",
		     h.struct_die);
	expect_patch(s, DIE_SEC_INFO, h.var_die + 1, 200, "string index 200 past", h.var_die);
	expect_patch(s, DIE_SEC_INFO, h.const_die - 1, 9, "address index 9 past", h.var_die);
	expect_patch(s, DIE_SEC_INFO, h.member_a + 3, 1, "outside the unit's DIEs", 0);
	handmade_free(&h);
	sibling_past_end(s);
}

/* A chain of n nested DIEs: fine up to DIE_MAX_DEPTH, an error past it. */
static int nested(unsigned int n, char *msg, size_t msglen)
{
	struct handmade h;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	h.s = shapes[0];
	bb_bytes(&h.sec[DIE_SEC_ABBREV], "\x01\x11\x01\x00\x00\x02\x0b\x01\x00\x00\x00", 11);
	bb_int(&h.sec[DIE_SEC_INFO], 0, 4);
	bb_bytes(&h.sec[DIE_SEC_INFO], "\x05\x00\x01\x08\x00\x00\x00\x00\x01", 9);
	for (i = 0; i < n; i++)
		bb_int(&h.sec[DIE_SEC_INFO], 2, 1);
	for (i = 0; i <= n; i++)
		bb_int(&h.sec[DIE_SEC_INFO], 0, 1);
	bb_patch(&h.sec[DIE_SEC_INFO], 0, h.sec[DIE_SEC_INFO].n - 4, 4);
	i = exercise_cut(&h, DIE_SEC_INFO, h.sec[DIE_SEC_INFO].n, msg, msglen);
	handmade_free(&h);
	return (int)i;
}

static void test_nesting(void)
{
	char msg[256];

	CHECK_EQ(nested(DIE_MAX_DEPTH - 1, msg, sizeof(msg)), 0);
	CHECK_EQ(nested(DIE_MAX_DEPTH + 1, msg, sizeof(msg)), -E2BIG);
	CHECK(strstr(msg, "nested deeper than") != NULL);
	CHECK_EQ(nested(100000, msg, sizeof(msg)), -E2BIG);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random bytes flipped in .debug_info and .debug_abbrev: errors, never a crash. */
static void test_fuzz(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t i, j, nerr = 0, n = 0;
	char msg[256];

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct handmade h;
		enum die_section s = shapes[i].type_unit && shapes[i].version < 5 ? DIE_SEC_TYPES :
			DIE_SEC_INFO;

		handmade_make(&h, &shapes[i]);
		for (j = 0; j < 400; j++, n++) {
			struct bb *b = &h.sec[xorshift(&seed) % 3 ? s : DIE_SEC_ABBREV];
			size_t at[3], k, nflip = 1 + xorshift(&seed) % 3;
			uint8_t old[3];

			for (k = 0; k < nflip; k++) {
				at[k] = xorshift(&seed) % b->n;
				old[k] = b->b[at[k]];
				b->b[at[k]] = (uint8_t)xorshift(&seed);
			}
			if (exercise_cut(&h, s, h.sec[s].n, msg, sizeof(msg)) < 0)
				nerr++;
			while (k-- > 0)
				b->b[at[k]] = old[k];
		}
		handmade_free(&h);
	}
	printf("# fuzz: %zu damaged units, %zu rejected\n", n, nerr);
	CHECK(nerr > 0);
}

static void run_malformed(void)
{
	test_run(test_truncated, "malformed:truncated");
	test_run(test_truncated_inside, "malformed:truncated-inside");
	test_run(test_bad_bytes, "malformed:bad-bytes");
	test_run(test_nesting, "malformed:nesting");
	test_run(test_fuzz, "malformed:fuzz");
}

/* ---- against libdw, DIE by DIE ---- */

enum {
	MAX_ATTRS = 128,	/* per DIE, in these tests */
	MAX_REPORTS = 12,	/* mismatches printed per file */
};

struct cmp {
	struct die_unit *u;
	struct die_cursor cur;
	const char *what;
	size_t units, dies, attrs, values, refs;
	size_t loc_attrs, loc_read, loc_exprs;	/* locations: seen, read by die_loc.c */
	size_t loc_at;				/* die_loc__at() answers compared */
	unsigned int nbad;
	/* in an ET_REL file, DW_FORM_strp offsets are all 0 until relocated */
	const char *first_strp;
	bool strp_vary;
};

__attribute__((format(printf, 2, 3)))
static void mismatch(struct cmp *c, const char *fmt, ...)
{
	va_list ap;

	test_failed_now = 1;
	if (c->nbad++ >= MAX_REPORTS)
		return;
	printf("#   %s: ", c->what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static bool is_string_form(unsigned int f)
{
	return f == DW_FORM_string || f == DW_FORM_strp || f == DW_FORM_line_strp ||
	       f == DW_FORM_strx || f == DW_FORM_GNU_str_index ||
	       (f >= DW_FORM_strx1 && f <= DW_FORM_strx4);
}

static bool is_addr_form(unsigned int f)
{
	return f == DW_FORM_addr || f == DW_FORM_addrx || f == DW_FORM_GNU_addr_index ||
	       (f >= DW_FORM_addrx1 && f <= DW_FORM_addrx4);
}

static bool is_block_form(unsigned int f)
{
	return f == DW_FORM_block1 || f == DW_FORM_block2 || f == DW_FORM_block4 ||
	       f == DW_FORM_block || f == DW_FORM_exprloc || f == DW_FORM_data16;
}

/* A reference: libdw's target, and ours read from the unit when it is there. */
static void compare_ref(struct cmp *c, Dwarf_Attribute *la, const struct die_attr *oa,
			uint64_t die)
{
	const struct die_unit_header *h = die_unit__header(c->u);
	Dwarf_Die lt;
	struct die ot;
	Dwarf_Off off;

	if (!dwarf_formref_die(la, &lt))
		return;
	off = dwarf_dieoffset(&lt);
	c->values++;
	if (off != oa->u) {
		mismatch(c, "DIE 0x%llx attribute 0x%x: reference 0x%llx, libdw 0x%llx",
			 (unsigned long long)die, oa->name, (unsigned long long)oa->u,
			 (unsigned long long)off);
		return;
	}
	if (off < h->die_off || off >= h->next_off)
		return;
	c->refs++;
	if (die_unit__die_at(c->u, off, &ot) != 0 || ot.tag != (unsigned int)dwarf_tag(&lt))
		mismatch(c, "DIE 0x%llx: the DIE at 0x%llx: %s", (unsigned long long)die,
			 (unsigned long long)off, diag__last(&why));
}

/*
 * A reference that may leave its unit (DW_FORM_ref_addr, DW_FORM_ref_sig8):
 * the reader's index of units leads to libdw's DIE.
 */
static void compare_far_ref(struct cmp *c, Dwarf_Attribute *la, const struct die_attr *oa,
			    uint64_t die)
{
	const struct die_reader *r = die_unit__reader(c->u);
	enum die_section sec = DIE_SEC_INFO;
	uint64_t unit, off = oa->u;
	Dwarf_Die lt;
	int err;

	if (!dwarf_formref_die(la, &lt))
		return;
	c->values++;
	if (oa->form == DW_FORM_ref_sig8)
		err = die_reader__type_unit(r, oa->u, &sec, &unit, &off);
	else
		err = die_reader__unit_of(r, DIE_SEC_INFO, off, &unit);
	if (err || off != dwarf_dieoffset(&lt) || unit != off - dwarf_cuoffset(&lt))
		mismatch(c, "DIE 0x%llx attribute 0x%x form 0x%x: DIE 0x%llx of unit 0x%llx (%d), "
			 "libdw 0x%llx", (unsigned long long)die, oa->name, oa->form,
			 (unsigned long long)off, (unsigned long long)unit, err,
			 (unsigned long long)dwarf_dieoffset(&lt));
}

/* A location DW_OP_addrx N: entry N of the unit's .debug_addr, as libdw reads it. */
static void compare_addrx(struct cmp *c, Dwarf_Attribute *la, const struct die_attr *oa,
			  uint64_t die)
{
	const uint8_t *p = oa->block, *end = p + oa->len;
	uint64_t idx = 0, ours = 0;
	unsigned int shift = 0;
	Dwarf_Attribute addr_attr;
	Dwarf_Addr addr;
	Dwarf_Op *ops;
	size_t nops;

	if (oa->len < 2 || (*p != DW_OP_addrx && *p != DW_OP_GNU_addr_index) ||
	    dwarf_getlocation(la, &ops, &nops) != 0 || nops < 1 ||
	    dwarf_getlocation_attr(la, &ops[0], &addr_attr) != 0 ||
	    dwarf_formaddr(&addr_attr, &addr) != 0)
		return;
	for (p++; p < end; p++, shift += 7) {
		idx |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p & 0x80))
			break;
	}
	c->values++;
	if (die_unit__addrx(c->u, idx, &ours) || ours != addr)
		mismatch(c, "DIE 0x%llx: DW_OP_addrx %llu: 0x%llx, libdw 0x%llx",
			 (unsigned long long)die, (unsigned long long)idx,
			 (unsigned long long)ours, (unsigned long long)addr);
}

/* One attribute's value, read both ways, where libdw can read it. */
static void compare_value(struct cmp *c, Dwarf_Attribute *la, const struct die_attr *oa,
			  uint64_t die)
{
	unsigned int f = oa->form;
	Dwarf_Word w;
	Dwarf_Sword sw;
	Dwarf_Addr addr;
	Dwarf_Block blk;
	const char *s;
	bool flag;

	if (is_string_form(f)) {
		if (f == DW_FORM_strp && !c->first_strp)
			c->first_strp = oa->str;
		else if (f == DW_FORM_strp && oa->str != c->first_strp)
			c->strp_vary = true;
		s = dwarf_formstring(la);
		if (!s)
			return;
		c->values++;
		if (!oa->str || strcmp(s, oa->str))
			mismatch(c, "DIE 0x%llx attribute 0x%x: \"%s\", libdw \"%s\"",
				 (unsigned long long)die, oa->name, oa->str ? oa->str : "(null)", s);
		/* the string by its offset, as the supplementary file's are read */
		if (f == DW_FORM_strp &&
		    (die_reader__str(die_unit__reader(c->u), oa->u, &s) || s != oa->str))
			mismatch(c, "DIE 0x%llx attribute 0x%x: .debug_str at 0x%llx",
				 (unsigned long long)die, oa->name, (unsigned long long)oa->u);
	} else if (die_attr__is_constant(oa) || f == DW_FORM_sec_offset) {
		if (dwarf_formudata(la, &w) == 0) {
			c->values++;
			if (w != die_attr__udata(oa))
				mismatch(c, "DIE 0x%llx attribute 0x%x form 0x%x: %llu, libdw %llu",
					 (unsigned long long)die, oa->name, f,
					 (unsigned long long)die_attr__udata(oa),
					 (unsigned long long)w);
		}
		if (f != DW_FORM_sec_offset && dwarf_formsdata(la, &sw) == 0 &&
		    sw != die_attr__sdata(oa))
			mismatch(c, "DIE 0x%llx attribute 0x%x form 0x%x: signed %lld, libdw %lld",
				 (unsigned long long)die, oa->name, f,
				 (long long)die_attr__sdata(oa), (long long)sw);
	} else if (f == DW_FORM_flag || f == DW_FORM_flag_present) {
		if (dwarf_formflag(la, &flag) == 0) {
			c->values++;
			if (flag != (oa->u != 0))
				mismatch(c, "DIE 0x%llx attribute 0x%x: flag %llu, libdw %d",
					 (unsigned long long)die, oa->name,
					 (unsigned long long)oa->u, flag);
		}
	} else if (is_ref_form(f) || f == DW_FORM_ref_addr) {
		if (f == DW_FORM_ref_addr)
			compare_far_ref(c, la, oa, die);
		compare_ref(c, la, oa, die);
	} else if (f == DW_FORM_ref_sig8) {
		compare_far_ref(c, la, oa, die);
	} else if (is_addr_form(f)) {
		if (dwarf_formaddr(la, &addr) == 0) {
			c->values++;
			if (addr != oa->u)
				mismatch(c, "DIE 0x%llx attribute 0x%x: address 0x%llx, libdw 0x%llx",
					 (unsigned long long)die, oa->name,
					 (unsigned long long)oa->u, (unsigned long long)addr);
		}
	} else if (is_block_form(f)) {
		if (dwarf_formblock(la, &blk) == 0) {
			c->values++;
			if (blk.length != oa->len || memcmp(blk.data, oa->block, blk.length))
				mismatch(c, "DIE 0x%llx attribute 0x%x: a block of %llu bytes, "
					 "libdw %llu", (unsigned long long)die, oa->name,
					 (unsigned long long)oa->len,
					 (unsigned long long)blk.length);
		}
		if (oa->name == DW_AT_location)
			compare_addrx(c, la, oa, die);
	}
	/* loclistx, rnglistx, supplementary-file forms: libdw resolves them further */
}

struct lattrs {
	Dwarf_Attribute a[MAX_ATTRS];
	size_t n;
};

static int collect_attr(Dwarf_Attribute *a, void *arg)
{
	struct lattrs *l = arg;

	if (l->n == MAX_ATTRS)
		return DWARF_CB_ABORT;
	l->a[l->n++] = *a;
	return DWARF_CB_OK;
}

/* The attributes the walker reads, read by name (one by one and in one pass). */
static const unsigned int named[] = {
	DW_AT_name, DW_AT_type, DW_AT_byte_size, DW_AT_data_member_location, DW_AT_bit_size,
	DW_AT_data_bit_offset, DW_AT_upper_bound, DW_AT_count, DW_AT_const_value,
	DW_AT_external, DW_AT_declaration, DW_AT_abstract_origin, DW_AT_specification,
	DW_AT_low_pc, DW_AT_location, DW_AT_sibling,
};
enum { NR_NAMED = sizeof(named) / sizeof(named[0]) };

static void compare_named(struct cmp *c, Dwarf_Die *ld, const struct die *od)
{
	struct die_attr one[NR_NAMED], all[NR_NAMED];
	Dwarf_Attribute la;
	size_t i;
	int r;

	for (i = 0; i < NR_NAMED; i++) {
		bool l = dwarf_attr(ld, named[i], &la) != NULL;

		all[i].name = named[i];
		r = die__attr(c->u, od, named[i], &one[i]);
		if (r < 0 || (r == 1) != l || die__has_attr(c->u, od, named[i]) != l ||
		    (dwarf_hasattr(ld, named[i]) != 0) != l) {
			mismatch(c, "DIE 0x%llx attribute 0x%x: present %d, libdw %d (%s)",
				 (unsigned long long)od->off, named[i], r, l,
				 r < 0 ? diag__last(&why) : "");
			continue;
		}
		if (l && dwarf_whatform(&la) != one[i].form)
			mismatch(c, "DIE 0x%llx attribute 0x%x: form 0x%x, libdw 0x%x",
				 (unsigned long long)od->off, named[i], one[i].form,
				 dwarf_whatform(&la));
		else if (l)
			compare_value(c, &la, &one[i], od->off);
	}
	r = die__attrs(c->u, od, all, NR_NAMED);
	if (r < 0) {
		mismatch(c, "DIE 0x%llx: die__attrs: %s", (unsigned long long)od->off,
			 diag__last(&why));
		return;
	}
	for (i = 0; i < NR_NAMED; i++) {
		if (all[i].form != one[i].form ||
		    (all[i].form && (all[i].u != one[i].u || all[i].str != one[i].str ||
				     all[i].block != one[i].block || all[i].len != one[i].len)))
			mismatch(c, "DIE 0x%llx attribute 0x%x: die__attrs and die__attr differ",
				 (unsigned long long)od->off, named[i]);
	}
}

/* Expression [p, p + len) has what libdw made of it (ops, n). */
static void compare_expr(struct cmp *c, uint64_t off, const uint8_t *p, size_t len,
			 Dwarf_Attribute *la, const Dwarf_Op *ops, size_t n)
{
	struct die_op first, last;
	Dwarf_Attribute entry;
	Dwarf_Op *inner;
	size_t nr, inner_n;

	if (die_expr__ops(c->u, p, len, &nr, &first, &last) == -EOPNOTSUPP)
		return;		/* (libdw's to read; the caller asks it) */
	c->loc_exprs++;
	if (nr != n || (n && (first.atom != ops[0].atom || last.atom != ops[n - 1].atom))) {
		mismatch(c, "DIE 0x%llx: a location of %zu operations (0x%x .. 0x%x); libdw "
			 "%zu (0x%x .. 0x%x)", (unsigned long long)off, nr, nr ? first.atom : 0,
			 nr ? last.atom : 0, n, n ? ops[0].atom : 0, n ? ops[n - 1].atom : 0);
		return;
	}
	if (!n || !first.block || dwarf_getlocation_attr(la, &ops[0], &entry) != 0 ||
	    dwarf_getlocation(&entry, &inner, &inner_n) != 0)
		return;
	if (die_expr__ops(c->u, first.block, first.block_len, &nr, &first, &last) == 0 &&
	    (nr != inner_n || (nr && first.atom != inner[0].atom)))
		mismatch(c, "DIE 0x%llx: an entry value of %zu operations; libdw %zu",
			 (unsigned long long)off, nr, inner_n);
}

/*
 * die_loc__at() at address pc of od's location la (oa): the expression
 * libdw's dwarf_getlocation_addr() finds there, or none where it finds none.
 */
static void compare_loc_at(struct cmp *c, Dwarf_Die *ld, const struct die *od,
			   const struct die_attr *oa, Dwarf_Attribute *la, Dwarf_Addr pc)
{
	Dwarf_Die cudie;
	Dwarf_Addr cu_base = 0;
	Dwarf_Op *lops[1];
	size_t llens[1], len, nr;
	const uint8_t *p;
	struct die_op first, last;
	int r, lr;

	if (dwarf_diecu(ld, &cudie, NULL, NULL) && dwarf_lowpc(&cudie, &cu_base) != 0)
		cu_base = 0;
	lr = dwarf_getlocation_addr(la, pc, lops, llens, 1);
	r = die_loc__at(c->u, oa, cu_base, pc, &p, &len);
	if (r == -EOPNOTSUPP || lr < 0)
		return;
	c->loc_at++;
	if (r != (lr > 0)) {
		mismatch(c, "DIE 0x%llx: die_loc__at(0x%llx) gives %d, libdw %d",
			 (unsigned long long)od->off, (unsigned long long)pc, r, lr);
		return;
	}
	if (r == 1 && die_expr__ops(c->u, p, len, &nr, &first, &last) == 0 &&
	    (nr != llens[0] || (nr && first.atom != lops[0][0].atom)))
		mismatch(c, "DIE 0x%llx: die_loc__at(0x%llx) gives %zu operations, libdw %zu",
			 (unsigned long long)od->off, (unsigned long long)pc, nr, llens[0]);
}

/* od's DW_AT_location: die_loc.c's expressions are libdw's, one for one. */
static void compare_loc(struct cmp *c, Dwarf_Die *ld, const struct die *od)
{
	Dwarf_Attribute la;
	struct die_loc_iter it;
	struct die_attr oa;
	Dwarf_Addr base, start, end;
	Dwarf_Op *ops;
	const uint8_t *p;
	ptrdiff_t off = 0;
	size_t n, len;
	int r = 1;

	if (die__attr(c->u, od, DW_AT_location, &oa) != 1 ||
	    !dwarf_attr(ld, DW_AT_location, &la))
		return;
	c->loc_attrs++;
	if (oa.form == DW_FORM_loclistx) {	/* die_loc__at() only */
		while ((off = dwarf_getlocations(&la, off, &base, &start, &end, &ops, &n)) > 0)
			if (start < end)
				compare_loc_at(c, ld, od, &oa, &la, start);
		return;
	}
	if (die_loc__begin(c->u, &oa, &it) != 0)
		return;
	while ((off = dwarf_getlocations(&la, off, &base, &start, &end, &ops, &n)) > 0) {
		r = die_loc__next(&it, &p, &len);
		if (r == -EOPNOTSUPP)
			return;
		if (r != 1) {
			mismatch(c, "DIE 0x%llx: die_loc gives %d where libdw has an expression",
				 (unsigned long long)od->off, r);
			return;
		}
		compare_expr(c, od->off, p, len, &la, ops, n);
		if (start < end)
			compare_loc_at(c, ld, od, &oa, &la, start);
	}
	r = off < 0 ? -EOPNOTSUPP : die_loc__next(&it, &p, &len);
	if (r == 1)
		mismatch(c, "DIE 0x%llx: die_loc gives an expression past libdw's last",
			 (unsigned long long)od->off);
	else if (r == 0)
		c->loc_read++;
}

static void compare_die(struct cmp *c, Dwarf_Die *ld, const struct die *od, unsigned int depth)
{
	struct die_attr_iter it;
	struct die_attr oa;
	struct lattrs la;
	struct die cd;
	size_t i = 0;
	int r;

	c->dies++;
	r = die_cursor__next(c->u, &c->cur, &cd);
	if (r != 1 || cd.off != od->off || c->cur.depth != depth)
		mismatch(c, "DIE 0x%llx at depth %u: the cursor gives %d, 0x%llx at depth %u (%s)",
			 (unsigned long long)od->off, depth, r, (unsigned long long)cd.off,
			 c->cur.depth, r < 0 ? diag__last(&why) : "");
	if (dwarf_dieoffset(ld) != od->off || (unsigned int)dwarf_tag(ld) != od->tag ||
	    (dwarf_haschildren(ld) != 0) != od->has_children) {
		mismatch(c, "DIE 0x%llx tag 0x%x children %d; libdw: 0x%llx tag 0x%x children %d",
			 (unsigned long long)od->off, od->tag, od->has_children,
			 (unsigned long long)dwarf_dieoffset(ld), dwarf_tag(ld),
			 dwarf_haschildren(ld));
		return;
	}
	la.n = 0;
	if (dwarf_getattrs(ld, collect_attr, &la, 0) < 0) {
		mismatch(c, "DIE 0x%llx: libdw cannot list its attributes: %s",
			 (unsigned long long)od->off, dwarf_errmsg(-1));
		return;
	}
	die__attr_iter_init(od, &it);
	while ((r = die__next_attr(c->u, od, &it, &oa)) > 0) {
		c->attrs++;
		if (i >= la.n || dwarf_whatattr(&la.a[i]) != oa.name ||
		    dwarf_whatform(&la.a[i]) != oa.form) {
			mismatch(c, "DIE 0x%llx attribute %zu: 0x%x form 0x%x, libdw 0x%x form 0x%x",
				 (unsigned long long)od->off, i, oa.name, oa.form,
				 i < la.n ? dwarf_whatattr(&la.a[i]) : 0,
				 i < la.n ? dwarf_whatform(&la.a[i]) : 0);
			return;
		}
		compare_value(c, &la.a[i], &oa, od->off);
		i++;
	}
	if (r < 0 || i != la.n)
		mismatch(c, "DIE 0x%llx: %zu attributes, libdw %zu (%s)",
			 (unsigned long long)od->off, i, la.n, r < 0 ? diag__last(&why) : "");
	compare_named(c, ld, od);
	compare_loc(c, ld, od);
}

/* Walk both trees together: libdw's child/sibling, ours, and our cursor. */
static void walk_both(struct cmp *c, Dwarf_Die *ld, const struct die *od, unsigned int depth)
{
	Dwarf_Die lc;
	struct die oc;
	int lr, or;

	compare_die(c, ld, od, depth);
	lr = dwarf_child(ld, &lc);
	or = die__child(c->u, od, &oc);
	while (c->nbad < MAX_REPORTS) {
		if (lr < 0 || or < 0 || (lr == 0) != (or == 1)) {
			mismatch(c, "under DIE 0x%llx: libdw %d, ours %d (%s)",
				 (unsigned long long)od->off, lr, or,
				 or < 0 ? diag__last(&why) : "");
			return;
		}
		if (lr)
			return;
		walk_both(c, &lc, &oc, depth + 1);
		lr = dwarf_siblingof(&lc, &lc);
		or = die__sibling(c->u, &oc, &oc);
	}
}

/* Load our unit at off and walk it against libdw's unit DIE. */
static void compare_unit(struct cmp *c, enum die_section sec, uint64_t off, Dwarf_Die *cudie)
{
	struct die root;
	int r;

	c->units++;
	if (die_unit__load(c->u, sec, off) || die_unit__root(c->u, &root)) {
		mismatch(c, "%s", diag__last(&why));
		return;
	}
	if (die_unit__header(c->u)->die_off != dwarf_dieoffset(cudie))
		mismatch(c, "unit 0x%llx: unit DIE at 0x%llx, libdw 0x%llx",
			 (unsigned long long)off,
			 (unsigned long long)die_unit__header(c->u)->die_off,
			 (unsigned long long)dwarf_dieoffset(cudie));
	/* the unit's abbreviations, as the unit DIE uses them */
	if (!die_unit__has_abbrev_tag(c->u, root.tag) || die_unit__has_abbrev_tag(c->u, 0) ||
	    (dwarf_hasattr(cudie, DW_AT_name) && !die_unit__has_abbrev_attr(c->u, DW_AT_name)) ||
	    die_unit__has_abbrev_attr(c->u, 0))
		mismatch(c, "unit 0x%llx: its abbreviations, as has_abbrev_tag/attr say them",
			 (unsigned long long)off);
	die_cursor__init(c->u, &c->cur);
	walk_both(c, cudie, &root, 0);
	r = die_cursor__next(c->u, &c->cur, &root);
	if (r != 0)
		mismatch(c, "unit 0x%llx: the cursor goes on past libdw's last DIE (%d)",
			 (unsigned long long)off, r);
}

/*
 * Every unit libdw lists (those of .debug_info, then DWARF 4 type units
 * of .debug_types), which must be ours one after another.
 */
static void compare_units(struct cmp *c, Dwarf *dw)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t ut, addr_size, offset_size;
	uint64_t off, expect[2] = { 0, 0 }, id;

	while (dwarf_get_units(dw, cu, &next, &version, &ut, &cudie, &subdie) == 0 &&
	       c->nbad < MAX_REPORTS) {
		const struct die_unit_header *h = die_unit__header(c->u);
		bool types = version < 5 && ut == DW_UT_type;

		cu = next;
		off = dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie);
		if (off != expect[types])
			mismatch(c, "a unit at 0x%llx, where ours ends at 0x%llx",
				 (unsigned long long)off, (unsigned long long)expect[types]);
		compare_unit(c, types ? DIE_SEC_TYPES : DIE_SEC_INFO, off, &cudie);
		/* the reader's index of units has it */
		if (die_reader__unit_of(die_unit__reader(c->u), types ? DIE_SEC_TYPES : DIE_SEC_INFO,
					dwarf_dieoffset(&cudie), &id) || id != off)
			mismatch(c, "unit 0x%llx: not in the reader's index", (unsigned long long)off);
		if (dwarf_cu_info(cu, NULL, NULL, NULL, NULL, &id, &addr_size, &offset_size) != 0 ||
		    h->version != version || h->unit_type != ut || h->addr_size != addr_size ||
		    h->offset_size != offset_size || (ut != DW_UT_compile && ut != DW_UT_partial &&
						       h->signature != id) ||
		    ((ut == DW_UT_type || ut == DW_UT_split_type) &&
		     h->type_off != dwarf_dieoffset(&subdie)))
			mismatch(c, "unit 0x%llx: header v%u type %u sizes %u/%u; libdw v%u type %u "
				 "sizes %u/%u", (unsigned long long)off, h->version, h->unit_type,
				 h->addr_size, h->offset_size, version, ut, addr_size, offset_size);
		expect[types] = h->next_off;
	}
}

static const Dwfl_Callbacks dwfl_offline = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * An ET_REL file elf_reloc.c relocated: every debug section's bytes must
 * be libdwfl's, the reference.  Returns whether the file was compared.
 */
static bool compare_relocation(struct cmp *c, const char *path, struct dwarf_file *df)
{
	Elf *ours = dwarf_file__elf(df), *ref;
	size_t nr = 0, shstrndx, i, compared = 0;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwfl *dwfl;
	Dwarf *dw;
	int fd;

	if (!dwarf_file__own_relocation(df))
		return false;
	fd = open(path, O_RDONLY);
	dwfl = dwfl_begin(&dwfl_offline);
	if (fd < 0 || !dwfl) {
		mismatch(c, "cannot open %s with libdwfl", path);
		if (fd >= 0)
			close(fd);
		dwfl_end(dwfl);
		return true;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, path, path, fd);
	dwfl_report_end(dwfl, NULL, NULL);
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	ref = dw ? dwarf_getelf(dw) : NULL;
	if (!ref || elf_getshdrnum(ours, &nr) || elf_getshdrstrndx(ours, &shstrndx)) {
		mismatch(c, "libdwfl cannot read %s", path);
		nr = 0;
	}
	for (i = 1; i < nr; i++) {
		Elf_Scn *a = elf_getscn(ours, i), *b = elf_getscn(ref, i);
		Elf_Data *da, *db;
		const char *name;
		GElf_Shdr sh;

		if (!a || !b || !gelf_getshdr(a, &sh) || (sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(ours, shstrndx, sh.sh_name);
		if (!name || (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8)))
			continue;
		/* what libdw reads: inflated, libdwfl inflated what it relocated */
		if (name[1] == 'z') {
			elf_compress_gnu(a, 0, 0);
			elf_compress_gnu(b, 0, 0);
		}
		if (gelf_getshdr(a, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			elf_compress(a, 0, 0);
		if (gelf_getshdr(b, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			elf_compress(b, 0, 0);
		da = elf_rawdata(a, NULL);
		db = elf_rawdata(b, NULL);
		if (!da || !db || da->d_size != db->d_size ||
		    (da->d_size && memcmp(da->d_buf, db->d_buf, da->d_size))) {
			mismatch(c, "section %s [%zu] differs from libdwfl's relocation", name, i);
			continue;
		}
		compared++;
	}
	if (nr && !compared)
		mismatch(c, "no debug section compared with libdwfl's relocation");
	dwfl_end(dwfl);
	return true;
}

struct list_arg {
	struct die_reader *r;
	int err;
};

static void list_run(void *arg)
{
	struct list_arg *a = arg;

	a->err = die_reader__list_units(a->r);
}

/*
 * A reader made unlisted and listed on a thread of its own, while this
 * one lists the units through libdw (as a conversion with -j3 does),
 * lists what the reader made at once does: the same units, in order.
 */
static void compare_listed_later(struct cmp *c, Dwarf *dw, const struct die_reader *r)
{
	struct list_arg a = { 0 };
	struct job j = { 0 };
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	size_t i, n = 0;
	int s;

	if (die_reader__from_dwarf_unlisted(dw, &why, &a.r) != 0) {
		mismatch(c, "no unlisted reader: %s", diag__last(&why));
		return;
	}
	job_start(&j, list_run, &a, true);
	while (dwarf_get_units(dw, cu, &next, &version, &unit_type, NULL, NULL) == 0) {
		cu = next;
		n++;
	}
	job_wait(&j);
	if (a.err)
		mismatch(c, "listing the units later failed: %d", a.err);
	if (n != die_reader__nr_units(r, DIE_SEC_INFO) + die_reader__nr_units(r, DIE_SEC_TYPES))
		mismatch(c, "libdw lists %zu units, the reader %zu and %zu", n,
			 die_reader__nr_units(r, DIE_SEC_INFO), die_reader__nr_units(r, DIE_SEC_TYPES));
	for (s = 0; s < 2; s++) {
		enum die_section sec = s ? DIE_SEC_TYPES : DIE_SEC_INFO;

		if (die_reader__nr_units(a.r, sec) != die_reader__nr_units(r, sec)) {
			mismatch(c, "listed later: %zu units, at once: %zu",
				 die_reader__nr_units(a.r, sec), die_reader__nr_units(r, sec));
			continue;
		}
		for (i = 0; i < die_reader__nr_units(r, sec); i++) {
			if (die_reader__unit_off(a.r, sec, i) != die_reader__unit_off(r, sec, i))
				mismatch(c, "listed later: unit %zu at 0x%llx, at once: 0x%llx", i,
					 (unsigned long long)die_reader__unit_off(a.r, sec, i),
					 (unsigned long long)die_reader__unit_off(r, sec, i));
		}
	}
	die_reader__free(a.r);
}

static void compare_file(const char *path, const char *what)
{
	struct cmp c = { .what = what };
	struct dwarf_file *df = NULL;
	struct die_reader *r = NULL;

	if (dwarf_file__open(path, &why, &df) != 0) {
		mismatch(&c, "cannot open: %s", diag__last(&why));
		return;
	}
	if (die_reader__from_dwarf(dwarf_file__dwarf(df), &why, &r) != 0 ||
	    die_unit__new(r, &why, &c.u) != 0) {
		mismatch(&c, "no reader: %s", diag__last(&why));
		goto out;
	}
	compare_units(&c, dwarf_file__dwarf(df));
	compare_listed_later(&c, dwarf_file__dwarf(df), r);
	if (compare_relocation(&c, path, df))
		printf("# %s: relocated by elf_reloc.c, as libdwfl does\n", what);
	printf("# %s: %zu units, %zu DIEs, %zu attributes, %zu values and %zu references "
	       "checked\n", what, c.units, c.dies, c.attrs, c.values, c.refs);
	printf("# %s: %zu locations, %zu read by die_loc.c (%zu expressions), the rest "
	       "left to libdw; %zu found at an address as libdw finds them\n", what,
	       c.loc_attrs, c.loc_read, c.loc_exprs, c.loc_at);
	if (!c.dies)
		mismatch(&c, "no DIE compared");
	/* split DWARF is libdw's; elsewhere die_loc.c must read some */
	if (c.loc_attrs && !c.loc_read && !strstr(what, "split"))
		mismatch(&c, "none of %zu locations read by die_loc.c", c.loc_attrs);
	if (c.first_strp && !c.strp_vary)
		mismatch(&c, "every DW_FORM_strp is \"%s\": relocations not applied?", c.first_strp);
out:
	die_unit__free(c.u);
	die_reader__free(r);
	dwarf_file__free(df);
}

/* ---- building the objects ---- */

static char workdir[] = "/tmp/d2b-die-reader-XXXXXX";
static const char *srcdir;

struct build {
	const char *name;
	const char *cc, *cxx;	/* cxx NULL: C fixtures only */
	const char *flags;
	const char *only;	/* one fixture, or NULL: all */
	const char *skip;	/* one fixture to leave out */
	bool link_shared;
};

static const char *const fixtures[] = { "aggregates", "enums", "knr", "oracle", "types" };

static bool have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* The fixture's "// e2e-cflags:" line, if any. */
static void fixture_cflags(const char *src, char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen(src, "r");

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "// e2e-cflags:");

		if (p) {
			snprintf(buf, len, "%s", p + strlen("// e2e-cflags:"));
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	}
	fclose(f);
}

static bool compile(const struct build *b, const char *cc, const char *src, const char *out)
{
	char cmd[4096], extra[512];

	fixture_cflags(src, extra, sizeof(extra));
	snprintf(cmd, sizeof(cmd), "%s %s %s -w %s %s -o %s >%s/log 2>&1", cc, b->flags, extra,
		 b->link_shared ? "-shared -fPIC" : "-c", src, out, workdir);
	if (system(cmd) == 0)
		return true;
	printf("#   failed: %s\n", cmd);
	snprintf(cmd, sizeof(cmd), "sed 's/^/#     /' %s/log | head -5", workdir);
	if (system(cmd)) {
		/* only the log is lost */
	}
	return false;
}

static void run_build(const struct build *b)
{
	char name[128], src[1024], out[1024], what[256];
	size_t i;

	snprintf(name, sizeof(name), "libdw:%s", b->name);
	if (!have(b->cc) || (b->cxx && !have(b->cxx))) {
		printf("SKIP %s: %s not installed\n", name, b->cc);
		return;
	}
	test_failed_now = 0;
	for (i = 0; i <= sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		bool cxx = i == sizeof(fixtures) / sizeof(fixtures[0]);
		const char *fx = cxx ? "cxx" : fixtures[i];

		if ((cxx && !b->cxx) || (b->only && strcmp(b->only, fx)) ||
		    (b->skip && !strcmp(b->skip, fx)))
			continue;
		snprintf(src, sizeof(src), "%s/tests/e2e/fixtures/%s.%s", srcdir, fx, cxx ? "cc" : "c");
		snprintf(out, sizeof(out), "%s/%s-%s.%s", workdir, fx, b->name,
			 b->link_shared ? "so" : "o");
		if (!compile(b, cxx ? b->cxx : b->cc, src, out)) {
			test_failed_now = 1;
			continue;
		}
		snprintf(what, sizeof(what), "%.100s %.100s", b->name, fx);
		compare_file(out, what);
	}
	printf("%s %s%s\n", test_failed_now ? "FAIL" : "PASS", name,
	       test_failed_now ? ": see above" : "");
	test_nfail += test_failed_now;
}

static const struct build builds[] = {
	{ "gcc-O0-dwarf4", "gcc", "g++", "-O0 -gdwarf-4" },
	{ "gcc-O2-dwarf4", "gcc", "g++", "-O2 -gdwarf-4" },
	{ "gcc-O0-dwarf5", "gcc", "g++", "-O0 -gdwarf-5" },
	{ "gcc-O2-dwarf5", "gcc", "g++", "-O2 -gdwarf-5" },
	{ "clang-19-O0-dwarf4", "clang-19", "clang++-19", "-O0 -gdwarf-4" },
	{ "clang-19-O2-dwarf4", "clang-19", "clang++-19", "-O2 -gdwarf-4" },
	{ "clang-19-O0-dwarf5", "clang-19", "clang++-19", "-O0 -gdwarf-5" },
	{ "clang-19-O2-dwarf5", "clang-19", "clang++-19", "-O2 -gdwarf-5" },
	{ "gcc-dwarf2", "gcc", NULL, "-O0 -gdwarf-2", "types" },
	{ "gcc-dwarf3", "gcc", NULL, "-O2 -gdwarf-3", "types" },
	{ "gcc-dwarf64", "gcc", "g++", "-O2 -gdwarf-5 -gdwarf64" },
	{ "clang-19-dwarf64", "clang-19", NULL, "-O2 -gdwarf-5 -gdwarf64", "types" },
	{ "gcc-gz", "gcc", "g++", "-O2 -gdwarf-5 -gz=zlib" },
	/* legacy .zdebug sections, which libdwfl inflates to relocate them */
	{ "gcc-zdebug", "gcc", NULL, "-O2 -gdwarf-5 -gz=zlib-gnu", "types" },
	{ "gcc-split", "gcc", NULL, "-O2 -gdwarf-5 -gsplit-dwarf", "types" },
	{ "gcc-split-dwarf4", "gcc", NULL, "-O2 -gdwarf-4 -gsplit-dwarf", "types" },
	{ "clang-19-split", "clang-19", NULL, "-O2 -gdwarf-5 -gsplit-dwarf", "types" },
	/* type units: in an object they are COMDAT groups, which libdw skips */
	{ "gcc-typeunits4", "g++", "g++", "-O0 -gdwarf-4 -fdebug-types-section", "cxx", NULL,
	  true },
	{ "gcc-typeunits5", "g++", "g++", "-O0 -gdwarf-5 -fdebug-types-section", "cxx", NULL,
	  true },
	{ "clang-19-typeunits5", "clang++-19", "clang++-19",
	  "-O0 -gdwarf-5 -fdebug-types-section", "cxx", NULL, true },
	{ "clang-19-typeunits4", "clang++-19", "clang++-19",
	  "-O0 -gdwarf-4 -fdebug-types-section", "cxx", NULL, true },
	/* no __int128 in types.c on 32-bit targets */
	{ "clang-19-i386", "clang-19", NULL, "--target=i386-linux-gnu -O2 -gdwarf-5", NULL,
	  "types" },
	{ "clang-19-s390x", "clang-19", NULL, "--target=s390x-linux-gnu -O2 -gdwarf-5" },
	{ "clang-19-ppc32", "clang-19", NULL, "--target=powerpc-linux-gnu -O0 -gdwarf-4", NULL,
	  "types" },
	/* relocated by elf_reloc.c, like x86-64 objects; aarch64_be in big-endian */
	{ "clang-19-aarch64", "clang-19", NULL, "--target=aarch64-linux-gnu -O2 -gdwarf-5" },
	{ "clang-19-aarch64_be", "clang-19", NULL, "--target=aarch64_be-linux-gnu -O2 -gdwarf-4",
	  "types" },
	{ "gcc-shared", "gcc", NULL, "-O2 -gdwarf-5", "types", NULL, true },
};

static const char *corpus_dir(char *buf, size_t len)
{
	const char *c = getenv("D2B_CORPUS"), *home = getenv("HOME");

	if (c && *c)
		return c;
	snprintf(buf, len, "%s/.cache/dwarf2btf-corpus", home ? home : "");
	return buf;
}

static void run_file(const char *name, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		printf("SKIP %s: %s not found (set D2B_CORPUS)\n", name, path);
		return;
	}
	test_failed_now = 0;
	compare_file(path, name);
	printf("%s %s%s\n", test_failed_now ? "FAIL" : "PASS", name,
	       test_failed_now ? ": see above" : "");
	test_nfail += test_failed_now;
}

static void run_libdw(void)
{
	char corpus[1024], path[1200], cmd[128];
	const char *extra = getenv("D2B_DIE_READER_FILE");
	size_t i;

	srcdir = getenv("D2B_SRC") ? getenv("D2B_SRC") : ".";
	if (!mkdtemp(workdir)) {
		printf("FAIL libdw: cannot make a work directory: %s\n", strerror(errno));
		test_nfail++;
		return;
	}
	for (i = 0; i < sizeof(builds) / sizeof(builds[0]); i++)
		run_build(&builds[i]);
	snprintf(path, sizeof(path), "%s/modules/kernel/net/vmw_vsock/vsock.ko",
		 corpus_dir(corpus, sizeof(corpus)));
	run_file("libdw:module-vsock.ko", path);
	if (extra)
		run_file("libdw:D2B_DIE_READER_FILE", extra);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", workdir);
	if (system(cmd))
		printf("# cannot remove %s\n", workdir);
}

/* ---- the benchmark: a full walk of a big file, ours against libdw ---- */

struct bench_job {
	struct die_reader *r;
	const uint64_t *offs;	/* unit header offsets */
	Dwarf_Die *cudies;	/* the same units, for libdw */
	size_t n, start, stride;
	size_t dies, names, types;
	uint64_t sum;
	int err;
};

/* ours: every DIE in order, its name and type read in one pass */
static void *bench_ours(void *arg)
{
	struct bench_job *j = arg;
	struct die_attr want[2];
	struct diag held;	/* (a thread's own) */
	struct die_unit *u;
	struct die_cursor c;
	struct die d;
	size_t i;
	int r;

	diag__init_held(&held);
	if (die_unit__new(j->r, &held, &u)) {
		j->err = -ENOMEM;
		return NULL;
	}
	for (i = j->start; i < j->n; i += j->stride) {
		if ((r = die_unit__load(u, DIE_SEC_INFO, j->offs[i])) < 0)
			goto fail;
		die_cursor__init(u, &c);
		while ((r = die_cursor__next(u, &c, &d)) > 0) {
			j->dies++;
			want[0].name = DW_AT_name;
			want[1].name = DW_AT_type;
			if ((r = die__attrs(u, &d, want, 2)) < 0)
				goto fail;
			if (want[0].form && want[0].str) {
				j->names++;
				j->sum += (unsigned char)want[0].str[0];
			}
			if (want[1].form) {
				j->types++;
				j->sum += want[1].u;
			}
		}
		if (r < 0)
			goto fail;
	}
	die_unit__free(u);
	diag__release(&held);
	return NULL;
fail:
	printf("# ours: %s\n", diag__last(&held));
	j->err = r;
	die_unit__free(u);
	diag__release(&held);
	return NULL;
}

/* libdw, as the walker uses it: child/sibling, tag, name, type's target */
static void bench_libdw_die(struct bench_job *j, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die child, t;
	const char *name;

	j->dies++;
	(void)dwarf_tag(die);
	/* not dwarf_diename(): it follows DW_AT_abstract_origin and DW_AT_specification */
	name = dwarf_formstring(dwarf_attr(die, DW_AT_name, &a));
	if (name) {
		j->names++;
		j->sum += (unsigned char)name[0];
	}
	if (dwarf_attr(die, DW_AT_type, &a) && dwarf_formref_die(&a, &t)) {
		j->types++;
		j->sum += dwarf_dieoffset(&t);
	}
	if (dwarf_haschildren(die) && dwarf_child(die, &child) == 0) {
		do
			bench_libdw_die(j, &child);
		while (dwarf_siblingof(&child, &child) == 0);
	}
}

static void *bench_libdw(void *arg)
{
	struct bench_job *j = arg;
	size_t i;

	for (i = j->start; i < j->n; i += j->stride)
		bench_libdw_die(j, &j->cudies[i]);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One timed run with nthreads threads; the totals in *sum. */
static double bench_run(void *(*fn)(void *), const struct bench_job *proto, int nthreads,
			struct bench_job *sum)
{
	struct bench_job jobs[16];
	pthread_t th[16];
	double t0 = now();
	int i;

	for (i = 0; i < nthreads; i++) {
		jobs[i] = *proto;
		jobs[i].start = (size_t)i;
		jobs[i].stride = (size_t)nthreads;
		if (pthread_create(&th[i], NULL, fn, &jobs[i]))
			abort();
	}
	*sum = *proto;
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		sum->dies += jobs[i].dies;
		sum->names += jobs[i].names;
		sum->types += jobs[i].types;
		sum->sum += jobs[i].sum;
		sum->err = sum->err ? sum->err : jobs[i].err;
	}
	return now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One reader shared by threads, a unit object each: the same walk as one
 * thread's, and as libdw's (the kernel module of the corpus).
 */
static void test_threads(void)
{
	char corpus[1024], path[1200];
	struct bench_job proto = {0}, one, four, lw;
	struct dwarf_file *df = NULL;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint64_t offs[64];
	Dwarf_Die dies[64];
	uint8_t ut;

	snprintf(path, sizeof(path), "%s/modules/kernel/net/vmw_vsock/vsock.ko",
		 corpus_dir(corpus, sizeof(corpus)));
	if (dwarf_file__open(path, &why, &df)) {
		printf("SKIP threads: %s: %s\n", path, diag__last(&why));
		return;
	}
	test_failed_now = 0;
	proto.offs = offs;
	proto.cudies = dies;
	while (dwarf_get_units(dwarf_file__dwarf(df), cu, &next, &version, &ut, &cudie,
			       &subdie) == 0 && proto.n < 64) {
		cu = next;
		offs[proto.n] = dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie);
		dies[proto.n++] = cudie;
	}
	CHECK(die_reader__from_dwarf(dwarf_file__dwarf(df), &why, &proto.r) == 0);
	if (proto.r) {
		bench_run(bench_ours, &proto, 1, &one);
		bench_run(bench_ours, &proto, 4, &four);
		bench_run(bench_libdw, &proto, 1, &lw);
		CHECK(one.err == 0 && four.err == 0 && one.dies > 0);
		CHECK(one.dies == four.dies && one.names == four.names && one.sum == four.sum);
		CHECK(one.dies == lw.dies && one.names == lw.names && one.types == lw.types &&
		      one.sum == lw.sum);
	}
	printf("%s threads%s\n", test_failed_now ? "FAIL" : "PASS",
	       test_failed_now ? ": see above" : "");
	test_nfail += test_failed_now;
	die_reader__free(proto.r);
	dwarf_file__free(df);
}

enum { BENCH_REPS = 5 };

static int bench_main(void)
{
	char corpus[1024], path[1200];
	const char *file = getenv("D2B_BENCH_FILE");
	struct dwarf_file *df = NULL;
	struct bench_job proto = {0}, res[2];
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t ut;
	size_t cap = 0;
	double t, times[2][2][BENCH_REPS];
	int th, k, rep, ret = 1;

	if (!file) {
		snprintf(path, sizeof(path), "%s/vmlinux", corpus_dir(corpus, sizeof(corpus)));
		file = path;
	}
	t = now();
	if (dwarf_file__open(file, &why, &df)) {
		printf("SKIP bench: %s: %s\n", file, diag__last(&why));
		return 0;
	}
	printf("# %s: opened through libdwfl in %.2f s\n", file, now() - t);
	t = now();
	if (die_reader__from_dwarf(dwarf_file__dwarf(df), &why, &proto.r)) {
		printf("FAIL bench: %s\n", diag__last(&why));
		goto out;
	}
	while (dwarf_get_units(dwarf_file__dwarf(df), cu, &next, &version, &ut, &cudie,
			       &subdie) == 0) {
		cu = next;
		if (ut != DW_UT_compile && ut != DW_UT_partial)
			continue;
		if (proto.n == cap) {
			cap = cap ? 2 * cap : 1024;
			proto.offs = realloc((void *)proto.offs, cap * sizeof(*proto.offs));
			proto.cudies = realloc(proto.cudies, cap * sizeof(*proto.cudies));
			if (!proto.offs || !proto.cudies)
				abort();
		}
		((uint64_t *)proto.offs)[proto.n] = dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie);
		proto.cudies[proto.n++] = cudie;
	}
	printf("# %zu units listed by libdw, our reader made, in %.2f s\n", proto.n, now() - t);

	t = bench_run(bench_libdw, &proto, 1, &res[0]);
	printf("# libdw, first walk (cold caches), 1 thread: %.3f s\n", t);
	for (rep = 0; rep < BENCH_REPS; rep++) {
		for (th = 1; th <= 2; th++) {
			times[0][th - 1][rep] = bench_run(bench_libdw, &proto, th, &res[0]);
			times[1][th - 1][rep] = bench_run(bench_ours, &proto, th, &res[1]);
			if (res[1].err || res[0].dies != res[1].dies || res[0].names != res[1].names ||
			    res[0].types != res[1].types || res[0].sum != res[1].sum) {
				printf("FAIL bench: walks differ: libdw %zu DIEs %zu names %zu types, "
				       "ours %zu %zu %zu (err %d)\n", res[0].dies, res[0].names,
				       res[0].types, res[1].dies, res[1].names, res[1].types,
				       res[1].err);
				goto out;
			}
		}
	}
	printf("# each walk: %zu DIEs, %zu names, %zu types read\n", res[0].dies, res[0].names,
	       res[0].types);
	for (th = 1; th <= 2; th++) {
		double med[2];

		for (k = 0; k < 2; k++) {
			qsort(times[k][th - 1], BENCH_REPS, sizeof(double), cmp_double);
			med[k] = times[k][th - 1][BENCH_REPS / 2];
		}
		printf("# %d thread%s, median of %d: libdw %.3f s (%.1f ns/DIE), ours %.3f s "
		       "(%.1f ns/DIE): %.1fx\n", th, th > 1 ? "s" : "", BENCH_REPS, med[0],
		       med[0] * 1e9 / res[0].dies, med[1], med[1] * 1e9 / res[1].dies,
		       med[0] / med[1]);
	}
	printf("PASS bench\n");
	ret = 0;
out:
	free((void *)proto.offs);
	free(proto.cudies);
	die_reader__free(proto.r);
	dwarf_file__free(df);
	return ret;
}

/*
 * Listing the units of a large .debug_info that lies in a private file
 * mapping, never written (die_sections.unwritten): the reader drops the
 * pages it touched, a batch at a time and all at the end, so that listing
 * vmlinux's 2,000 units does not keep most of its .debug_info mapped.  Not
 * unwritten (a relocated object's), they stay.  The section: 3 batches of
 * 64 KiB units, each a DWARF 4 header, a childless compile unit DIE and
 * zeros (null entries).
 */
static void test_list_drops_pages(void)
{
	static const uint8_t abbrev[] = { 1, DW_TAG_compile_unit, DW_CHILDREN_no, 0, 0, 0 };
	enum { UNIT = 64 << 10 };
	size_t n = 3 * PAGES_BEHIND_BATCH / UNIT, len = n * UNIT, i;
	char path[] = "/tmp/d2b-test-list.XXXXXX";
	struct die_sections secs = {0};
	struct die_reader *r = NULL;
	struct pages_behind pb;
	uint8_t *info = calloc(1, len), *map;
	int fd, pass;

	REQUIRE(info);
	for (i = 0; i < n; i++) {
		uint8_t *u = info + i * UNIT;
		uint32_t ulen = UNIT - 4, aoff = 0;

		memcpy(u, &ulen, 4);		/* (little-endian hosts only: see below) */
		u[4] = 4;			/* version 4 */
		memcpy(u + 6, &aoff, 4);
		u[10] = 8;			/* address size */
		u[11] = 1;			/* the unit DIE, abbreviation 1 */
	}
	map = test_map_file(path, info, len, PROT_READ, &fd);
	REQUIRE(map != MAP_FAILED);
	secs.sec[DIE_SEC_INFO] = (struct die_bytes){ map, len };
	secs.sec[DIE_SEC_ABBREV] = (struct die_bytes){ abbrev, sizeof(abbrev) };
	for (pass = 0; pass < 2; pass++) {
		secs.unwritten = pass == 0;
		CHECK_EQ(die_reader__new(&secs, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &why, &r),
			 0);
		REQUIRE(r);
		CHECK_EQ(die_reader__nr_units(r, DIE_SEC_INFO), n);
		die_reader__behind(r, DIE_SEC_INFO, &pb);
		CHECK_EQ(pb.base != NULL, pass == 0);
		die_reader__behind(r, DIE_SEC_ABBREV, &pb);
		CHECK(!pb.base);
		if (test_mapped_pages(map, len) < 0)
			printf("#   /proc/self/pagemap unreadable: counts not checked\n");
		else if (pass == 0)
			CHECK_EQ(test_mapped_pages(map, len), 0);
		else		/* a page of each header at least */
			CHECK(test_mapped_pages(map, len) >= (long)n);
		die_reader__free(r);
		r = NULL;
	}
	munmap(map, len);
	close(fd);
	unlink(path);
	free(info);
}

int main(void)
{
	if (getenv("D2B_BENCH_DIE_READER"))
		return bench_main();
	run_handmade();
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
		RUN(test_list_drops_pages);
	run_malformed();
	run_libdw();
	test_threads();
	return test_done();
}
