// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline-site kinds (LOC_PARAM, LOC_PROTO, LOCSEC) of the bpf tree:
 * built, written, read back, their fields iterated, copied, split; the
 * 24-bit vlen they may have, which only a BTF marked for the bpf tree's
 * kernels is written with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/btf_loc.h"
#include "dwarf2btf.h"
#include "test.h"

/*
 * The selftest's mk_loc_btf() (tools/testing/selftests/bpf/prog_tests/
 * bpftool_btf_dump.c, loc_dump): int, a FUNC_PROTO of five int, FUNC foo,
 * six LOC_PARAMs, a LOC_PROTO of them, a LOCSEC "inline.text" with foo at
 * offset 64.
 */
static struct d2b_btf *mk_loc_btf(void)
{
	static const uint32_t reg1[] = { 1 }, deref[] = { 2, 0x10 },
		fb[] = { D2B_LOC_PARAM_FBREG, (uint32_t)-0x10 }, addr[] = { 0x9abcdef0, 0x12345678 },
		cnst[] = { 0xfeedface, 0xdeadbeef }, fbderef[] = { D2B_LOC_PARAM_FBREG, (uint32_t)-0x20 };
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i, ok = 1;

	if (!btf)
		return NULL;
	ok &= d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED) == 1;
	ok &= d2b_btf__add_func_proto(btf, 1) == 2;
	for (i = 0; i < 5; i++) {
		char name[8];

		snprintf(name, sizeof(name), "arg%d", i + 1);
		ok &= d2b_btf__add_param(btf, name, 1) == 0;
	}
	ok &= d2b_btf__add_func(btf, "foo", D2B_LINKAGE_STATIC, 2) == 3;
	ok &= d2b_btf__add_loc_param(btf, 4, D2B_LOC_PARAM_REG, reg1, 1) == 4;
	ok &= d2b_btf__add_loc_param(btf, 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF |
				     D2B_LOC_PARAM_OFFSET, deref, 2) == 5;
	ok &= d2b_btf__add_loc_param(btf, 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_OFFSET |
				     D2B_LOC_PARAM_SIGNED, fb, 2) == 6;
	ok &= d2b_btf__add_loc_param(btf, 8, D2B_LOC_PARAM_ADDR | D2B_LOC_PARAM_CONST, addr, 2) == 7;
	ok &= d2b_btf__add_loc_param(btf, 8, D2B_LOC_PARAM_CONST, cnst, 2) == 8;
	ok &= d2b_btf__add_loc_param(btf, 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF |
				     D2B_LOC_PARAM_OFFSET | D2B_LOC_PARAM_SIGNED, fbderef, 2) == 9;
	ok &= d2b_btf__add_loc_proto(btf) == 10;
	for (i = 4; i <= 9; i++)
		ok &= d2b_btf__add_loc_proto_param(btf, (uint32_t)i) == 0;
	ok &= d2b_btf__add_locsec(btf, "inline.text") == 11;
	ok &= d2b_btf__add_locsec_loc(btf, 3, 10, 64) == 0;
	if (!ok) {
		d2b_btf__free(btf);
		return NULL;
	}
	return btf;
}

static void test_build(void)
{
	struct d2b_btf *btf = mk_loc_btf();
	const struct d2b_type *t;

	REQUIRE(btf);
	t = d2b_btf__type(btf, 5);
	CHECK_EQ(d2b_kind(t), D2B_KIND_LOC_PARAM);
	CHECK_EQ(d2b_vlen(t), 2);
	CHECK_EQ(t->size, 8);
	CHECK_EQ(d2b_loc_param_flags(t), 0x38);
	CHECK_EQ(d2b_loc_param_values(t)[1], 0x10);
	CHECK_EQ(btf_type_words(t), 6);
	t = d2b_btf__type(btf, 10);
	CHECK_EQ(d2b_kind(t), D2B_KIND_LOC_PROTO);
	CHECK_EQ(d2b_vlen(t), 6);
	CHECK_EQ(d2b_loc_proto_params(t)[5], 9);
	t = d2b_btf__type(btf, 11);
	CHECK_EQ(d2b_kind(t), D2B_KIND_LOCSEC);
	CHECK_STR(d2b_btf__name(btf, 11), "inline.text");
	CHECK_EQ(d2b_locsec_locs(t)[0].func, 3);
	CHECK_EQ(d2b_locsec_locs(t)[0].loc_proto, 10);
	CHECK_EQ(d2b_locsec_locs(t)[0].offset, 64);
	CHECK_STR(d2b_kind_name(D2B_KIND_LOCSEC), "LOCSEC");
	CHECK_STR(d2b_kind_name(D2B_KIND_LAST + 1), "UNKNOWN");

	/* what the builder refuses: no value, unknown flags, no size, no name,
	 * a parameter with no LOC_PROTO open */
	CHECK_EQ(d2b_btf__add_loc_param(btf, 4, D2B_LOC_PARAM_REG, NULL, 0), -EINVAL);
	CHECK_EQ(d2b_btf__add_loc_param(btf, 4, 0x40, (const uint32_t[]){ 1 }, 1), -EINVAL);
	CHECK_EQ(d2b_btf__add_loc_param(btf, 0, D2B_LOC_PARAM_REG, (const uint32_t[]){ 1 }, 1),
		 -EINVAL);
	CHECK_EQ(d2b_btf__add_locsec(btf, ""), -EINVAL);
	CHECK_EQ(d2b_btf__add_loc_proto_param(btf, 4), -EINVAL);	/* LOCSEC open */
	CHECK_EQ(d2b_btf__add_locsec_loc(btf, 3, 10, 0), 0);
	CHECK(d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED) > 0);
	CHECK_EQ(d2b_btf__add_locsec_loc(btf, 3, 10, 0), -EINVAL);	/* none open */
	d2b_btf__free(btf);
}

/* The type-ID fields and string fields each kind has */
static void test_fields(void)
{
	struct d2b_btf *btf = mk_loc_btf();
	struct btf_field_iter it;
	uint32_t *f, got[8];
	int n;

	REQUIRE(btf);
	btf_field_iter__init(&it, btf_type_mut(btf, 5), BTF_FIELD_IDS);
	CHECK(btf_field_iter__next(&it) == NULL);	/* a LOC_PARAM refers to nothing */
	btf_field_iter__init(&it, btf_type_mut(btf, 5), BTF_FIELD_STRS);
	for (n = 0; (f = btf_field_iter__next(&it)); n++)
		CHECK_EQ(*f, 0);
	CHECK_EQ(n, 1);
	btf_field_iter__init(&it, btf_type_mut(btf, 10), BTF_FIELD_IDS);
	for (n = 0; (f = btf_field_iter__next(&it)) && n < 8; n++)
		got[n] = *f;
	CHECK_EQ(n, 6);
	CHECK(got[0] == 4 && got[5] == 9);
	btf_field_iter__init(&it, btf_type_mut(btf, 11), BTF_FIELD_IDS);
	for (n = 0; (f = btf_field_iter__next(&it)) && n < 8; n++)
		got[n] = *f;
	CHECK_EQ(n, 2);
	CHECK(got[0] == 3 && got[1] == 10);
	btf_field_iter__init(&it, btf_type_mut(btf, 11), BTF_FIELD_STRS);
	f = btf_field_iter__next(&it);
	REQUIRE(f);
	CHECK_STR(d2b_btf__str(btf, *f), "inline.text");
	CHECK(btf_field_iter__next(&it) == NULL);
	d2b_btf__free(btf);
}

static struct d2b_btf *roundtrip(const struct d2b_btf *btf, const struct d2b_btf *base)
{
	struct d2b_btf *back = NULL;
	char err[256];
	size_t size;
	void *data;

	if (d2b_btf__encode(btf, &data, &size))
		return NULL;
	if (d2b_btf__parse_raw(data, size, base, &back, err, sizeof(err)))
		printf("#   parse: %s\n", err);
	free(data);
	return back;
}

static bool same_types(const struct d2b_btf *a, const struct d2b_btf *b)
{
	uint32_t id;

	if (d2b_btf__end_id(a) != d2b_btf__end_id(b))
		return false;
	for (id = d2b_btf__start_id(a); id < d2b_btf__end_id(a); id++) {
		const struct d2b_type *ta = d2b_btf__type(a, id), *tb = d2b_btf__type(b, id);

		if (btf_type_words(ta) != btf_type_words(tb) ||
		    memcmp(ta, tb, btf_type_words(ta) * 4) ||
		    strcmp(d2b_btf__name(a, id), d2b_btf__name(b, id)))
			return false;
	}
	return true;
}

static void test_roundtrip(void)
{
	struct d2b_btf *btf = mk_loc_btf(), *back;
	enum d2b_endian e;

	REQUIRE(btf);
	for (e = D2B_ENDIAN_LITTLE; e <= D2B_ENDIAN_BIG; e++) {
		d2b_btf__set_endian(btf, e);
		back = roundtrip(btf, NULL);
		CHECK(back && same_types(btf, back));
		CHECK(back && d2b_btf__endian(back) == e);
		CHECK(back && !btf_vlen24(back));
		d2b_btf__free(back);
	}
	d2b_btf__free(btf);
}

/* Split BTF with inline sites over a base without any (.BTF.inline over
 * .BTF), its sites naming a FUNC of the base */
static void test_split(void)
{
	static const uint32_t reg5[] = { 5 };
	struct d2b_btf *base = d2b_btf__new(NULL), *split, *back, *copy;
	uint32_t *map;
	int lp, proto, id;

	REQUIRE(base);
	CHECK(d2b_btf__add_int(base, "int", 4, D2B_INT_SIGNED) == 1);
	CHECK(d2b_btf__add_func_proto(base, 1) == 2);
	CHECK(d2b_btf__add_param(base, "a", 1) == 0);
	CHECK(d2b_btf__add_func(base, "f", D2B_LINKAGE_STATIC, 2) == 3);
	split = d2b_btf__new(base);
	REQUIRE(split);
	lp = d2b_btf__add_loc_param(split, 4, D2B_LOC_PARAM_REG, reg5, 1);
	proto = d2b_btf__add_loc_proto(split);
	CHECK(lp == 4 && proto == 5);
	CHECK(d2b_btf__add_loc_proto_param(split, (uint32_t)lp) == 0);
	CHECK(d2b_btf__add_locsec(split, "inline.text") == 6);
	CHECK(d2b_btf__add_locsec_loc(split, 3, (uint32_t)proto, 128) == 0);
	back = roundtrip(split, base);
	CHECK(back && same_types(split, back));

	/* copied type by type (btf_add_copy), IDs through a map */
	copy = d2b_btf__new(base);
	map = calloc(d2b_btf__end_id(split), sizeof(*map));
	REQUIRE(copy && map);
	for (id = 0; id < 4; id++)
		map[id] = (uint32_t)id;
	for (id = 4; id < 7; id++)
		map[id] = (uint32_t)id;
	for (id = 4; id < 7; id++)
		CHECK(btf_add_copy(copy, split, (uint32_t)id, map) == id);
	CHECK(same_types(split, copy));
	/* and raw (d2b_btf__add_raw) */
	CHECK(d2b_btf__add_raw(copy, d2b_btf__type(split, 6)) == 7);
	free(map);
	d2b_btf__free(copy);
	d2b_btf__free(back);
	d2b_btf__free(split);
	d2b_btf__free(base);
}

/* A module's split BTF with inline sites of its own functions, distilled:
 * the sites stay the module's, their IDs follow their types */
static void test_distill(void)
{
	static const uint32_t reg2[] = { 2 };
	struct d2b_btf *base = d2b_btf__new(NULL), *split, *dbase = NULL, *dsplit = NULL;
	const struct d2b_type *t;
	uint32_t s, id;
	int lp, proto, f;

	REQUIRE(base);
	CHECK(d2b_btf__add_int(base, "int", 4, D2B_INT_SIGNED) == 1);
	CHECK(d2b_btf__add_int(base, "long", 8, D2B_INT_SIGNED) == 2);
	CHECK(d2b_btf__add_ref(base, D2B_KIND_PTR, NULL, 1) == 3);
	split = d2b_btf__new(base);
	REQUIRE(split);
	s = d2b_btf__start_id(split);
	CHECK(d2b_btf__add_func_proto(split, 1) == (int)s);
	CHECK(d2b_btf__add_param(split, "p", 3) == 0);			/* a base PTR */
	f = d2b_btf__add_func(split, "m", D2B_LINKAGE_STATIC, s);
	lp = d2b_btf__add_loc_param(split, 8, D2B_LOC_PARAM_REG, reg2, 1);
	proto = d2b_btf__add_loc_proto(split);
	CHECK(d2b_btf__add_loc_proto_param(split, (uint32_t)lp) == 0);
	CHECK(d2b_btf__add_locsec(split, "inline.text") > 0);
	CHECK(d2b_btf__add_locsec_loc(split, (uint32_t)f, (uint32_t)proto, 8) == 0);
	CHECK_EQ(d2b_btf__verify(split, D2B_VERIFY_LOC_KINDS, NULL, NULL), 0);
	REQUIRE(d2b_btf__distill_base(split, &dbase, &dsplit) == 0);
	CHECK_EQ(d2b_btf__nr_types(dbase), 1);		/* int; the PTR moves */
	CHECK_EQ(d2b_btf__verify(dsplit, D2B_VERIFY_LOC_KINDS, NULL, NULL), 0);
	for (id = d2b_btf__start_id(dsplit); id < d2b_btf__end_id(dsplit); id++) {
		t = d2b_btf__type(dsplit, id);
		if (d2b_kind(t) != D2B_KIND_LOCSEC)
			continue;
		CHECK_STR(d2b_btf__name(dsplit, d2b_locsec_locs(t)[0].func), "m");
		CHECK_EQ(d2b_kind(d2b_btf__type(dsplit, d2b_locsec_locs(t)[0].loc_proto)),
			 D2B_KIND_LOC_PROTO);
	}
	d2b_btf__free(dsplit);
	d2b_btf__free(dbase);
	d2b_btf__free(split);
	d2b_btf__free(base);
}

/* A LOCSEC of more sites than 16 bits count: held, refused when written
 * for a 6.x kernel, written for the bpf tree's, read back marked so */
static void test_vlen24(void)
{
	enum { NR = D2B_MAX_VLEN + 3 };
	struct d2b_btf *btf = mk_loc_btf(), *back;
	const struct d2b_type *t;
	char err[512];
	size_t size;
	void *data;
	uint32_t i;
	int id;

	REQUIRE(btf);
	id = d2b_btf__add_locsec(btf, ".text.unlikely");
	REQUIRE(id == 12);
	for (i = 0; i < NR; i++)
		REQUIRE(d2b_btf__add_locsec_loc(btf, 3, 10, i * 4) == 0);
	t = d2b_btf__type(btf, 12);
	CHECK_EQ(d2b_vlen(t), NR);
	CHECK_EQ(d2b_locsec_locs(t)[NR - 1].offset, (NR - 1) * 4);
	CHECK_EQ(d2b_btf__encode(btf, &data, &size), -E2BIG);
	btf_encode_why(btf, -E2BIG, err, sizeof(err));
	CHECK(strstr(err, "type [12] LOCSEC '.text.unlikely' has vlen 65538") != NULL);
	CHECK(d2b_btf__write_raw(btf, "/dev/null/x", err, sizeof(err)) == -E2BIG);
	CHECK(strstr(err, "over the 65535 a 6.x kernel reads") != NULL);

	btf_set_vlen24(btf, true);
	back = roundtrip(btf, NULL);
	REQUIRE(back);
	CHECK(same_types(btf, back));
	CHECK(btf_vlen24(back));
	CHECK_EQ(d2b_vlen(d2b_btf__type(back, 12)), NR);
	d2b_btf__free(back);

	/* the other kinds keep 16 bits in the builder */
	CHECK(d2b_btf__add_func_proto(btf, 1) > 0);
	for (i = 0; i < D2B_MAX_VLEN; i++)
		REQUIRE(d2b_btf__add_param(btf, NULL, 1) == 0);
	CHECK_EQ(d2b_btf__add_param(btf, NULL, 1), -E2BIG);
	d2b_btf__free(btf);
}

/* The layout section: twenty records as pahole 1.32 writes them, or one
 * per known kind when the BTF holds inline sites */
static void test_layout(void)
{
	struct d2b_btf *btf = mk_loc_btf(), *plain = d2b_btf__new(NULL);
	const struct d2b_layout *l;
	uint32_t nr;

	REQUIRE(btf && plain);
	CHECK(d2b_btf__add_int(plain, "int", 4, D2B_INT_SIGNED) == 1);
	CHECK(d2b_btf__set_layout(plain, true) == 0);
	d2b_btf__layout(plain, &nr);
	CHECK_EQ(nr, D2B_KIND_MAX + 1);
	CHECK(d2b_btf__set_layout(btf, true) == 0);
	l = d2b_btf__layout(btf, &nr);
	REQUIRE(nr == D2B_KIND_LAST + 1);
	CHECK(l[D2B_KIND_LOC_PARAM].info_sz == 4 && l[D2B_KIND_LOC_PARAM].elem_sz == 4);
	CHECK(l[D2B_KIND_LOC_PROTO].info_sz == 0 && l[D2B_KIND_LOC_PROTO].elem_sz == 4);
	CHECK(l[D2B_KIND_LOCSEC].info_sz == 0 && l[D2B_KIND_LOCSEC].elem_sz == 12);
	d2b_btf__free(plain);
	d2b_btf__free(btf);
}

/* What bpftool (the bpf tree's) prints for mk_loc_btf(): its selftest's
 * expected text, word for word */
static const char loc_dump[] =
	"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n"
	"[2] FUNC_PROTO '(anon)' ret_type_id=1 vlen=5\n"
	"\t'arg1' type_id=1\n"
	"\t'arg2' type_id=1\n"
	"\t'arg3' type_id=1\n"
	"\t'arg4' type_id=1\n"
	"\t'arg5' type_id=1\n"
	"[3] FUNC 'foo' type_id=2 linkage=static\n"
	"[4] LOC_PARAM '(anon)' size=4 flags=0x8 vlen=1 values='reg1'\n"
	"[5] LOC_PARAM '(anon)' size=8 flags=0x38 vlen=2 values='*(reg2 + 0x10)'\n"
	"[6] LOC_PARAM '(anon)' size=8 flags=0x29 vlen=2 values='fbreg - 0x10'\n"
	"[7] LOC_PARAM '(anon)' size=8 flags=0x6 vlen=2 values='0x123456789abcdef0 (addr)'\n"
	"[8] LOC_PARAM '(anon)' size=8 flags=0x2 vlen=2 values='0xdeadbeeffeedface'\n"
	"[9] LOC_PARAM '(anon)' size=8 flags=0x39 vlen=2 values='*(fbreg - 0x20)'\n"
	"[10] LOC_PROTO '(anon)' vlen=6\n"
	"\ttype_id=4 value='reg1'\n"
	"\ttype_id=5 value='*(reg2 + 0x10)'\n"
	"\ttype_id=6 value='fbreg - 0x10'\n"
	"\ttype_id=7 value='0x123456789abcdef0 (addr)'\n"
	"\ttype_id=8 value='0xdeadbeeffeedface'\n"
	"\ttype_id=9 value='*(fbreg - 0x20)'\n"
	"[11] LOCSEC 'inline.text' vlen=1\n"
	"\tname='foo' func_type_id=3 loc_proto_type_id=10 offset=64\n";

static char *dump_of(const struct d2b_btf *btf)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (d2b_btf__dump(btf, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Built, written, read back and dumped: bpftool's text */
static void test_dump(void)
{
	struct d2b_btf *btf = mk_loc_btf(), *back;
	char *text;

	REQUIRE(btf);
	back = roundtrip(btf, NULL);
	REQUIRE(back);
	text = dump_of(back);
	CHECK_STR(text, loc_dump);
	free(text);
	/* the selftest only dumps it: the bpf tree's kernel would refuse its
	 * LOC_PROTO of six parameters for a FUNC of five */
	CHECK_EQ(d2b_btf__verify(back, D2B_VERIFY_LOC_KINDS, NULL, NULL), 1);
	CHECK_EQ(d2b_btf__verify(back, 0, NULL, NULL), 8);
	d2b_btf__free(back);
	d2b_btf__free(btf);
}

/* The forms the selftest does not show */
static void test_values(void)
{
	static const struct {
		uint32_t size, flags, v[3];
		unsigned int n;
		const char *text;
	} cases[] = {
		{ 16, D2B_LOC_PARAM_REG, { 0, 1 }, 2, "reg0, reg1" },
		{ 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF, { 6 }, 1, "*(reg6)" },
		{ 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_OFFSET, { 7, 0xfffffff0 }, 2,
		  "reg7 + 0xfffffff0" },
		{ 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_OFFSET | D2B_LOC_PARAM_SIGNED, { 7, 16 }, 2,
		  "reg7 + 0x10" },
		{ 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_OFFSET | D2B_LOC_PARAM_SIGNED,
		  { D2B_LOC_PARAM_FBREG, 0xfffffff8, 0xffffffff }, 3, "fbreg - 0x8" },
		{ 4, D2B_LOC_PARAM_CONST, { 42 }, 1, "0x2a" },
		{ 4, D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_SIGNED, { 0xfffffffe }, 1, "-0x2" },
		{ 2, D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_SIGNED, { 0xfffe }, 1, "-0x2" },
		{ 8, D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_SIGNED, { 5, 0 }, 2, "0x5" },
		{ 4, D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_ADDR, { 0x1000 }, 1, "0x1000 (addr)" },
		{ 4, 0x40, { 1, 2 }, 2, "? 0x1 0x2" },	/* what the kernel refuses */
	};
	struct d2b_btf *btf = d2b_btf__new(NULL);
	char text[96];
	size_t i;
	int id;

	REQUIRE(btf);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		id = d2b_btf__add_loc_param(btf, cases[i].size, cases[i].flags & 0x3f, cases[i].v,
					    cases[i].n);
		REQUIRE(id > 0);
		btf_type_mut(btf, (uint32_t)id)[1].name_off = cases[i].flags;	/* the flags word */
		btf_loc_param_format(d2b_btf__type(btf, (uint32_t)id), text, sizeof(text));
		CHECK_STR(text, cases[i].text);
	}
	d2b_btf__free(btf);
}

/* Two BTFs with foo inlined at two sites, written in either order; the
 * second site's offset and the first's register as given */
static struct d2b_btf *sites(bool swap, uint32_t off2, uint32_t reg)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	uint32_t v[1] = { reg }, w[1] = { 7 };
	int p1, p2, lp1, lp2;

	if (!btf)
		return NULL;
	d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	d2b_btf__add_func_proto(btf, 1);
	d2b_btf__add_param(btf, "a", 1);
	d2b_btf__add_func(btf, "foo", D2B_LINKAGE_STATIC, 2);
	lp1 = d2b_btf__add_loc_param(btf, 4, D2B_LOC_PARAM_REG, swap ? w : v, 1);
	lp2 = d2b_btf__add_loc_param(btf, 4, D2B_LOC_PARAM_REG, swap ? v : w, 1);
	p1 = d2b_btf__add_loc_proto(btf);
	d2b_btf__add_loc_proto_param(btf, (uint32_t)lp1);
	p2 = d2b_btf__add_loc_proto(btf);
	d2b_btf__add_loc_proto_param(btf, (uint32_t)lp2);
	d2b_btf__add_locsec(btf, "inline.text");
	if (swap) {
		d2b_btf__add_locsec_loc(btf, 3, (uint32_t)p1, off2);
		d2b_btf__add_locsec_loc(btf, 3, (uint32_t)p2, 16);
	} else {
		d2b_btf__add_locsec_loc(btf, 3, (uint32_t)p1, 16);
		d2b_btf__add_locsec_loc(btf, 3, (uint32_t)p2, off2);
	}
	return btf;
}

static char diff_text[256];

static int note_diff(const struct d2b_compare_diff *d, void *arg)
{
	(void)arg;
	if (!diff_text[0])
		d2b_compare_diff__format(d, diff_text, sizeof(diff_text));
	return 0;
}

/* By meaning: a LOCSEC by its name, its sites by FUNC name and offset with
 * what their LOC_PROTO says, in any order */
static void test_compare(void)
{
	struct d2b_btf *a = sites(false, 32, 5), *b = sites(true, 32, 5);
	struct d2b_btf *moved = sites(true, 48, 5), *reg = sites(true, 32, 6);
	struct d2b_compare_summary sum;

	REQUIRE(a && b && moved && reg);
	CHECK_EQ(d2b_btf__compare(a, b, NULL, NULL, NULL, &sum), 0);
	CHECK_EQ(sum.kind[0].nr_a, 5);	/* the inline sites' kinds, in [0] */
	CHECK_EQ(sum.kind[0].same, 1);	/* the LOCSEC */
	diff_text[0] = '\0';
	CHECK(d2b_btf__compare(a, moved, NULL, note_diff, NULL, NULL) > 0);
	CHECK(strstr(diff_text, "LOCSEC inline.text differs: site 'foo+0x20' only in A") != NULL);
	diff_text[0] = '\0';
	CHECK(d2b_btf__compare(a, reg, NULL, note_diff, NULL, NULL) > 0);
	CHECK(strstr(diff_text, "site 'foo+0x10': its parameters' locations differ") != NULL);
	d2b_btf__free(a);
	d2b_btf__free(b);
	d2b_btf__free(moved);
	d2b_btf__free(reg);
}

int main(void)
{
	RUN(test_build);
	RUN(test_fields);
	RUN(test_roundtrip);
	RUN(test_split);
	RUN(test_distill);
	RUN(test_vlen24);
	RUN(test_layout);
	RUN(test_dump);
	RUN(test_values);
	RUN(test_compare);
	return test_done();
}
