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

int main(void)
{
	RUN(test_build);
	RUN(test_fields);
	RUN(test_roundtrip);
	RUN(test_split);
	RUN(test_vlen24);
	RUN(test_layout);
	return test_done();
}
