// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * d2b_btf__compare: equal meanings under different IDs compare equal, and
 * each kind of difference is reported with the right words.
 */
#include <errno.h>

#include "btf/btf.h"
#include "test.h"

enum { MAX_LINES = 64 };

/* Every difference, formatted, in the order reported. */
struct collect {
	int n;
	char line[MAX_LINES][512];
	struct d2b_compare_diff last;
	int stop_after;		/* > 0: return -ECANCELED at this call */
};

static int collect_fn(const struct d2b_compare_diff *d, void *arg)
{
	struct collect *c = arg;

	if (c->n < MAX_LINES)
		d2b_compare_diff__format(d, c->line[c->n], sizeof(c->line[0]));
	c->last = *d;
	c->n++;
	if (c->stop_after && c->n >= c->stop_after)
		return -ECANCELED;
	return 0;
}

static bool has_line(const struct collect *c, const char *want)
{
	int i;

	for (i = 0; i < c->n && i < MAX_LINES; i++)
		if (!strcmp(c->line[i], want))
			return true;
	printf("#   no line \"%s\" among %d:\n", want, c->n);
	for (i = 0; i < c->n && i < MAX_LINES; i++)
		printf("#     %s\n", c->line[i]);
	return false;
}

static int compare(const struct d2b_btf *a, const struct d2b_btf *b,
		   const struct d2b_compare_opts *o, struct collect *c, struct d2b_compare_summary *s)
{
	memset(c, 0, sizeof(*c));
	return d2b_btf__compare(a, b, o, collect_fn, c, s);
}

/*
 * A small graph: struct list { struct list *next; int v; long w : 3; };
 * typedef struct list list_t; enum e { A = 1, B = -2 }; func f(list_t *p, int n);
 * rev builds the same types in another order (so other IDs).
 */
struct graph_opts {
	bool rev;
	const char *w_type;	/* "long" */
	uint32_t v_off;		/* 64 */
	uint32_t w_bits;	/* 3 */
	int64_t b_val;		/* -2 */
	const char *param0;	/* "p" */
	bool n_long;		/* param n is long */
	bool no_func;
	bool extra_typedef;
};

static struct d2b_btf *graph(const struct graph_opts *g)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i_int, i_long, s, p, td, proto, pt, e;

	if (!btf)
		return NULL;
	if (g->rev) {
		e = d2b_btf__add_enum(btf, "e", 4, true);
		d2b_btf__add_enum_value(btf, "A", 1);
		d2b_btf__add_enum_value(btf, "B", g->b_val);
		(void)e;
		i_long = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
		s = btf_reserve(btf);
		p = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, s);
		i_int = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	} else {
		i_int = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
		s = btf_reserve(btf);
		p = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, s);
		i_long = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	}
	btf_define(btf, s);
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "list", 16);
	d2b_btf__add_member(btf, "next", p, 0, 0);
	d2b_btf__add_member(btf, "v", i_int, g->v_off, 0);
	d2b_btf__add_member(btf, "w", !strcmp(g->w_type, "long") ? i_long : i_int, 96, g->w_bits);
	td = d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, "list_t", s);
	if (!g->rev) {
		e = d2b_btf__add_enum(btf, "e", 4, true);
		d2b_btf__add_enum_value(btf, "A", 1);
		d2b_btf__add_enum_value(btf, "B", g->b_val);
	}
	pt = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, td);
	proto = d2b_btf__add_func_proto(btf, i_int);
	d2b_btf__add_param(btf, g->param0, pt);
	d2b_btf__add_param(btf, "n", g->n_long ? i_long : i_int);
	if (!g->no_func)
		d2b_btf__add_func(btf, "f", D2B_LINKAGE_GLOBAL, proto);
	if (g->extra_typedef)
		d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, "extra_t", i_int);
	return btf;
}

static const struct graph_opts base_graph = {
	.w_type = "long", .v_off = 64, .w_bits = 3, .b_val = -2, .param0 = "p",
};

static void check_one_change(const struct graph_opts *ga, const struct graph_opts *gb,
			     const char *want)
{
	struct d2b_btf *a = graph(ga), *b = graph(gb);
	struct collect c;
	int r;

	REQUIRE(a && b);
	r = compare(a, b, NULL, &c, NULL);
	CHECK(r >= 1);
	CHECK_EQ(r, c.n);
	CHECK(has_line(&c, want));
	d2b_btf__free(a);
	d2b_btf__free(b);
}

static void test_equal_different_ids(void)
{
	struct graph_opts gr = base_graph;
	struct d2b_btf *a = graph(&base_graph), *b;
	struct d2b_compare_summary s;
	struct collect c;

	gr.rev = true;
	b = graph(&gr);
	REQUIRE(a && b);
	/* the builds really differ in numbering */
	CHECK_STR(d2b_btf__name(a, 1), "int");
	CHECK_STR(d2b_btf__name(b, 1), "e");
	CHECK_EQ(compare(a, b, NULL, &c, &s), 0);
	CHECK_EQ(c.n, 0);
	CHECK_EQ(s.nr_diffs, 0);
	CHECK_EQ(s.kind[D2B_KIND_STRUCT].same, 1);
	CHECK_EQ(s.kind[D2B_KIND_INT].same, 2);
	CHECK_EQ(s.kind[D2B_KIND_PTR].nr_a, 2);
	CHECK_EQ(s.kind[D2B_KIND_PTR].anon_b, 2);
	CHECK_EQ(s.kind[D2B_KIND_FUNC].same, 1);
	CHECK_EQ(compare(a, a, NULL, &c, NULL), 0);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

static void test_member_type(void)
{
	struct graph_opts g = base_graph;

	g.w_type = "int";
	check_one_change(&base_graph, &g, "STRUCT list differs: member 'w' type 'long' vs 'int'");
}

static void test_member_offset(void)
{
	struct graph_opts g = base_graph;

	g.v_off = 32;
	check_one_change(&base_graph, &g, "STRUCT list differs: member 'v' offset 64 vs 32 (bits)");
}

static void test_bitfield_size(void)
{
	struct graph_opts g = base_graph;

	g.w_bits = 5;
	check_one_change(&base_graph, &g, "STRUCT list differs: member 'w' bitfield size 3 vs 5");
}

static void test_enum_value(void)
{
	struct graph_opts g = base_graph;

	g.b_val = 7;
	check_one_change(&base_graph, &g, "ENUM e differs: value 'B' -2 vs 7");
}

static void test_func_param(void)
{
	struct graph_opts g = base_graph;

	g.param0 = "q";
	check_one_change(&base_graph, &g, "FUNC f differs: param #0 name 'p' vs 'q'");
	g = base_graph;
	g.n_long = true;
	check_one_change(&base_graph, &g, "FUNC f differs: param #1 'n' type 'int' vs 'long'");
}

static void test_missing_extra(void)
{
	struct graph_opts g = base_graph;
	struct d2b_btf *a, *b;
	struct d2b_compare_summary s;
	struct collect c;

	g.no_func = true;
	g.extra_typedef = true;
	a = graph(&base_graph);
	b = graph(&g);
	REQUIRE(a && b);
	CHECK(compare(a, b, NULL, &c, &s) >= 2);
	CHECK(has_line(&c, "FUNC f only in A"));
	CHECK(has_line(&c, "TYPEDEF extra_t only in B"));
	CHECK_EQ(s.kind[D2B_KIND_FUNC].only_a, 1);
	CHECK_EQ(s.kind[D2B_KIND_TYPEDEF].only_b, 1);
	CHECK_EQ(s.kind[D2B_KIND_TYPEDEF].same, 1);
	/* the prototype, now unreferenced, is still an anonymous type on both sides */
	CHECK_EQ(s.kind[D2B_KIND_FUNC_PROTO].anon_extra_a, 0);

	/* FUNC presence is policy: counted, not called back */
	{
		struct d2b_compare_opts o = { .quiet_presence = 1u << D2B_KIND_FUNC };

		CHECK(compare(a, b, &o, &c, &s) >= 2);
		CHECK_EQ(c.n, 1);
		CHECK(has_line(&c, "TYPEDEF extra_t only in B"));
		CHECK_EQ(s.kind[D2B_KIND_FUNC].only_a, 1);
	}
	/* a kinds mask restricts the comparison */
	{
		struct d2b_compare_opts o = { .kinds = 1u << D2B_KIND_STRUCT | 1u << D2B_KIND_INT };

		CHECK_EQ(compare(a, b, &o, &c, &s), 0);
		CHECK_EQ(s.kind[D2B_KIND_STRUCT].same, 1);
		CHECK_EQ(s.kind[D2B_KIND_FUNC].only_a, 0);
		CHECK_EQ(s.kind[D2B_KIND_FUNC].nr_a, 1);	/* still counted */
	}
	d2b_btf__free(a);
	d2b_btf__free(b);
}

static struct d2b_btf *one_func(enum d2b_linkage linkage)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i;

	if (!btf)
		return NULL;
	i = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	d2b_btf__add_func(btf, "f", linkage, d2b_btf__add_func_proto(btf, i));
	d2b_btf__add_var(btf, "v", linkage, i);
	return btf;
}

static void test_linkage(void)
{
	struct d2b_btf *a = one_func(D2B_LINKAGE_GLOBAL), *b = one_func(D2B_LINKAGE_STATIC);
	struct d2b_compare_opts o = { .ignore_linkage = true };
	struct collect c;

	REQUIRE(a && b);
	CHECK_EQ(compare(a, b, NULL, &c, NULL), 2);
	CHECK(has_line(&c, "FUNC f differs: linkage global vs static"));
	CHECK(has_line(&c, "VAR v differs: linkage global vs static"));
	CHECK_EQ(compare(a, b, &o, &c, NULL), 0);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

/* Two different `struct foo` in one graph: { int x; } and { long y; } (order per flag). */
static struct d2b_btf *variants(bool swap, bool only_first, bool third)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i, l;

	if (!btf)
		return NULL;
	i = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	l = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	if (!swap || only_first) {
		d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "foo", 4);
		d2b_btf__add_member(btf, "x", i, 0, 0);
	}
	if (!only_first) {
		d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "foo", 8);
		d2b_btf__add_member(btf, "y", l, 0, 0);
	}
	if (swap && !only_first) {
		d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "foo", 4);
		d2b_btf__add_member(btf, "x", i, 0, 0);
	}
	if (third) {
		d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "foo", 2);
		d2b_btf__add_member(btf, "z", i, 0, 0);
	}
	return btf;
}

static void test_same_name_variants(void)
{
	struct d2b_btf *a = variants(false, false, false), *b = variants(true, false, false);
	struct d2b_btf *one = variants(false, true, false), *three = variants(false, false, true);
	struct d2b_compare_summary s;
	struct collect c;

	REQUIRE(a && b && one && three);
	CHECK_EQ(compare(a, b, NULL, &c, &s), 0);
	CHECK_EQ(s.kind[D2B_KIND_STRUCT].same, 1);
	CHECK_EQ(compare(a, one, NULL, &c, &s), 1);
	CHECK(has_line(&c, "STRUCT foo: same-name variants differ (2 in A, 1 in B, 1 in common)"));
	CHECK_EQ(c.last.what, D2B_DIFF_VARIANTS);
	CHECK_EQ(c.last.count_a, 2);
	CHECK_EQ(c.last.count_b, 1);
	CHECK_EQ(s.kind[D2B_KIND_STRUCT].changed, 1);
	/* one unmatched variant on each side: explained field by field */
	d2b_btf__free(b);
	b = variants(false, false, false);
	REQUIRE(b);
	{
		struct d2b_btf *c3 = d2b_btf__new(NULL);
		int i, l;

		REQUIRE(c3);
		i = d2b_btf__add_int(c3, "int", 4, D2B_INT_SIGNED);
		l = d2b_btf__add_int(c3, "long", 8, D2B_INT_SIGNED);
		d2b_btf__add_composite(c3, D2B_KIND_STRUCT, "foo", 8);
		d2b_btf__add_member(c3, "y", l, 0, 0);
		d2b_btf__add_composite(c3, D2B_KIND_STRUCT, "foo", 4);
		d2b_btf__add_member(c3, "x2", i, 0, 0);
		CHECK(compare(a, c3, NULL, &c, NULL) >= 2);
		CHECK(has_line(&c, "STRUCT foo differs: member 'x' (int) only in A"));
		CHECK(has_line(&c, "STRUCT foo differs: member 'x2' (int) only in B"));
		d2b_btf__free(c3);
	}
	CHECK(compare(three, a, NULL, &c, NULL) == 1);
	CHECK(has_line(&c, "STRUCT foo: same-name variants differ (3 in A, 2 in B, 2 in common)"));
	d2b_btf__free(a);
	d2b_btf__free(b);
	d2b_btf__free(one);
	d2b_btf__free(three);
}

/* struct m { int a[5][6]; }: chained (ours) or flattened (pahole) */
static struct d2b_btf *matrix(bool flat)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i, idx, arr;

	if (!btf)
		return NULL;
	i = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	idx = d2b_btf__add_int(btf, "__ARRAY_SIZE_TYPE__", 4, 0);
	if (flat) {
		arr = d2b_btf__add_array(btf, i, idx, 30);
	} else {
		arr = d2b_btf__add_array(btf, i, idx, 6);
		arr = d2b_btf__add_array(btf, arr, idx, 5);
	}
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "m", 120);
	d2b_btf__add_member(btf, "a", arr, 0, 0);
	return btf;
}

static void test_flatten_arrays(void)
{
	struct d2b_btf *a = matrix(false), *b = matrix(true);
	struct d2b_compare_opts o = { .flatten_arrays = true };
	struct d2b_compare_summary s;
	struct collect c;

	REQUIRE(a && b);
	CHECK(compare(a, b, NULL, &c, &s) >= 1);
	CHECK(has_line(&c, "STRUCT m differs: member 'a' type 'int[5][6]' vs 'int[30]'"));
	CHECK(has_line(&c, "ARRAY 'int[6]': 1 in A, 0 in B"));
	CHECK_EQ(compare(a, b, &o, &c, &s), 0);
	CHECK_EQ(s.kind[D2B_KIND_STRUCT].same, 1);
	CHECK_EQ(s.kind[D2B_KIND_ARRAY].nr_a, 2);
	CHECK_EQ(s.kind[D2B_KIND_ARRAY].nr_b, 1);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

/* struct s { struct foo *p; } where foo is a FWD or a STRUCT */
static struct d2b_btf *fwd_graph(bool def, bool two_ptrs)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int foo, p;

	if (!btf)
		return NULL;
	if (def) {
		foo = d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "foo", 0);
	} else {
		foo = d2b_btf__add_fwd(btf, "foo", false);
	}
	p = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, foo);
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "s", 8);
	d2b_btf__add_member(btf, "p", p, 0, 0);
	if (two_ptrs) {
		foo = d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "foo", 0);
		d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, foo);
	}
	return btf;
}

static void test_fwd_as_struct(void)
{
	struct d2b_btf *a = fwd_graph(false, false), *b = fwd_graph(true, false);
	struct d2b_btf *both = fwd_graph(false, true);
	struct d2b_compare_opts o = { .fwd_as_struct = true };
	struct d2b_compare_summary s;
	struct collect c;

	REQUIRE(a && b && both);
	CHECK(compare(a, b, NULL, &c, &s) >= 3);
	CHECK(has_line(&c, "STRUCT s differs: member 'p' type 'fwd struct foo *' vs 'struct foo *'"));
	CHECK(has_line(&c, "FWD foo only in A"));
	CHECK(has_line(&c, "STRUCT foo only in B"));
	CHECK(compare(a, b, &o, &c, &s) == 2);
	CHECK_EQ(s.kind[D2B_KIND_STRUCT].same, 1);
	CHECK_EQ(s.kind[D2B_KIND_PTR].anon_extra_a + s.kind[D2B_KIND_PTR].anon_extra_b, 0);
	/* a fwd and a def pointer merge into one form: counted twice ... */
	CHECK(compare(both, b, &o, &c, &s) >= 1);
	CHECK(has_line(&c, "PTR 'struct foo *': 2 in A, 1 in B"));
	CHECK_EQ(s.kind[D2B_KIND_PTR].anon_extra_a, 1);
	/* ... unless anonymous forms compare as sets */
	o.anon_sets = true;
	c.n = 0;
	CHECK(compare(both, b, &o, &c, &s) >= 1);
	CHECK_EQ(s.kind[D2B_KIND_PTR].anon_extra_a, 0);
	o.no_anon = true;
	CHECK_EQ(compare(both, both, &o, &c, &s), 0);
	CHECK_EQ(s.kind[D2B_KIND_PTR].anon_a, 2);
	d2b_btf__free(a);
	d2b_btf__free(b);
	d2b_btf__free(both);
}

/* struct o { union { int x; long y; } u; int (*cb)(int a); } */
static struct d2b_btf *nested(bool change_inner, bool change_cb)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i, l, u, proto, p;

	if (!btf)
		return NULL;
	i = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	l = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	u = d2b_btf__add_composite(btf, D2B_KIND_UNION, NULL, 8);
	d2b_btf__add_member(btf, "x", i, 0, 0);
	d2b_btf__add_member(btf, "y", change_inner ? i : l, 0, 0);
	proto = d2b_btf__add_func_proto(btf, i);
	d2b_btf__add_param(btf, "a", change_cb ? l : i);
	p = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, proto);
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "o", 16);
	d2b_btf__add_member(btf, "u", u, 0, 0);
	d2b_btf__add_member(btf, "cb", p, 64, 0);
	return btf;
}

static void test_nested_anonymous(void)
{
	struct d2b_btf *a = nested(false, false), *b = nested(true, false), *c2 = nested(false, true);
	struct collect c;

	REQUIRE(a && b && c2);
	CHECK(compare(a, b, NULL, &c, NULL) >= 1);
	CHECK(has_line(&c, "STRUCT o differs: member 'u': member 'y' type 'long' vs 'int'"));
	CHECK(has_line(&c, "UNION 'union {int x; long y;}': 1 in A, 0 in B"));
	CHECK(has_line(&c, "UNION 'union {int x; int y;}': 0 in A, 1 in B"));
	CHECK(compare(a, c2, NULL, &c, NULL) >= 1);
	CHECK(has_line(&c, "STRUCT o differs: member 'cb': param #0 'a' type 'int' vs 'long'"));
	CHECK(has_line(&c, "PTR 'int (*)(int a)': 1 in A, 0 in B"));
	d2b_btf__free(a);
	d2b_btf__free(b);
	d2b_btf__free(c2);
}

/*
 * A cycle of anonymous types (no C program makes one; a crafted file can):
 * PTR -> CONST -> PTR -> ..., n links, closed; struct h { <that> *p; }.
 */
static struct d2b_btf *anon_cycle(unsigned int n, bool rev)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int ids[8], i, first;

	if (!btf || n > 8)
		return btf;
	if (rev)
		d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	for (i = 0; i < (int)n; i++)
		ids[i] = btf_reserve(btf);
	for (i = 0; i < (int)n; i++) {
		btf_define(btf, ids[i]);
		d2b_btf__add_ref(btf, i % 2 ? D2B_KIND_CONST : D2B_KIND_PTR, NULL, ids[(i + 1) % n]);
	}
	first = ids[0];
	if (!rev)
		d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "h", 8);
	d2b_btf__add_member(btf, "p", first, 0, 0);
	return btf;
}

static void test_cycles(void)
{
	struct d2b_btf *a = anon_cycle(2, false), *b = anon_cycle(2, true), *c4 = anon_cycle(4, false);
	struct d2b_btf *l1 = graph(&base_graph);
	struct collect c;

	REQUIRE(a && b && c4 && l1);
	CHECK_EQ(compare(a, b, NULL, &c, NULL), 0);
	/* a longer cycle is another meaning */
	CHECK(compare(a, c4, NULL, &c, NULL) >= 1);
	CHECK(c.n >= 1 && !strncmp(c.line[0], "STRUCT h differs: member 'p' type", 33));
	/* named cycles (struct list *next) close by name */
	CHECK_EQ(compare(l1, l1, NULL, &c, NULL), 0);
	d2b_btf__free(a);
	d2b_btf__free(b);
	d2b_btf__free(c4);
	d2b_btf__free(l1);
}

/* struct h { struct { <self> *p; int|long v; } x; }: a cycle inside a difference */
static struct d2b_btf *anon_self(bool lng)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int i, l, x, p;

	if (!btf)
		return NULL;
	i = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	l = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	x = btf_reserve(btf);
	p = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, x);
	btf_define(btf, x);
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, NULL, 16);
	d2b_btf__add_member(btf, "p", p, 0, 0);
	d2b_btf__add_member(btf, "v", lng ? l : i, 64, 0);
	d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "h", 16);
	d2b_btf__add_member(btf, "x", x, 0, 0);
	return btf;
}

static void test_cycle_explained(void)
{
	struct d2b_btf *a = anon_self(false), *b = anon_self(true);
	struct collect c;

	REQUIRE(a && b);
	CHECK_EQ(compare(a, a, NULL, &c, NULL), 0);
	CHECK(compare(a, b, NULL, &c, NULL) >= 1);
	CHECK(has_line(&c, "STRUCT h differs: member 'x': member 'v' type 'int' vs 'long'"));
	CHECK(c.n < 40);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

static void test_deep_nesting(void)
{
	struct d2b_btf *a = d2b_btf__new(NULL);
	int i, first, t;

	REQUIRE(a);
	/* reserved top-down, so that hashing in ID order meets the chain's head first */
	first = btf_reserve(a);
	for (i = 1; i < 2000; i++)
		btf_reserve(a);
	for (i = 0; i < 2000; i++) {
		btf_define(a, first + i);
		d2b_btf__add_ref(a, D2B_KIND_PTR, NULL, i < 1999 ? first + i + 1 : 2001);
	}
	t = d2b_btf__add_int(a, "int", 4, D2B_INT_SIGNED);
	CHECK_EQ(t, 2001);
	d2b_btf__add_ref(a, D2B_KIND_TYPEDEF, "deep", first);
	/* no crash, no hang: a clear error */
	CHECK_EQ(d2b_btf__compare(a, a, NULL, NULL, NULL, NULL), -ELOOP);
	d2b_btf__free(a);
}

static void test_callback_stops(void)
{
	struct graph_opts g = base_graph;
	struct d2b_btf *a, *b;
	struct collect c;

	g.w_type = "int";
	g.v_off = 32;
	g.b_val = 3;
	a = graph(&base_graph);
	b = graph(&g);
	REQUIRE(a && b);
	memset(&c, 0, sizeof(c));
	c.stop_after = 1;
	CHECK_EQ(d2b_btf__compare(a, b, NULL, collect_fn, &c, NULL), -ECANCELED);
	CHECK_EQ(c.n, 1);
	/* no callback at all: just the count */
	CHECK(d2b_btf__compare(a, b, NULL, NULL, NULL, NULL) >= 3);
	CHECK_EQ(d2b_btf__compare(NULL, b, NULL, NULL, NULL, NULL), -EINVAL);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

/*
 * A stop is sticky: explaining a struct reports its size, then matches its
 * members by name (which once reset the stop) and reports them: after the
 * first stop, the callback is never called again.
 */
static void test_callback_stop_sticky(void)
{
	struct d2b_btf *a = d2b_btf__new(NULL), *b = d2b_btf__new(NULL);
	struct collect c;
	int ia, ib, lb;

	REQUIRE(a && b);
	ia = d2b_btf__add_int(a, "int", 4, D2B_INT_SIGNED);
	d2b_btf__add_int(a, "long", 8, D2B_INT_SIGNED);
	d2b_btf__add_composite(a, D2B_KIND_STRUCT, "s", 8);
	d2b_btf__add_member(a, "x", ia, 0, 0);
	d2b_btf__add_member(a, "y", ia, 32, 0);
	d2b_btf__add_composite(a, D2B_KIND_STRUCT, "t", 4);
	d2b_btf__add_member(a, "z", ia, 0, 0);
	ib = d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	lb = d2b_btf__add_int(b, "long", 8, D2B_INT_SIGNED);
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 16);
	d2b_btf__add_member(b, "x", ib, 0, 0);
	d2b_btf__add_member(b, "y", lb, 64, 0);
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "t", 8);
	d2b_btf__add_member(b, "z", lb, 0, 0);
	memset(&c, 0, sizeof(c));
	CHECK(d2b_btf__compare(a, b, NULL, collect_fn, &c, NULL) >= 4);
	CHECK(c.n >= 4);
	memset(&c, 0, sizeof(c));
	c.stop_after = 1;
	CHECK_EQ(d2b_btf__compare(a, b, NULL, collect_fn, &c, NULL), -ECANCELED);
	CHECK_EQ(c.n, 1);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

/* Split BTF: only own types compare; references into the base go by name. */
static void test_split(void)
{
	struct d2b_btf *base1 = d2b_btf__new(NULL), *base2 = d2b_btf__new(NULL);
	struct d2b_btf *s1, *s2;
	struct d2b_compare_summary s;
	struct collect c;
	int i1, i2;

	REQUIRE(base1 && base2);
	i1 = d2b_btf__add_int(base1, "int", 4, D2B_INT_SIGNED);
	d2b_btf__add_int(base2, "char", 1, D2B_INT_CHAR);
	i2 = d2b_btf__add_int(base2, "int", 4, D2B_INT_SIGNED);
	s1 = d2b_btf__new(base1);
	s2 = d2b_btf__new(base2);
	REQUIRE(s1 && s2);
	d2b_btf__add_composite(s1, D2B_KIND_STRUCT, "mod", 4);
	d2b_btf__add_member(s1, "i", i1, 0, 0);
	d2b_btf__add_composite(s2, D2B_KIND_STRUCT, "mod", 4);
	d2b_btf__add_member(s2, "i", i2, 0, 0);
	CHECK_EQ(compare(s1, s2, NULL, &c, &s), 0);
	CHECK_EQ(s.kind[D2B_KIND_INT].nr_a, 0);
	CHECK_EQ(s.kind[D2B_KIND_STRUCT].same, 1);
	d2b_btf__free(s1);
	d2b_btf__free(s2);
	d2b_btf__free(base1);
	d2b_btf__free(base2);
}

static void test_int_and_enum64(void)
{
	struct d2b_btf *a = d2b_btf__new(NULL), *b = d2b_btf__new(NULL);
	struct collect c;

	REQUIRE(a && b);
	d2b_btf__add_int(a, "char", 1, D2B_INT_SIGNED);
	d2b_btf__add_int(b, "char", 1, 0);
	d2b_btf__add_enum(a, "big", 4, false);
	d2b_btf__add_enum_value(a, "X", 1);
	d2b_btf__add_enum64(b, "big", 8, false);
	d2b_btf__add_enum_value(b, "X", 1);
	CHECK_EQ(compare(a, b, NULL, &c, NULL), 3);
	CHECK(has_line(&c, "INT char differs: encoding signed vs none"));
	CHECK(has_line(&c, "ENUM big differs: kind ENUM vs ENUM64"));
	CHECK(has_line(&c, "ENUM big differs: size 4 vs 8"));
	d2b_btf__free(a);
	d2b_btf__free(b);
}

static void test_format(void)
{
	struct d2b_compare_diff d = {
		.what = D2B_DIFF_ONLY_B, .kind = D2B_KIND_VAR, .name = "jiffies", .detail = "",
	};
	char buf[128];

	d2b_compare_diff__format(&d, buf, sizeof(buf));
	CHECK_STR(buf, "VAR jiffies only in B");
	d.what = D2B_DIFF_ANON;
	d.kind = D2B_KIND_CONST;
	d.name = "";
	d.detail = "const char";
	d.count_a = 2;
	d.count_b = 1;
	d2b_compare_diff__format(&d, buf, sizeof(buf));
	CHECK_STR(buf, "CONST 'const char': 2 in A, 1 in B");
	/* truncation is safe */
	CHECK(d2b_compare_diff__format(&d, buf, 4) > 4);
	CHECK_STR(buf, "CON");
}

int main(void)
{
	RUN(test_equal_different_ids);
	RUN(test_member_type);
	RUN(test_member_offset);
	RUN(test_bitfield_size);
	RUN(test_enum_value);
	RUN(test_func_param);
	RUN(test_missing_extra);
	RUN(test_linkage);
	RUN(test_same_name_variants);
	RUN(test_flatten_arrays);
	RUN(test_fwd_as_struct);
	RUN(test_nested_anonymous);
	RUN(test_cycles);
	RUN(test_cycle_explained);
	RUN(test_deep_nesting);
	RUN(test_callback_stops);
	RUN(test_callback_stop_sticky);
	RUN(test_split);
	RUN(test_int_and_enum64);
	RUN(test_format);
	return test_done();
}
