// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Table-driven tests of datasec.c: each case records variables with
 * datasec_set__add() over a fixed set of types and one section table, emits
 * them, and gives the types emit must add in a compact dump format:
 *
 *	[9] VAR 'a' type=1 linkage=1
 *	[10] DECL_TAG 'x' type=9 idx=-1
 *	[11] DATASEC '.data' size=64 9@0+4
 *
 * (a DATASEC entry is var@offset+size) and the notes it must give, in
 * order.  The base types and the section table are the same for every case.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "btf/btf.h"
#include "finish/datasec.h"
#include "test.h"

/* ---- the fixed inputs ---- */

enum {
	T_INT = 1,	/* int, 4 bytes */
	T_CHAR,		/* char, 1 byte */
	T_CHARS,	/* char[16] */
	T_BUF,		/* typedef char buf_t[16] */
	T_FWD,		/* struct opaque; (no size) */
	T_EMPTY,	/* struct empty {} (size 0) */
	T_CINT,		/* const int */
	T_LONG,		/* long, 8 bytes */
	NR_BASE,	/* the first ID emit adds */
};

/* Input type IDs as a merge stage would hand them over before renumbering:
 * REMAP(T) is T's old ID, and remap_map[] takes it back to T. */
enum { REMAP_SHIFT = 40 };
#define REMAP(t) ((t) + REMAP_SHIFT)
static uint32_t remap_map[REMAP_SHIFT + NR_BASE];

enum {
	S_UNDEF, S_TEXT, S_DATA, S_BSS, S_NONAME, S_EMPTY, S_HUGE, S_PERCPU,
	NR_SECS,
	S_PAST = NR_SECS + 3,	/* past the end of the table */
};

static const struct datasec_section secs[NR_SECS] = {
	[S_UNDEF] = { NULL, 0 },
	[S_TEXT] = { ".text", 128 },
	[S_DATA] = { ".data", 64 },
	[S_BSS] = { ".bss", 32 },
	[S_NONAME] = { NULL, 16 },		/* no such section */
	[S_EMPTY] = { ".rodata", 0 },		/* unusable: size 0 */
	[S_HUGE] = { ".huge", (uint64_t)UINT32_MAX + 1 },	/* unusable: too big */
	[S_PERCPU] = { ".data..percpu", 256 },
};

static int make_base(struct d2b_btf *b)
{
	int err = 0;

	err |= d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED) != T_INT;
	err |= d2b_btf__add_int(b, "char", 1, D2B_INT_CHAR) != T_CHAR;
	err |= d2b_btf__add_array(b, T_CHAR, T_INT, 16) != T_CHARS;
	err |= d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, "buf_t", T_CHARS) != T_BUF;
	err |= d2b_btf__add_fwd(b, "opaque", false) != T_FWD;
	err |= d2b_btf__add_composite(b, D2B_KIND_STRUCT, "empty", 0) != T_EMPTY;
	err |= d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, T_INT) != T_CINT;
	err |= d2b_btf__add_int(b, "long", 8, D2B_INT_SIGNED) != T_LONG;
	return err ? -EINVAL : 0;
}

/* ---- compact dump of what emit added ---- */

static void dump_type(const struct d2b_btf *b, uint32_t id, FILE *f)
{
	const struct d2b_type *t = d2b_btf__type(b, id);
	unsigned int i, kind = d2b_kind(t);

	fprintf(f, "[%u] %s '%s'", id, d2b_kind_name(kind), d2b_btf__str(b, t->name_off));
	switch (kind) {
	case D2B_KIND_VAR:
		fprintf(f, " type=%u linkage=%u", t->type, btf_var_linkage(t));
		break;
	case D2B_KIND_DECL_TAG:
		fprintf(f, " type=%u idx=%d", t->type, btf_decl_tag_idx(t));
		break;
	case D2B_KIND_DATASEC:
		fprintf(f, " size=%u", t->size);
		for (i = 0; i < d2b_vlen(t); i++)
			fprintf(f, " %u@%u+%u", btf_secinfos(t)[i].type, btf_secinfos(t)[i].offset,
				btf_secinfos(t)[i].size);
		break;
	default:
		fprintf(f, " (unexpected kind)");
		break;
	}
	fputc('\n', f);
}

static char *dump_from(const struct d2b_btf *b, uint32_t first)
{
	uint32_t id, end = d2b_btf__end_id(b);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (id = first; id < end; id++)
		dump_type(b, id, f);
	fclose(f);
	return buf;
}

/* ---- the notes: every message of a kept diag ---- */

enum { MAX_NOTES = 8 };

struct notes {
	char *msg[MAX_NOTES];
	unsigned int nr, lost;
};

/* datasec_set__emit(), its notes in n */
static int emit(struct datasec_set *ds, struct d2b_btf *b, const struct datasec_section *s,
		size_t nr, struct notes *n)
{
	struct diag d;
	size_t i;
	int err;

	diag__init_kept(&d, true);
	err = datasec_set__emit(ds, b, s, nr, &d);
	for (i = 0; i < d.nr_msgs; i++) {
		if (n->nr == MAX_NOTES) {
			n->lost++;
			continue;
		}
		CHECK_EQ(d.msgs[i].level, D2B_INFO);
		n->msg[n->nr++] = strdup(d.msgs[i].msg);
	}
	CHECK(!d.lost);
	diag__release(&d);
	return err;
}

static void notes_release(struct notes *n)
{
	unsigned int i;

	for (i = 0; i < n->nr; i++)
		free(n->msg[i]);
	memset(n, 0, sizeof(*n));
}

/* ---- the cases ---- */

enum { MAX_VARS = 8, MAX_TAGS = 3 };

struct var_in {
	const char *name;
	enum d2b_linkage linkage;
	uint32_t type;
	size_t shndx;
	uint64_t offset;
	const char *tags[MAX_TAGS];
};

struct dscase {
	const char *name;
	struct var_in vars[MAX_VARS];	/* up to the first with name NULL */
	bool remap;			/* types are REMAP(T): go through remap_map */
	const char *expect;		/* the dump of the added types */
	const char *notes[MAX_NOTES];	/* every note, in order */
};

#define G D2B_LINKAGE_GLOBAL
#define S D2B_LINKAGE_STATIC

static const struct dscase cases[] = {
	{ "sorted_by_offset_per_section",
	  /* met out of order, in three sections; each DATASEC lists its
	   * variables by offset and the DATASECs come in section order */
	  { { "d3", G, T_LONG, S_DATA, 48 },
	    { "b1", S, T_INT, S_BSS, 4 },
	    { "d1", G, T_INT, S_DATA, 0 },
	    { "p1", G, T_LONG, S_PERCPU, 8 },
	    { "d2", S, T_BUF, S_DATA, 16 },
	    { "b0", G, T_CINT, S_BSS, 0 } },
	  false,
	  "[9] VAR 'd1' type=1 linkage=1\n"
	  "[10] VAR 'd2' type=4 linkage=0\n"
	  "[11] VAR 'd3' type=8 linkage=1\n"
	  "[12] DATASEC '.data' size=64 9@0+4 10@16+16 11@48+8\n"
	  "[13] VAR 'b0' type=7 linkage=1\n"
	  "[14] VAR 'b1' type=1 linkage=0\n"
	  "[15] DATASEC '.bss' size=32 13@0+4 14@4+4\n"
	  "[16] VAR 'p1' type=8 linkage=1\n"
	  "[17] DATASEC '.data..percpu' size=256 16@8+8\n",
	  { NULL } },
	{ "type_without_size",
	  /* an incomplete struct, a zero-size struct, void */
	  { { "fwd", G, T_FWD, S_DATA, 0 },
	    { "ok", G, T_INT, S_DATA, 8 },
	    { "empty", G, T_EMPTY, S_DATA, 12 },
	    { "nothing", G, 0, S_DATA, 16 } },
	  false,
	  "[9] VAR 'ok' type=1 linkage=1\n"
	  "[10] DATASEC '.data' size=64 9@8+4\n",
	  { "variable 'fwd' left out: type has no size",
	    "variable 'empty' left out: type has no size",
	    "variable 'nothing' left out: type has no size" } },
	{ "past_section_end",
	  /* .bss is 32 bytes: [28, 32) fits, [30, 34) and [32, 36) do not */
	  { { "last", G, T_INT, S_BSS, 28 },
	    { "straddles", G, T_INT, S_BSS, 30 },
	    { "outside", G, T_INT, S_BSS, 32 },
	    { "far", G, T_BUF, S_BSS, 1000 } },
	  false,
	  "[9] VAR 'last' type=1 linkage=1\n"
	  "[10] DATASEC '.bss' size=32 9@28+4\n",
	  { "variable 'straddles' left out: extends past the end of .bss",
	    "variable 'outside' left out: extends past the end of .bss",
	    "variable 'far' left out: extends past the end of .bss" } },
	{ "overlaps_later_dropped",
	  /* "inside" is met first but starts later than "big": by offset,
	   * it is the later one; "alias" shares big's offset and is met
	   * after it; "next" starts where big ends and stays */
	  { { "inside", G, T_INT, S_DATA, 4 },
	    { "big", G, T_BUF, S_DATA, 0 },
	    { "alias", S, T_INT, S_DATA, 0 },
	    { "next", G, T_INT, S_DATA, 16 },
	    { "tail", G, T_LONG, S_DATA, 18 } },
	  false,
	  "[9] VAR 'big' type=4 linkage=1\n"
	  "[10] VAR 'next' type=1 linkage=1\n"
	  "[11] DATASEC '.data' size=64 9@0+16 10@16+4\n",
	  { "variable 'alias' left out: overlaps another in .data",
	    "variable 'inside' left out: overlaps another in .data",
	    "variable 'tail' left out: overlaps another in .data" } },
	{ "overlap_with_dropped_one_kept",
	  /* a variable left out does not hide the space it would take */
	  { { "fwd", G, T_FWD, S_BSS, 0 },
	    { "a", G, T_INT, S_BSS, 0 },
	    { "b", G, T_INT, S_BSS, 4 } },
	  false,
	  "[9] VAR 'a' type=1 linkage=1\n"
	  "[10] VAR 'b' type=1 linkage=1\n"
	  "[11] DATASEC '.bss' size=32 9@0+4 10@4+4\n",
	  { "variable 'fwd' left out: type has no size" } },
	{ "no_such_section",
	  /* sections without a name (index 0, a lookup that failed) and
	   * indices past the table: their variables are left out */
	  { { "undef", G, T_INT, S_UNDEF, 0 },
	    { "noname", G, T_INT, S_NONAME, 0 },
	    { "past", G, T_INT, S_PAST, 0 },
	    { "kept", G, T_INT, S_TEXT, 0 } },
	  false,
	  "[9] VAR 'kept' type=1 linkage=1\n"
	  "[10] DATASEC '.text' size=128 9@0+4\n",
	  { "1 variable(s) of section [0] left out: the section has no name",
	    "1 variable(s) of section [4] left out: the section has no name",
	    "1 variable(s) of section [11] left out: the section has no name" } },
	{ "unusable_section_size",
	  { { "zero", G, T_INT, S_EMPTY, 0 },
	    { "huge", G, T_INT, S_HUGE, 0 } },
	  false,
	  "",
	  { "section .rodata: size 0 unusable for a DATASEC",
	    "section .huge: size 4294967296 unusable for a DATASEC" } },
	{ "decl_tags",
	  /* each VAR is followed by its DECL_TAGs (component -1), in order;
	   * a left-out variable's tags go with it */
	  { { "t2", G, T_INT, S_DATA, 8, { "user", "percpu" } },
	    { "t0", G, T_INT, S_DATA, 0 },
	    { "gone", G, T_FWD, S_DATA, 4, { "lost" } },
	    { "t1", S, T_INT, S_BSS, 0, { "one" } } },
	  false,
	  "[9] VAR 't0' type=1 linkage=1\n"
	  "[10] VAR 't2' type=1 linkage=1\n"
	  "[11] DECL_TAG 'user' type=10 idx=-1\n"
	  "[12] DECL_TAG 'percpu' type=10 idx=-1\n"
	  "[13] DATASEC '.data' size=64 9@0+4 10@8+4\n"
	  "[14] VAR 't1' type=1 linkage=0\n"
	  "[15] DECL_TAG 'one' type=14 idx=-1\n"
	  "[16] DATASEC '.bss' size=32 14@0+4\n",
	  { "variable 'gone' left out: type has no size" } },
	{ "remap",
	  /* recorded with old IDs; sizes are those of the new types */
	  { { "r_buf", G, REMAP(T_BUF), S_DATA, 0 },
	    { "r_long", G, REMAP(T_LONG), S_DATA, 16 },
	    { "r_fwd", G, REMAP(T_FWD), S_DATA, 24 } },
	  true,
	  "[9] VAR 'r_buf' type=4 linkage=1\n"
	  "[10] VAR 'r_long' type=8 linkage=1\n"
	  "[11] DATASEC '.data' size=64 9@0+16 10@16+8\n",
	  { "variable 'r_fwd' left out: type has no size" } },
};

#undef G
#undef S

static int add_case_vars(struct datasec_set *ds, const struct dscase *c)
{
	unsigned int i, nr_tags;
	int err;

	for (i = 0; i < MAX_VARS && c->vars[i].name; i++) {
		const struct var_in *v = &c->vars[i];

		for (nr_tags = 0; nr_tags < MAX_TAGS && v->tags[nr_tags]; nr_tags++)
			;
		err = datasec_set__add(ds, v->name, v->linkage, v->type, v->shndx, v->offset,
				       v->tags, nr_tags);
		if (err)
			return err;
	}
	return 0;
}

/* Record c's variables, emit them over the base types: *ret the result. */
static int run_emit(const struct dscase *c, struct d2b_btf **ret, struct notes *n)
{
	struct datasec_set *ds = datasec_set__new();
	struct d2b_btf *b = d2b_btf__new(NULL);
	int err = -ENOMEM;

	*ret = NULL;
	if (!ds || !b)
		goto out;
	err = make_base(b);
	if (!err)
		err = add_case_vars(ds, c);
	if (err)
		goto out;
	if (c->remap)
		datasec_set__remap(ds, remap_map);
	err = emit(ds, b, secs, NR_SECS, n);
	if (!err) {
		*ret = b;
		b = NULL;
	}
out:
	datasec_set__free(ds);
	d2b_btf__free(b);
	return err;
}

static void check_notes(const struct dscase *c, const struct notes *n)
{
	unsigned int i, want;

	for (want = 0; want < MAX_NOTES && c->notes[want]; want++)
		;
	if (n->nr == want && !n->lost) {
		for (i = 0; i < want; i++)
			CHECK_STR(n->msg[i], c->notes[i]);
		return;
	}
	printf("#   %u notes, expected %u:\n", n->nr + n->lost, want);
	for (i = 0; i < n->nr; i++)
		printf("#     got \"%s\"\n", n->msg[i] ? n->msg[i] : "(null)");
	for (i = 0; i < want; i++)
		printf("#     expected \"%s\"\n", c->notes[i]);
	test_failed_now = 1;
}

static void run_case(const struct dscase *c)
{
	struct d2b_btf *b = NULL, *again = NULL;
	struct notes n = { 0 }, n2 = { 0 };
	void *enc1 = NULL, *enc2 = NULL;
	size_t len1 = 0, len2 = 0;
	char *dump = NULL;
	int err;

	test_failed_now = 0;
	err = run_emit(c, &b, &n);
	if (err) {
		printf("#   emit failed: %s\n", strerror(-err));
		test_failed_now = 1;
		goto out;
	}
	dump = dump_from(b, NR_BASE);
	if (!dump || strcmp(dump, c->expect)) {
		printf("#   got:\n%s#   expected:\n%s", dump ? dump : "(null)\n", c->expect);
		test_failed_now = 1;
	}
	check_notes(c, &n);
	/* the result encodes, and a second run gives the same bytes */
	CHECK_EQ(d2b_btf__encode(b, &enc1, &len1), 0);
	CHECK_EQ(run_emit(c, &again, &n2), 0);
	CHECK(again && d2b_btf__encode(again, &enc2, &len2) == 0 && len1 == len2 &&
	      enc1 && enc2 && !memcmp(enc1, enc2, len1));
out:
	printf("%s datasec_%s%s\n", test_failed_now ? "FAIL" : "PASS", c->name,
	       test_failed_now ? ": see above" : "");
	test_nfail += test_failed_now;
	free(dump);
	free(enc1);
	free(enc2);
	notes_release(&n);
	notes_release(&n2);
	d2b_btf__free(b);
	d2b_btf__free(again);
}

/* ---- cases that do not fit the table ---- */

/* No variables: nothing added, nothing noted. */
static void test_empty_set(void)
{
	struct datasec_set *ds = datasec_set__new();
	struct d2b_btf *b = d2b_btf__new(NULL);
	struct notes n = { 0 };

	REQUIRE(ds && b && make_base(b) == 0);
	CHECK_EQ(emit(ds, b, secs, NR_SECS, &n), 0);
	CHECK_EQ(d2b_btf__end_id(b), NR_BASE);
	CHECK_EQ(n.nr, 0);
	notes_release(&n);
	datasec_set__free(ds);
	d2b_btf__free(b);
	datasec_set__free(NULL);
}

/*
 * More than D2B_MAX_VLEN variables in one section: two DATASECs of its
 * name, the first D2B_MAX_VLEN by offset in the first, the rest in the
 * second; every VAR is in one (none left outside, as once), a note says
 * so, and the kernel's rules hold.
 */
static void test_more_than_max_vlen(void)
{
	enum { EXTRA = 3, NR = D2B_MAX_VLEN + EXTRA };
	const struct datasec_section big[] = { { NULL, 0 }, { ".data", 4 * (uint64_t)NR } };
	struct datasec_set *ds = datasec_set__new();
	struct d2b_btf *b = d2b_btf__new(NULL);
	const struct d2b_type *dsecs[2] = { NULL, NULL };
	struct notes n = { 0 };
	uint32_t id, end, last_var = 0, nr_vars = 0, nr_secs = 0, k = 0;
	char name[32];
	unsigned int i, s;

	REQUIRE(ds && b && make_base(b) == 0);
	/* added from the highest offset down: emit sorts them */
	for (i = NR; i-- > 0;) {
		snprintf(name, sizeof(name), "v%u", i);
		REQUIRE(datasec_set__add(ds, name, D2B_LINKAGE_GLOBAL, T_INT, 1, 4 * (uint64_t)i,
					 NULL, 0) == 0);
	}
	REQUIRE(emit(ds, b, big, 2, &n) == 0);
	end = d2b_btf__end_id(b);
	for (id = NR_BASE; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(b, id);

		if (d2b_kind(t) == D2B_KIND_VAR)
			nr_vars++;
		if (d2b_kind(t) == D2B_KIND_DATASEC && nr_secs++ < 2)
			dsecs[nr_secs - 1] = t;
	}
	CHECK_EQ(nr_vars, NR);
	REQUIRE(nr_secs == 2);
	REQUIRE(d2b_vlen(dsecs[0]) == D2B_MAX_VLEN && d2b_vlen(dsecs[1]) == EXTRA);
	for (s = 0; s < 2; s++) {
		const struct d2b_var_secinfo *si = btf_secinfos(dsecs[s]);

		CHECK_STR(d2b_btf__str(b, dsecs[s]->name_off), ".data");
		CHECK_EQ(dsecs[s]->size, 4 * (uint64_t)NR);
		for (i = 0; i < d2b_vlen(dsecs[s]); i++, k++) {
			const struct d2b_type *v = d2b_btf__type(b, si[i].type);

			snprintf(name, sizeof(name), "v%u", k);
			if (si[i].offset != 4 * k || si[i].size != 4 || !v ||
			    d2b_kind(v) != D2B_KIND_VAR || strcmp(d2b_btf__str(b, v->name_off), name)) {
				printf("#   entry %u: var %u offset %u size %u, expected v%u@%u+4\n", k,
				       si[i].type, si[i].offset, si[i].size, k, 4 * k);
				test_failed_now = 1;
				break;
			}
			CHECK(si[i].type > last_var);	/* in the order the VARs were added */
			last_var = si[i].type;
		}
	}
	CHECK_EQ(k, NR);
	CHECK_EQ(d2b_btf__verify(b, 0, NULL, NULL), 0);
	REQUIRE(n.nr == 1);
	CHECK_STR(n.msg[0], "section .data: 65538 variables, more than a DATASEC holds (65535): "
		  "2 DATASECs of that name");
	notes_release(&n);
	datasec_set__free(ds);
	d2b_btf__free(b);
}

/*
 * A pointer's entry has the target's pointer size: with 4-byte pointers
 * (i386, armv7) an int right after an int * is its own variable, with
 * 8-byte ones the same layout overlaps (the bug of a fixed size of 8).
 */
static void pointer_slots(uint32_t ptr_size, const char *expect, const char *note)
{
	struct datasec_set *ds = datasec_set__new();
	struct d2b_btf *b = d2b_btf__new(NULL);
	struct notes n = { 0 };
	char *dump = NULL;
	int ptr;

	REQUIRE(ds && b && make_base(b) == 0);
	REQUIRE(d2b_btf__set_pointer_size(b, ptr_size) == 0);
	ptr = d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, T_INT);
	REQUIRE(ptr == NR_BASE);
	REQUIRE(datasec_set__add(ds, "p", D2B_LINKAGE_GLOBAL, ptr, S_BSS, 0, NULL, 0) == 0);
	REQUIRE(datasec_set__add(ds, "after", D2B_LINKAGE_GLOBAL, T_INT, S_BSS, 4, NULL, 0) == 0);
	REQUIRE(emit(ds, b, secs, NR_SECS, &n) == 0);
	dump = dump_from(b, NR_BASE + 1);
	if (!dump || strcmp(dump, expect)) {
		printf("#   got:\n%s#   expected:\n%s", dump ? dump : "(null)\n", expect);
		test_failed_now = 1;
	}
	CHECK_EQ(n.nr, note ? 1 : 0);
	if (note && n.nr == 1)
		CHECK_STR(n.msg[0], note);
	free(dump);
	notes_release(&n);
	datasec_set__free(ds);
	d2b_btf__free(b);
}

static void test_pointer_size_4(void)
{
	pointer_slots(4,
		      "[10] VAR 'p' type=9 linkage=1\n"
		      "[11] VAR 'after' type=1 linkage=1\n"
		      "[12] DATASEC '.bss' size=32 10@0+4 11@4+4\n",
		      NULL);
}

static void test_pointer_size_8(void)
{
	pointer_slots(8,
		      "[10] VAR 'p' type=9 linkage=1\n"
		      "[11] DATASEC '.bss' size=32 10@0+8\n",
		      "variable 'after' left out: overlaps another in .bss");
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(remap_map) / sizeof(remap_map[0]); i++)
		remap_map[i] = i >= REMAP_SHIFT ? (uint32_t)(i - REMAP_SHIFT) : 0;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	RUN(test_empty_set);
	RUN(test_more_than_max_vlen);
	RUN(test_pointer_size_4);
	RUN(test_pointer_size_8);
	return test_done();
}
