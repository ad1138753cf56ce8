// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * loc_sites.c: inline sites as a unit records them (struct unit's
 * site_fns, sites, locs) in, the LOC kinds out.  One unit of four
 * functions inlined at sites of three sections, over an output that
 * already has a FUNC for one of them; then what each location becomes
 * (table-driven: a unit_loc in, a LOC_PARAM's flags and values out, or
 * none), the dedup of LOC_PARAMs and LOC_PROTOs, the LOCSECs' names,
 * order and offsets, the FUNCs reused or added, the pruning's kept
 * prototypes, and d2b_btf__split_inline().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "btf/btf.h"
#include "kernel/loc_sites.h"
#include "test.h"

enum { S_NONE, S_TEXT, S_INIT, S_DATA, NR_SECS };

static const struct d2b_opts quiet = { .sz = D2B_OPTS_SZ };

static const struct loc_section secs[NR_SECS] = {
	[S_NONE] = { NULL, 0 },
	[S_TEXT] = { ".text", 0x1000 },
	[S_INIT] = { ".init.text", 0x9000 },
	[S_DATA] = { ".data", 0x20000 },
};

/* The output before the sites: int, long, a prototype of (int, long),
 * one of (long), and the FUNC 'outlined' of the first */
enum { T_INT = 1, T_LONG, T_PROTO2, T_PROTO1, T_OUTLINED, NR_OUT };

static struct d2b_btf *output(void)
{
	struct d2b_btf *b = d2b_btf__new(NULL);

	d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	d2b_btf__add_int(b, "long", 8, D2B_INT_SIGNED);
	d2b_btf__add_func_proto(b, T_INT);
	d2b_btf__add_param(b, "a", T_INT);
	d2b_btf__add_param(b, "b", T_LONG);
	d2b_btf__add_func_proto(b, T_LONG);
	d2b_btf__add_param(b, "p", T_LONG);
	d2b_btf__add_func(b, "outlined", D2B_LINKAGE_GLOBAL, T_PROTO2);
	return b;
}

/* a location of size bytes */
#define LOC(k, sz, ...) { .kind = (k), .size = (sz), __VA_ARGS__ }

struct loc_case {
	const char *name;
	struct unit_loc loc;
	bool at_entry, rel;
	uint32_t flags;		/* 0: no LOC_PARAM */
	unsigned int n;
	uint32_t v[2];
};

static const struct loc_case loc_cases[] = {
	{ "reg", LOC(DIE_VAL_REG, 8, .reg = 5), false, false, 0x8, 1, { 5 } },
	{ "pair", LOC(DIE_VAL_REG_PAIR, 16, .reg = 5, .reg2 = 4), false, false, 0x8, 2, { 5, 4 } },
	{ "deref", LOC(DIE_VAL_MEM, 4, .reg = 5, .value = 0), false, false, 0x18, 1, { 5 } },
	{ "deref+off", LOC(DIE_VAL_MEM, 4, .reg = 5, .value = 112), false, false, 0x38, 2,
	  { 5, 112 } },
	{ "deref-off", LOC(DIE_VAL_MEM, 8, .reg = 0xffffffff, .value = (uint64_t)-16), false, false,
	  0x39, 2, { 0xffffffff, (uint32_t)-16 } },
	{ "deref-far", LOC(DIE_VAL_MEM, 8, .reg = 7, .value = (uint64_t)1 << 40), false, false,
	  0, 0, { 0 } },
	{ "reg+off", LOC(DIE_VAL_REG_OFF, 8, .reg = 7, .value = 8), false, false, 0x28, 2, { 7, 8 } },
	{ "reg+0", LOC(DIE_VAL_REG_OFF, 8, .reg = 7, .value = 0), false, false, 0x8, 1, { 7 } },
	{ "const4", LOC(DIE_VAL_CONST, 4, .value = 7), false, false, 0x2, 1, { 7 } },
	{ "const4-neg", LOC(DIE_VAL_CONST, 4, .value = (uint64_t)-5, .is_signed = true), false, false,
	  0x3, 1, { (uint32_t)-5 } },
	{ "const8", LOC(DIE_VAL_CONST, 8, .value = 0xdeadbeeffeedfaceull), false, false, 0x2, 2,
	  { 0xfeedface, 0xdeadbeef } },
	{ "const8-neg", LOC(DIE_VAL_CONST, 8, .value = (uint64_t)-5, .is_signed = true), false,
	  false, 0x3, 2, { (uint32_t)-5, 0xffffffff } },
	{ "const1-trunc", LOC(DIE_VAL_CONST, 1, .value = 0x1ff), false, false, 0x2, 1, { 0xff } },
	{ "const16", LOC(DIE_VAL_CONST, 16, .value = 1), false, false, 0, 0, { 0 } },
	{ "addr", LOC(DIE_VAL_ADDR, 8, .reg = S_DATA, .value = 0x10), false, false, 0x6, 2,
	  { 0x1f010, 0 } },
	{ "addr-rel-data", LOC(DIE_VAL_ADDR, 8, .reg = S_DATA, .value = 0x10), false, true,
	  0, 0, { 0 } },
	{ "addr-rel-text", LOC(DIE_VAL_ADDR, 8, .reg = S_TEXT, .value = 0x10), false, true, 0x6, 2,
	  { 0x10, 0 } },
	{ "entry-value", LOC(DIE_VAL_ENTRY_REG, 8, .reg = 5), false, false, 0, 0, { 0 } },
	{ "entry-value-at-entry", LOC(DIE_VAL_ENTRY_REG, 8, .reg = 5), true, false, 0x8, 1, { 5 } },
	{ "none", LOC(DIE_VAL_NONE, 8), false, false, 0, 0, { 0 } },
	{ "no-size", LOC(DIE_VAL_REG, 0, .reg = 5), false, false, 0, 0, { 0 } },
	{ "too-big", LOC(DIE_VAL_MEM, 24, .reg = 7, .value = 8), false, false, 0, 0, { 0 } },
};

/* One site of one function of one parameter at l: the LOC_PARAM made. */
static void test_locations(void)
{
	size_t i;

	for (i = 0; i < sizeof(loc_cases) / sizeof(loc_cases[0]); i++) {
		const struct loc_case *c = &loc_cases[i];
		struct d2b_btf *b = output();
		struct loc_sites *ls = loc_sites__new();
		struct unit_site_fn fn = { .name_off = 0, .proto = T_PROTO1, .nr_params = 1 };
		struct unit_site site = { .fn = 0, .locs_start = 0, .shndx = S_TEXT, .offset = 4,
					  .at_fn_entry = c->at_entry };
		struct unit_loc loc = c->loc;
		struct unit u = { .site_fns = &fn, .nr_site_fns = 1, .sites = &site, .nr_sites = 1,
				  .locs = &loc, .nr_locs = 1 };
		struct loc_sites_opts o = { .secs = secs, .nr_secs = NR_SECS, .rel = c->rel };
		uint32_t map[NR_OUT], id, param = 0;
		struct diag diag;
		const char *strs = "deref";

		for (id = 0; id < NR_OUT; id++)
			map[id] = id;
		diag__init(&diag, &quiet, "t");
		REQUIRE(ls && loc_sites__add_unit(ls, &u, map, strs) == 0);
		REQUIRE(loc_sites__emit(ls, b, &o, &diag) == 0);
		for (id = NR_OUT; id < d2b_btf__end_id(b); id++) {
			const struct d2b_type *t = d2b_btf__type(b, id);

			if (d2b_kind(t) == D2B_KIND_LOC_PROTO)
				param = d2b_loc_proto_params(t)[0];
		}
		if (!c->flags) {
			if (param)
				printf("#   %s: a LOC_PARAM where none is wanted\n", c->name);
			CHECK_EQ(param, 0);
		} else if (!param) {
			printf("#   %s: no LOC_PARAM\n", c->name);
			CHECK(param);
		} else {
			const struct d2b_type *t = d2b_btf__type(b, param);
			const uint32_t *v = d2b_loc_param_values(t);

			if (d2b_loc_param_flags(t) != c->flags || d2b_vlen(t) != c->n ||
			    v[0] != c->v[0] || (c->n > 1 && v[1] != c->v[1]) ||
			    t->size != c->loc.size) {
				printf("#   %s: flags 0x%x vlen %u values 0x%x 0x%x size %u\n", c->name,
				       d2b_loc_param_flags(t), d2b_vlen(t), v[0], d2b_vlen(t) > 1 ? v[1] : 0,
				       t->size);
				CHECK(0);
			}
		}
		CHECK_EQ(d2b_btf__verify(b, D2B_VERIFY_LOC_KINDS, NULL, NULL), 0);
		diag__release(&diag);
		loc_sites__free(ls);
		d2b_btf__free(b);
	}
}

/*
 * Two units: 'outlined' (T_PROTO2, which the output has a FUNC of) at
 * .text 0x40 and 0x10 and .init.text 0x8, 'helper' (T_PROTO1) at .text
 * 0x20 in both units (one FUNC), a site in no named section (left out),
 * one whose prototype is gone (left out).
 */
static void test_sites(void)
{
	struct d2b_btf *b = output(), *main_btf = NULL, *inl = NULL;
	struct loc_sites *ls = loc_sites__new();
	struct unit_site_fn fns[3] = {
		{ .name_off = 0, .proto = T_PROTO2, .nr_params = 2, .external = true },
		{ .name_off = 9, .proto = T_PROTO1, .nr_params = 1 },
		{ .name_off = 16, .proto = 99, .nr_params = 1 },	/* mapped to 0: gone */
	};
	struct unit_site sites[] = {
		{ .fn = 0, .locs_start = 0, .shndx = S_TEXT, .offset = 0x40 },
		{ .fn = 0, .locs_start = 2, .shndx = S_TEXT, .offset = 0x10 },
		{ .fn = 0, .locs_start = 0, .shndx = S_INIT, .offset = 0x8 },
		{ .fn = 1, .locs_start = 4, .shndx = S_TEXT, .offset = 0x20 },
		{ .fn = 1, .locs_start = 4, .shndx = S_NONE, .offset = 0x20 },
		{ .fn = 2, .locs_start = 4, .shndx = S_TEXT, .offset = 0x30 },
	};
	struct unit_loc locs[] = {
		LOC(DIE_VAL_REG, 4, .reg = 5), LOC(DIE_VAL_REG, 8, .reg = 4),
		LOC(DIE_VAL_REG, 4, .reg = 5), LOC(DIE_VAL_NONE, 8),
		LOC(DIE_VAL_REG, 8, .reg = 4),
	};
	struct unit u = { .site_fns = fns, .nr_site_fns = 3, .sites = sites, .nr_sites = 6,
			  .locs = locs, .nr_locs = 5 };
	struct unit_site_fn fn2 = { .name_off = 9, .proto = T_PROTO1, .nr_params = 1 };
	struct unit_site site2 = { .fn = 0, .locs_start = 0, .shndx = S_TEXT, .offset = 0x28 };
	struct unit_loc loc2 = LOC(DIE_VAL_REG, 8, .reg = 4);
	struct unit u2 = { .site_fns = &fn2, .nr_site_fns = 1, .sites = &site2, .nr_sites = 1,
			   .locs = &loc2, .nr_locs = 1 };
	struct loc_sites_opts o = { .secs = secs, .nr_secs = NR_SECS };
	const char strs[] = "outlined\0helper\0gone";
	uint32_t map[100] = { 0 }, id, nparam = 0, nproto = 0, first_loc = 0, helper = 0;
	uint8_t drop[NR_OUT] = { 0 };
	struct loc_sites_stats st;
	struct diag diag;
	const struct d2b_loc *l;
	const struct d2b_type *t;

	for (id = 0; id < NR_OUT; id++)
		map[id] = id;
	diag__init(&diag, &quiet, "t");
	REQUIRE(ls && loc_sites__add_unit(ls, &u, map, strs) == 0);
	REQUIRE(loc_sites__add_unit(ls, &u2, map, strs) == 0);
	/* the pruning keeps the sites' prototypes, not another */
	loc_sites__keep_protos(ls, drop, 1, NR_OUT, 2);
	CHECK(drop[T_PROTO2 - 1] == 2 && drop[T_PROTO1 - 1] == 2 && drop[T_INT - 1] == 0);
	REQUIRE(loc_sites__emit(ls, b, &o, &diag) == 0);
	CHECK_EQ(d2b_btf__verify(b, D2B_VERIFY_LOC_KINDS, NULL, NULL), 0);
	for (id = NR_OUT; id < d2b_btf__end_id(b); id++) {
		t = d2b_btf__type(b, id);
		first_loc = first_loc ? first_loc : id;
		nparam += d2b_kind(t) == D2B_KIND_LOC_PARAM;
		nproto += d2b_kind(t) == D2B_KIND_LOC_PROTO;
		if (d2b_kind(t) == D2B_KIND_FUNC) {
			CHECK_STR(d2b_btf__name(b, id), "helper");
			CHECK_EQ(t->type, T_PROTO1);
			CHECK_EQ(d2b_vlen(t), D2B_LINKAGE_STATIC);
			helper = id;
		}
	}
	/* reg5 (4 bytes), reg4 (8 bytes): [reg5, reg4], [reg5, 0], [reg4] */
	CHECK_EQ(nparam, 2);
	CHECK_EQ(nproto, 3);
	CHECK(helper);
	CHECK_EQ(d2b_kind(d2b_btf__type(b, first_loc)), D2B_KIND_LOC_PARAM);
	/* .text: outlined (T_OUTLINED) at 0x10, 0x40, then helper at 0x20, 0x28 */
	t = d2b_btf__type(b, d2b_btf__end_id(b) - 2);
	REQUIRE(d2b_kind(t) == D2B_KIND_LOCSEC);
	CHECK_STR(d2b_btf__name(b, d2b_btf__end_id(b) - 2), ".text");
	CHECK_EQ(d2b_vlen(t), 4);
	l = (const struct d2b_loc *)(t + 1);
	CHECK(l[0].func == T_OUTLINED && l[0].offset == 0x10);
	CHECK(l[1].func == T_OUTLINED && l[1].offset == 0x40);
	CHECK(l[2].func == helper && l[2].offset == 0x20);
	CHECK(l[3].func == helper && l[3].offset == 0x28);
	CHECK(l[0].loc_proto != l[1].loc_proto && l[2].loc_proto == l[3].loc_proto);
	t = d2b_btf__type(b, d2b_btf__end_id(b) - 1);
	CHECK_STR(d2b_btf__name(b, d2b_btf__end_id(b) - 1), ".init.text");
	CHECK(d2b_vlen(t) == 1 && ((const struct d2b_loc *)(t + 1))->loc_proto == l[1].loc_proto);
	loc_sites__stats(ls, &st);
	CHECK_EQ(st.sites, 5);
	CHECK_EQ(st.funcs, 2);
	CHECK_EQ(st.complete, 4);
	CHECK_EQ(st.sections, 2);
	CHECK_EQ(st.funcs_added, 1);

	/* the inline part: from the first LOC_PARAM on, over the rest */
	REQUIRE(d2b_btf__split_inline(b, &main_btf, &inl) == 0);
	CHECK_EQ(d2b_btf__end_id(main_btf), first_loc);
	CHECK_EQ(d2b_btf__start_id(inl), first_loc);
	CHECK_EQ(d2b_btf__end_id(inl), d2b_btf__end_id(b));
	CHECK_STR(d2b_btf__name(inl, helper), "helper");
	CHECK_STR(d2b_btf__name(inl, T_OUTLINED), "outlined");
	d2b_btf__free(inl);
	d2b_btf__free(main_btf);
	diag__release(&diag);
	loc_sites__free(ls);
	d2b_btf__free(b);
}

/* A BTF without sites splits into itself and an empty part; one whose
 * types before the sites refer into them is refused. */
static void test_split_edges(void)
{
	struct d2b_btf *b = output(), *m = NULL, *i = NULL;

	REQUIRE(d2b_btf__split_inline(b, &m, &i) == 0);
	CHECK_EQ(d2b_btf__end_id(m), NR_OUT);
	CHECK_EQ(d2b_btf__nr_types(i), 0);
	d2b_btf__free(m);
	d2b_btf__free(i);
	d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, NR_OUT + 1);	/* -> the LOC_PARAM below */
	d2b_btf__add_loc_param(b, 8, D2B_LOC_PARAM_REG, (const uint32_t[]){ 5 }, 1);
	CHECK_EQ(d2b_btf__split_inline(b, &m, &i), -EINVAL);
	CHECK(!m && !i);
	d2b_btf__free(b);
}

int main(void)
{
	RUN(test_locations);
	RUN(test_sites);
	RUN(test_split_edges);
	return test_done();
}
