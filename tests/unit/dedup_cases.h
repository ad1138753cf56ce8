/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The dedup cases, shared by test_dedup.c (each against its expected
 * output) and test_dedup_libbpf.c (ours has, per kind, no more types than
 * libbpf's btf__dedup of the same units concatenated).  A case's build()
 * fills unit k of nunits with the builder API.
 */
#ifndef D2B_DEDUP_CASES_H
#define D2B_DEDUP_CASES_H

#include <stdbool.h>
#include <stdint.h>

#include "btf/btf.h"

enum { MAX_UNITS = 8 };

/* ---- builder shorthand ---- */

static int build_err;

static uint32_t ok(int r)
{
	if (r < 0)
		build_err = r;
	return r < 0 ? 0 : (uint32_t)r;
}

#define INT(b, n)		ok(d2b_btf__add_int(b, n, 4, D2B_INT_SIGNED))
#define LONG(b)			ok(d2b_btf__add_int(b, "long", 8, D2B_INT_SIGNED))
#define PTR(b, t)		ok(d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, t))
#define CONST(b, t)		ok(d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, t))
#define TYPEDEF(b, n, t)	ok(d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, n, t))
#define STRUCT(b, n, sz)	ok(d2b_btf__add_composite(b, D2B_KIND_STRUCT, n, sz))
#define UNION(b, n, sz)		ok(d2b_btf__add_composite(b, D2B_KIND_UNION, n, sz))
#define MEMBER(b, n, t, off)	ok(d2b_btf__add_member(b, n, t, off, 0))
#define FWD(b, n)		ok(d2b_btf__add_fwd(b, n, false))
#define FWD_UNION(b, n)		ok(d2b_btf__add_fwd(b, n, true))
#define ARRAY(b, t, idx, n)	ok(d2b_btf__add_array(b, t, idx, n))
#define ENUM(b, n)		ok(d2b_btf__add_enum(b, n, 4, false))
#define VALUE(b, n, v)		ok(d2b_btf__add_enum_value(b, n, v))
#define PROTO(b, r)		ok(d2b_btf__add_func_proto(b, r))
#define PARAM(b, n, t)		ok(d2b_btf__add_param(b, n, t))
#define FUNC(b, n, p)		ok(d2b_btf__add_func(b, n, D2B_LINKAGE_GLOBAL, p))

/* ---- the cases: build(unit, index) fills one unit ---- */

/* struct foo { int a; struct foo *next; }, in two type orders */
static void b_same_struct(struct d2b_btf *u, int k)
{
	if (k == 0) {
		INT(u, "int");			/* 1 */
		STRUCT(u, "foo", 16);		/* 2 */
		MEMBER(u, "a", 1, 0);
		MEMBER(u, "next", 3, 64);
		PTR(u, 2);			/* 3 */
	} else {
		PTR(u, 3);			/* 1 */
		INT(u, "int");			/* 2 */
		STRUCT(u, "foo", 16);		/* 3 */
		MEMBER(u, "a", 2, 0);
		MEMBER(u, "next", 1, 64);
	}
}

static void b_diff_layout(struct d2b_btf *u, int k)
{
	INT(u, "int");
	STRUCT(u, "foo", 4);
	MEMBER(u, k ? "b" : "a", 1, 0);
}

static void b_diff_member_type(struct d2b_btf *u, int k)
{
	ok(d2b_btf__add_int(u, k ? "unsigned int" : "int", 4, k ? 0 : D2B_INT_SIGNED));
	STRUCT(u, "foo", 4);
	MEMBER(u, "a", 1, 0);
}

/* unit 0: struct foo only declared; unit 1: defined (k=1) */
static void fwd_unit(struct d2b_btf *u, bool defined)
{
	INT(u, "int");				/* 1 */
	if (defined) {
		STRUCT(u, "foo", 4);		/* 2 */
		MEMBER(u, "x", 1, 0);
	} else {
		FWD(u, "foo");			/* 2 */
	}
	PTR(u, 2);				/* 3 */
	STRUCT(u, "bar", 8);			/* 4 */
	MEMBER(u, "f", 3, 0);
}

static void b_fwd_then_def(struct d2b_btf *u, int k)
{
	fwd_unit(u, k == 1);
}

static void b_def_then_fwd(struct d2b_btf *u, int k)
{
	fwd_unit(u, k == 0);
}

/* the FWD is only used by a function: resolved at finish */
static void b_leftover_fwd(struct d2b_btf *u, int k)
{
	if (k == 0) {
		INT(u, "int");			/* 1 */
		FWD(u, "foo");			/* 2 */
		PTR(u, 2);			/* 3 */
		PROTO(u, 1);			/* 4 */
		PARAM(u, "p", 3);
		FUNC(u, "use_foo", 4);		/* 5 */
	} else if (k == 1) {
		INT(u, "int");
		STRUCT(u, "foo", 4);
		MEMBER(u, "x", 1, 0);
	}
}

/* as above, plus a union foo (k=2) or a second struct foo (k=3) */
static void b_fwd_ambig_union(struct d2b_btf *u, int k)
{
	if (k < 2) {
		b_leftover_fwd(u, k);
		return;
	}
	INT(u, "int");
	UNION(u, "foo", 4);
	MEMBER(u, "y", 1, 0);
}

static void b_fwd_ambig_structs(struct d2b_btf *u, int k)
{
	if (k < 2) {
		b_leftover_fwd(u, k);
		return;
	}
	LONG(u);
	STRUCT(u, "foo", 8);
	MEMBER(u, "z", 1, 0);
}

/* FWD union foo never resolves to struct foo */
static void b_fwd_kind_mismatch(struct d2b_btf *u, int k)
{
	if (k == 0) {
		FWD_UNION(u, "foo");
		PTR(u, 1);
	} else {
		INT(u, "int");
		STRUCT(u, "foo", 4);
		MEMBER(u, "x", 1, 0);
	}
}

static void b_fwd_only(struct d2b_btf *u, int k)
{
	(void)k;
	FWD(u, "opaque");
	PTR(u, 1);
}

/* struct outer { struct { int a; } in; union { int x; long y; } u; enum { A, B } e; } */
static void b_anonymous(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), l = LONG(u), s, un, e = 0;

	if (k == 1) {
		e = ENUM(u, NULL);
		VALUE(u, "A", 0);
		VALUE(u, "B", 1);
	}
	s = STRUCT(u, NULL, 4);
	MEMBER(u, "a", i, 0);
	un = UNION(u, NULL, 8);
	MEMBER(u, "x", i, 0);
	MEMBER(u, "y", l, 0);
	if (k == 0) {
		e = ENUM(u, NULL);
		VALUE(u, "A", 0);
		VALUE(u, "B", 1);
	}
	STRUCT(u, "outer", 24);
	MEMBER(u, "in", s, 0);
	MEMBER(u, "u", un, 64);
	MEMBER(u, "e", e, 128);
}

/* one unit with copies of int[4], of a pointer and of a whole struct */
static void b_dup_in_unit(struct d2b_btf *u, int k)
{
	(void)k;
	INT(u, "int");				/* 1 */
	ARRAY(u, 1, 1, 4);			/* 2 */
	ARRAY(u, 1, 1, 4);			/* 3 */
	STRUCT(u, "s", 40);			/* 4 */
	MEMBER(u, "a", 2, 0);
	MEMBER(u, "b", 3, 128);
	MEMBER(u, "p", 5, 256);
	MEMBER(u, "q", 6, 320);
	PTR(u, 4);				/* 5 */
	PTR(u, 7);				/* 6 */
	STRUCT(u, "s", 40);			/* 7: a copy of 4 */
	MEMBER(u, "a", 3, 0);
	MEMBER(u, "b", 2, 128);
	MEMBER(u, "p", 6, 256);
	MEMBER(u, "q", 5, 320);
	STRUCT(u, "user", 16);			/* 8 */
	MEMBER(u, "x", 4, 0);
	MEMBER(u, "y", 7, 0);
}

/* struct a { struct b *b; }; struct b { struct a *a; struct b *self; } */
static void b_mutual(struct d2b_btf *u, int k)
{
	if (k == 0) {
		STRUCT(u, "a", 8);		/* 1 */
		MEMBER(u, "b", 3, 0);
		STRUCT(u, "b", 16);		/* 2 */
		MEMBER(u, "a", 4, 0);
		MEMBER(u, "self", 3, 64);
		PTR(u, 2);			/* 3 */
		PTR(u, 1);			/* 4 */
	} else {
		PTR(u, 4);			/* 1: b * */
		PTR(u, 3);			/* 2: a * */
		STRUCT(u, "a", 8);		/* 3 */
		MEMBER(u, "b", 1, 0);
		STRUCT(u, "b", 16);		/* 4 */
		MEMBER(u, "a", 2, 0);
		MEMBER(u, "self", 1, 64);
	}
}

/* struct s reachable only through a function pointer typedef */
static void b_func_ptr(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), s, p, fp;

	if (k == 1)
		LONG(u);
	s = STRUCT(u, "s", 4);
	MEMBER(u, "x", i, 0);
	p = PTR(u, s);
	fp = PROTO(u, i);
	PARAM(u, "arg", p);
	PARAM(u, NULL, 0);		/* ... */
	TYPEDEF(u, "handler_t", PTR(u, fp));
}

/* int m[2][3]; struct with a flexible array; zero-length array */
static void b_arrays(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), inner, outer, flex, zero;

	if (k == 1) {
		zero = ARRAY(u, i, i, 0);
		inner = ARRAY(u, i, i, 3);
		outer = ARRAY(u, inner, i, 2);
	} else {
		inner = ARRAY(u, i, i, 3);
		outer = ARRAY(u, inner, i, 2);
		zero = ARRAY(u, i, i, 0);
	}
	flex = zero;	/* C's [] and [0] are both nelems 0 */
	STRUCT(u, "arr", 28);
	MEMBER(u, "m", outer, 0);
	MEMBER(u, "flex", flex, 192);
	ARRAY(u, outer, i, 0);	/* int [][2][3] */
}

static void b_enum_fwd(struct d2b_btf *u, int k)
{
	uint32_t e;

	if (k == 0) {
		e = ENUM(u, "e");	/* forward: no values */
	} else {
		e = ENUM(u, "e");
		VALUE(u, "E_A", 1);
		VALUE(u, "E_B", -1);
	}
	PTR(u, e);
}

static void b_enum_fwd_rev(struct d2b_btf *u, int k)
{
	b_enum_fwd(u, !k);
}

static void b_enum64(struct d2b_btf *u, int k)
{
	ok(d2b_btf__add_enum64(u, "big", 8, false));
	VALUE(u, "BIG", k == 2 ? 7 : (int64_t)0x1234567890LL);
	VALUE(u, "SMALL", 1);
}

/* FUNC, FUNC_PROTO, DECL_TAG on a function and on a member, TYPE_TAG */
static void b_tags(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), tag, p, s, ps, proto, fn;

	tag = ok(d2b_btf__add_type_tag(u, "user", i));
	p = PTR(u, tag);
	s = STRUCT(u, "tagged", 8);
	MEMBER(u, "uptr", p, 0);
	ok(d2b_btf__add_decl_tag(u, "member_tag", s, 0));
	ps = PTR(u, s);
	proto = PROTO(u, i);
	PARAM(u, "t", ps);
	fn = FUNC(u, k == 2 ? "other" : "fn", proto);
	ok(d2b_btf__add_decl_tag(u, "fn_tag", fn, -1));
	if (k == 1)
		ok(d2b_btf__add_decl_tag(u, "fn_tag", fn, -1));	/* duplicate */
}

/* typedef struct foo foo_t; const foo_t *; twice */
static void b_typedef(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), s, td;

	(void)k;
	s = STRUCT(u, "foo", 4);
	MEMBER(u, "x", i, 0);
	td = TYPEDEF(u, "foo_t", s);
	PTR(u, CONST(u, td));
}

/* a pointer that points to itself through a typedef: malformed */
static void b_ref_cycle(struct d2b_btf *u, int k)
{
	(void)k;
	PTR(u, 2);
	TYPEDEF(u, "loop_t", 1);
	INT(u, "int");
}

/* bitfields */
static void b_bitfields(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int");

	(void)k;
	STRUCT(u, "bits", 4);
	ok(d2b_btf__add_member(u, "a", i, 0, 3));
	ok(d2b_btf__add_member(u, "b", i, 3, 5));
}

/*
 * Two layouts of struct foo, then a unit that only declares foo: its bar
 * is compatible with bar(foo v1) and takes it, and with it the FWD resolves
 * to foo v1 although the name is ambiguous (libbpf does the same): no FWD,
 * and the unit's second foo * is the first's.
 */
static void b_fwd_two_layouts(struct d2b_btf *u, int k)
{
	uint32_t i, f, p;

	if (k < 2) {
		i = k ? LONG(u) : INT(u, "int");
		f = STRUCT(u, "foo", k ? 8 : 4);
		MEMBER(u, "x", i, 0);
	} else {
		f = FWD(u, "foo");
	}
	p = PTR(u, f);
	STRUCT(u, "bar", 8);
	MEMBER(u, "f", p, 0);
	if (k == 2)
		PTR(u, f);
}

/*
 * Two definitions of T (units 0, 1); unit 2 has struct S { T v2 *t };
 * unit 3 the same S with T only declared, and a function taking a T *.
 * S's walk pairs the FWD with T v2, which it resolves to: not to T v1, the
 * first T met (its name is ambiguous, so only the walk can tell).  A group
 * of units 2 and 3 resolves T to v2 where the output has v1 too: the
 * groups disagree (they need not here, but the check does not look at
 * which types hold the FWD).
 */
static void b_fwd_walk_picks_paired(struct d2b_btf *u, int k)
{
	uint32_t i, t, p, proto;

	if (k == 0) {
		i = INT(u, "int");
		t = STRUCT(u, "T", 4);
		MEMBER(u, "x", i, 0);
		return;
	}
	i = LONG(u);
	if (k == 3) {
		t = FWD(u, "T");
	} else {
		t = STRUCT(u, "T", 8);
		MEMBER(u, "y", i, 0);
	}
	if (k == 1)
		return;
	p = PTR(u, t);
	STRUCT(u, "S", 8);
	MEMBER(u, "t", p, 0);
	if (k == 3) {
		p = PTR(u, t);
		proto = PROTO(u, i);
		PARAM(u, "t", p);
		FUNC(u, "use_t", proto);
	}
}

/*
 * The FWD first (unit 0: S { FWD T *t }), then S with T v1, which
 * resolves the FWD, then S with T v2: from then on the FWD stands for T v1
 * only, so S(T v2) must not merge with unit 0's S.
 */
static void b_fwd_resolved_then_strict(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	if (k == 0) {
		t = FWD(u, "T");
	} else {
		i = k == 1 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "T", k == 1 ? 4 : 8);
		MEMBER(u, k == 1 ? "x" : "y", i, 0);
	}
	p = PTR(u, t);
	STRUCT(u, "S", 8);
	MEMBER(u, "t", p, 0);
}

/*
 * S { T v2 * } first, then (after a unit of an int alone) S { FWD T * },
 * which takes it (the first compatible candidate, resolving the FWD to
 * T v2), then S { T v1 * }, which must stay apart from both.  Merged in
 * groups of two ({0, 1}, {2, 3}), unit 2's S takes unit 3's in their group
 * (resolving its FWD to T v1 there), and the group's S would take
 * S { T v2 * } where the groups meet, unit 3's with it: the merge of the
 * groups must see that their resolutions of T differ.
 */
static void b_fwd_resolved_in_a_group(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	if (k == 1) {
		INT(u, "int");
		return;
	}
	if (k == 2) {
		t = FWD(u, "T");
	} else {
		i = k == 3 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "T", k == 3 ? 4 : 8);
		MEMBER(u, k == 3 ? "x" : "y", i, 0);
	}
	p = PTR(u, t);
	STRUCT(u, "S", 8);
	MEMBER(u, "t", p, 0);
}

/*
 * H { A v1 * } (a unit of its own), an int, H { A v2 * }, and H { FWD A * }
 * in S3.  One by one, the last H takes the first candidate, H { A v1 * },
 * resolving A to v1 (no walk resolved A before).  In a group of the last
 * two, it takes the group's H { A v2 * }, and the group resolves A to v2,
 * which the output has not resolved: the output does have another
 * definition of A, which the group never saw, so the groups disagree.
 */
static void b_fwd_other_definition_before(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	if (k == 1) {
		INT(u, "int");
		return;
	}
	if (k == 3) {
		t = FWD(u, "A");
	} else {
		i = k == 0 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "A", k == 0 ? 4 : 8);
		MEMBER(u, k == 0 ? "x" : "y", i, 0);
	}
	p = PTR(u, t);
	i = STRUCT(u, "H", 8);
	MEMBER(u, "a", p, 0);
	if (k == 3) {
		STRUCT(u, "S3", 8);
		MEMBER(u, "h", i, 0);
	}
}

/*
 * S { FWD T * } and Q { FWD T * }, then Q { T v1 * }, whose walk resolves
 * T to v1, then S { T v2 * }, which stays apart (T stands for v1), then an
 * int.  In a group of the first three, merged into the output, the
 * group's S { FWD T * } must still stand for S { T v1 * }: were its FWD
 * free, S { T v2 * } would take it, resolving T to v2 against the group.
 */
static void b_fwd_group_resolution_kept(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	switch (k) {
	case 0:
		p = PTR(u, FWD(u, "T"));
		STRUCT(u, "S", 8);
		MEMBER(u, "t", p, 0);
		STRUCT(u, "Q", 8);
		MEMBER(u, "t", p, 0);
		return;
	case 3:
		INT(u, "int");
		return;
	default:
		i = k == 1 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "T", k == 1 ? 4 : 8);
		MEMBER(u, k == 1 ? "x" : "y", i, 0);
		p = PTR(u, t);
		STRUCT(u, k == 1 ? "Q" : "S", 8);
		MEMBER(u, "t", p, 0);
	}
}

/*
 * fwd_resolved_in_a_group over R and U, and besides: S { FWD T * } in unit
 * 0, S { T * } in unit 3.  Merged in groups of two, the merge of group
 * {2, 3} walks the output's S { FWD T * } against the group's S { T * }
 * (resolving T to the group's T, not yet appended) before it finds that
 * the groups disagree on U: the output must drop that resolution with the
 * rest, or unit 3, merged again alone, meets a FWD T that stands for a
 * type of another merge.
 */
static void b_fwd_group_dropped(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	if (k == 1) {
		INT(u, "int");
		return;
	}
	if (k == 2) {
		t = FWD(u, "U");
	} else {
		i = k == 3 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "U", k == 3 ? 4 : 8);
		MEMBER(u, k == 3 ? "x" : "y", i, 0);
	}
	p = PTR(u, t);
	STRUCT(u, "R", 8);
	MEMBER(u, "u", p, 0);
	if (k == 2)
		return;
	if (k == 0) {
		t = FWD(u, "T");
	} else {
		t = STRUCT(u, "T", 4);
		MEMBER(u, "z", i, 0);
	}
	p = PTR(u, t);
	STRUCT(u, "S", 8);
	MEMBER(u, "t", p, 0);
}

/*
 * P { FWD T * } alone, an int alone, S { FWD T * }, S { T v1 * }, and
 * T v2 alone (two definitions: no FWD T resolves by its name).  One by
 * one, unit 3's walk resolves the FWD (P's, which unit 2's is) to T v1.
 * In groups of two ({0, 1}, {2, 3}, {4}), that walk is the second
 * group's own, whose merge into the output walks nothing of P's: the
 * group's resolution must still reach P's FWD.
 */
static void b_fwd_resolved_in_a_group_for_others(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	switch (k) {
	case 0:
	case 2:
		p = PTR(u, FWD(u, "T"));
		STRUCT(u, k ? "S" : "P", 8);
		MEMBER(u, "t", p, 0);
		return;
	case 1:
		INT(u, "int");
		return;
	default:
		i = k == 3 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "T", k == 3 ? 4 : 8);
		MEMBER(u, k == 3 ? "x" : "y", i, 0);
		if (k == 3) {
			p = PTR(u, t);
			STRUCT(u, "S", 8);
			MEMBER(u, "t", p, 0);
		}
	}
}

/*
 * One walk may not pair a FWD with two different definitions: unit 1's
 * P { T v1 *a; T v2 *b } (two structs T in one unit) is not unit 0's
 * P { T *a; T *b } with T declared, and the FWD stays (its name is
 * ambiguous and no walk resolved it).
 */
static void b_fwd_two_defs_one_walk(struct d2b_btf *u, int k)
{
	uint32_t i, l, t1, t2, p1, p2;

	if (k == 0) {
		t1 = FWD(u, "T");
		t2 = t1;
	} else {
		i = INT(u, "int");
		l = LONG(u);
		t1 = STRUCT(u, "T", 4);
		MEMBER(u, "x", i, 0);
		t2 = STRUCT(u, "T", 8);
		MEMBER(u, "y", l, 0);
	}
	p1 = PTR(u, t1);
	p2 = PTR(u, t2);
	STRUCT(u, "P", 16);
	MEMBER(u, "a", p1, 0);
	MEMBER(u, "b", p2, 64);
}

/*
 * A FWD on the unit's side stays equivalent to every definition of its
 * name (as in libbpf): unit 2's Q takes Q(T v1), which resolves the FWD to
 * T v1, and its R still takes R(T v2).
 */
static void b_fwd_unit_side_lenient(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	if (k < 2) {
		i = k == 0 ? INT(u, "int") : LONG(u);
		t = STRUCT(u, "T", k == 0 ? 4 : 8);
		MEMBER(u, k == 0 ? "x" : "y", i, 0);
		p = PTR(u, t);
		STRUCT(u, k == 0 ? "Q" : "R", 8);
		MEMBER(u, "t", p, 0);
		return;
	}
	t = FWD(u, "T");
	p = PTR(u, t);
	STRUCT(u, "Q", 8);
	MEMBER(u, "t", p, 0);
	STRUCT(u, "R", 8);
	MEMBER(u, "t", p, 0);
}

/* A walk pairing FWD union U with struct U fails: two bars, the FWD stays. */
static void b_fwd_union_walk(struct d2b_btf *u, int k)
{
	uint32_t i, t, p;

	if (k == 0) {
		i = INT(u, "int");
		t = STRUCT(u, "U", 4);
		MEMBER(u, "x", i, 0);
	} else {
		t = FWD_UNION(u, "U");
	}
	p = PTR(u, t);
	STRUCT(u, "bar", 8);
	MEMBER(u, "u", p, 0);
}

/*
 * Anonymous unions of one shallow form ({ event; handler; } at 0) whose
 * members point to different structs: units 1-4 make four of them; unit 5
 * points to a FWD of s3 (equal to the fourth, past the candidates walked
 * before member shapes filter), unit 6 is unit 3 again (the third).  Unit 0
 * defines another s3, so that only the walk can resolve unit 5's FWD (and
 * a group holding unit 5 disagrees with the output, which holds unit 0's).
 */
static void b_many_shallow_twins(struct d2b_btf *u, int k)
{
	static const char *const names[] = { "s0", "s1", "s2", "s3" };
	uint32_t t, p;

	if (k == 0) {
		uint32_t l = LONG(u);

		STRUCT(u, "s3", 8);
		MEMBER(u, "y", l, 0);
		return;
	}
	if (k == 5) {
		t = FWD(u, "s3");
	} else {
		uint32_t i = INT(u, "int");

		t = STRUCT(u, names[k == 6 ? 2 : k - 1], 4);
		MEMBER(u, "x", i, 0);
	}
	p = PTR(u, t);
	UNION(u, NULL, 8);
	MEMBER(u, "event", p, 0);
	MEMBER(u, "handler", p, 0);
}

/* struct foo { int (*p)[4 or 5]; }: equal but for an array's length */
static void b_array_length_below(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int");
	uint32_t a = ARRAY(u, i, i, k ? 5 : 4);
	uint32_t p = PTR(u, a);

	STRUCT(u, "foo", 8);
	MEMBER(u, "p", p, 0);
}

/* struct foo { struct { int a; int b; } s; }, a and b swapped in unit 1:
 * equal but for the offsets of an anonymous struct's members */
static void b_member_offset_below(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), anon;

	anon = STRUCT(u, NULL, 8);
	MEMBER(u, "a", i, k ? 32 : 0);
	MEMBER(u, "b", i, k ? 0 : 32);
	STRUCT(u, "foo", 8);
	MEMBER(u, "s", anon, 0);
}

/* a struct of two function pointers whose parameter is named x or y */
static void b_param_name_below(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), f, p;

	f = PROTO(u, i);
	PARAM(u, k ? "y" : "x", i);
	p = PTR(u, f);
	STRUCT(u, "ops", 8);
	MEMBER(u, "fn", p, 0);
}

/*
 * One pointer type of unit 1, A *, walked first as S1's member (equal to
 * unit 0's A *), then as S2's, whose candidate in unit 0 holds a B *: what
 * the first walk found about A * must not make it equal to B *.
 */
static void b_ref_walked_twice(struct d2b_btf *u, int k)
{
	uint32_t i = INT(u, "int"), a, pa, b = 0, pb = 0;

	a = STRUCT(u, "A", 4);
	MEMBER(u, "x", i, 0);
	pa = PTR(u, a);
	if (k == 0) {
		uint32_t l = LONG(u);

		b = STRUCT(u, "B", 8);
		MEMBER(u, "y", l, 0);
		pb = PTR(u, b);
	}
	STRUCT(u, "S1", 8);
	MEMBER(u, "p", pa, 0);
	STRUCT(u, "S2", 8);
	MEMBER(u, "p", k == 0 ? pb : pa, 0);
}

struct dcase {
	const char *name;
	int nunits;
	void (*build)(struct d2b_btf *u, int k);
	const char *expect;
	bool append_only;
	/* merged in groups (dedup__add_group()), some grouping disagrees
	 * with merging the units one by one (-EAGAIN): a FWD meets
	 * definitions its group does not see */
	bool group_conflict;
};

static const struct dcase cases[] = {
	{ "same_struct_two_units", 2, b_same_struct,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=16 'a':1@0 'next':3@64\n"
	  "[3] PTR type=2\n" },
	{ "same_name_different_layout", 2, b_diff_layout,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=4 'a':1@0\n"
	  "[3] STRUCT 'foo' size=4 'b':1@0\n" },
	{ "same_layout_different_member_type", 2, b_diff_member_type,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=4 'a':1@0\n"
	  "[3] INT 'unsigned int' size=4 enc=0\n"
	  "[4] STRUCT 'foo' size=4 'a':3@0\n" },
	{ "fwd_then_definition", 2, b_fwd_then_def,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] PTR type=4\n"
	  "[3] STRUCT 'bar' size=8 'f':2@0\n"
	  "[4] STRUCT 'foo' size=4 'x':1@0\n" },
	{ "definition_then_fwd", 2, b_def_then_fwd,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'bar' size=8 'f':3@0\n" },
	{ "leftover_fwd_unique", 2, b_leftover_fwd,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] PTR type=5\n"
	  "[3] FUNC_PROTO ret=1 'p':2\n"
	  "[4] FUNC 'use_foo' type=3 linkage=1\n"
	  "[5] STRUCT 'foo' size=4 'x':1@0\n" },
	{ "leftover_fwd_struct_and_union", 3, b_fwd_ambig_union,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] FWD 'foo' struct\n"
	  "[3] PTR type=2\n"
	  "[4] FUNC_PROTO ret=1 'p':3\n"
	  "[5] FUNC 'use_foo' type=4 linkage=1\n"
	  "[6] STRUCT 'foo' size=4 'x':1@0\n"
	  "[7] UNION 'foo' size=4 'y':1@0\n" },
	{ "leftover_fwd_two_structs", 3, b_fwd_ambig_structs,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] FWD 'foo' struct\n"
	  "[3] PTR type=2\n"
	  "[4] FUNC_PROTO ret=1 'p':3\n"
	  "[5] FUNC 'use_foo' type=4 linkage=1\n"
	  "[6] STRUCT 'foo' size=4 'x':1@0\n"
	  "[7] INT 'long' size=8 enc=1\n"
	  "[8] STRUCT 'foo' size=8 'z':7@0\n" },
	{ "fwd_union_not_struct", 2, b_fwd_kind_mismatch,
	  "[1] FWD 'foo' union\n"
	  "[2] PTR type=1\n"
	  "[3] INT 'int' size=4 enc=1\n"
	  "[4] STRUCT 'foo' size=4 'x':3@0\n" },
	{ "fwd_with_two_layouts_resolved_by_walk", 3, b_fwd_two_layouts,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'bar' size=8 'f':3@0\n"
	  "[5] INT 'long' size=8 enc=1\n"
	  "[6] STRUCT 'foo' size=8 'x':5@0\n"
	  "[7] PTR type=6\n"
	  "[8] STRUCT 'bar' size=8 'f':7@0\n" },
	{ "fwd_resolves_to_the_definition_its_walk_paired", 4, b_fwd_walk_picks_paired,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'T' size=4 'x':1@0\n"
	  "[3] INT 'long' size=8 enc=1\n"
	  "[4] STRUCT 'T' size=8 'y':3@0\n"
	  "[5] PTR type=4\n"
	  "[6] STRUCT 'S' size=8 't':5@0\n"
	  "[7] FUNC_PROTO ret=3 't':5\n"
	  "[8] FUNC 'use_t' type=7 linkage=1\n", .group_conflict = true },
	{ "fwd_resolved_then_strict", 3, b_fwd_resolved_then_strict,
	  "[1] PTR type=4\n"
	  "[2] STRUCT 'S' size=8 't':1@0\n"
	  "[3] INT 'int' size=4 enc=1\n"
	  "[4] STRUCT 'T' size=4 'x':3@0\n"
	  "[5] INT 'long' size=8 enc=1\n"
	  "[6] STRUCT 'T' size=8 'y':5@0\n"
	  "[7] PTR type=6\n"
	  "[8] STRUCT 'S' size=8 't':7@0\n" },
	{ "fwd_resolved_in_a_group", 4, b_fwd_resolved_in_a_group,
	  "[1] INT 'long' size=8 enc=1\n"
	  "[2] STRUCT 'T' size=8 'y':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'S' size=8 't':3@0\n"
	  "[5] INT 'int' size=4 enc=1\n"
	  "[6] STRUCT 'T' size=4 'x':5@0\n"
	  "[7] PTR type=6\n"
	  "[8] STRUCT 'S' size=8 't':7@0\n", .group_conflict = true },
	{ "fwd_other_definition_before_the_group", 4, b_fwd_other_definition_before,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'A' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'H' size=8 'a':3@0\n"
	  "[5] INT 'long' size=8 enc=1\n"
	  "[6] STRUCT 'A' size=8 'y':5@0\n"
	  "[7] PTR type=6\n"
	  "[8] STRUCT 'H' size=8 'a':7@0\n"
	  "[9] STRUCT 'S3' size=8 'h':4@0\n", .group_conflict = true },
	{ "fwd_group_resolution_kept", 4, b_fwd_group_resolution_kept,
	  "[1] PTR type=5\n"
	  "[2] STRUCT 'S' size=8 't':1@0\n"
	  "[3] STRUCT 'Q' size=8 't':1@0\n"
	  "[4] INT 'int' size=4 enc=1\n"
	  "[5] STRUCT 'T' size=4 'x':4@0\n"
	  "[6] INT 'long' size=8 enc=1\n"
	  "[7] STRUCT 'T' size=8 'y':6@0\n"
	  "[8] PTR type=7\n"
	  "[9] STRUCT 'S' size=8 't':8@0\n" },
	{ "fwd_group_dropped", 4, b_fwd_group_dropped,
	  "[1] INT 'long' size=8 enc=1\n"
	  "[2] STRUCT 'U' size=8 'y':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'R' size=8 'u':3@0\n"
	  "[5] PTR type=11\n"
	  "[6] STRUCT 'S' size=8 't':5@0\n"
	  "[7] INT 'int' size=4 enc=1\n"
	  "[8] STRUCT 'U' size=4 'x':7@0\n"
	  "[9] PTR type=8\n"
	  "[10] STRUCT 'R' size=8 'u':9@0\n"
	  "[11] STRUCT 'T' size=4 'z':7@0\n", .group_conflict = true },
	{ "fwd_resolved_in_a_group_for_others", 5, b_fwd_resolved_in_a_group_for_others,
	  "[1] PTR type=5\n"
	  "[2] STRUCT 'P' size=8 't':1@0\n"
	  "[3] INT 'int' size=4 enc=1\n"
	  "[4] STRUCT 'S' size=8 't':1@0\n"
	  "[5] STRUCT 'T' size=4 'x':3@0\n"
	  "[6] INT 'long' size=8 enc=1\n"
	  "[7] STRUCT 'T' size=8 'y':6@0\n" },
	{ "fwd_two_definitions_in_one_walk", 2, b_fwd_two_defs_one_walk,
	  "[1] FWD 'T' struct\n"
	  "[2] PTR type=1\n"
	  "[3] STRUCT 'P' size=16 'a':2@0 'b':2@64\n"
	  "[4] INT 'int' size=4 enc=1\n"
	  "[5] INT 'long' size=8 enc=1\n"
	  "[6] STRUCT 'T' size=4 'x':4@0\n"
	  "[7] STRUCT 'T' size=8 'y':5@0\n"
	  "[8] PTR type=6\n"
	  "[9] PTR type=7\n"
	  "[10] STRUCT 'P' size=16 'a':8@0 'b':9@64\n" },
	{ "fwd_unit_side_lenient", 3, b_fwd_unit_side_lenient,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'T' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'Q' size=8 't':3@0\n"
	  "[5] INT 'long' size=8 enc=1\n"
	  "[6] STRUCT 'T' size=8 'y':5@0\n"
	  "[7] PTR type=6\n"
	  "[8] STRUCT 'R' size=8 't':7@0\n" },
	{ "fwd_union_walk_fails", 2, b_fwd_union_walk,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'U' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'bar' size=8 'u':3@0\n"
	  "[5] FWD 'U' union\n"
	  "[6] PTR type=5\n"
	  "[7] STRUCT 'bar' size=8 'u':6@0\n" },
	{ "fwd_never_defined", 2, b_fwd_only,
	  "[1] FWD 'opaque' struct\n"
	  "[2] PTR type=1\n" },
	{ "anonymous_types", 2, b_anonymous,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] INT 'long' size=8 enc=1\n"
	  "[3] STRUCT '' size=4 'a':1@0\n"
	  "[4] UNION '' size=8 'x':1@0 'y':2@0\n"
	  "[5] ENUM '' size=4 'A'=0 'B'=1\n"
	  "[6] STRUCT 'outer' size=24 'in':3@0 'u':4@64 'e':5@128\n" },
	{ "duplicates_inside_unit", 1, b_dup_in_unit,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] ARRAY elem=1 idx=1 n=4\n"
	  "[3] STRUCT 's' size=40 'a':2@0 'b':2@128 'p':4@256 'q':4@320\n"
	  "[4] PTR type=3\n"
	  "[5] STRUCT 'user' size=16 'x':3@0 'y':3@0\n" },
	{ "mutually_recursive", 2, b_mutual,
	  "[1] STRUCT 'a' size=8 'b':3@0\n"
	  "[2] STRUCT 'b' size=16 'a':4@0 'self':3@64\n"
	  "[3] PTR type=2\n"
	  "[4] PTR type=1\n" },
	{ "struct_only_via_function_pointer", 2, b_func_ptr,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 's' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] FUNC_PROTO ret=1 'arg':3 '':0\n"
	  "[5] PTR type=4\n"
	  "[6] TYPEDEF 'handler_t' type=5\n"
	  "[7] INT 'long' size=8 enc=1\n" },
	{ "arrays", 2, b_arrays,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] ARRAY elem=1 idx=1 n=3\n"
	  "[3] ARRAY elem=2 idx=1 n=2\n"
	  "[4] ARRAY elem=1 idx=1 n=0\n"
	  "[5] STRUCT 'arr' size=28 'm':3@0 'flex':4@192\n"
	  "[6] ARRAY elem=3 idx=1 n=0\n" },
	{ "enum_fwd_then_full", 2, b_enum_fwd,
	  "[1] PTR type=2\n"
	  "[2] ENUM 'e' size=4 'E_A'=1 'E_B'=-1\n" },
	{ "enum_full_then_fwd", 2, b_enum_fwd_rev,
	  "[1] ENUM 'e' size=4 'E_A'=1 'E_B'=-1\n"
	  "[2] PTR type=1\n" },
	{ "enum64", 3, b_enum64,
	  "[1] ENUM64 'big' size=8 'BIG'=78187493520 'SMALL'=1\n"
	  "[2] ENUM64 'big' size=8 'BIG'=7 'SMALL'=1\n" },
	{ "func_decl_tag_type_tag", 3, b_tags,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] TYPE_TAG 'user' type=1\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'tagged' size=8 'uptr':3@0\n"
	  "[5] DECL_TAG 'member_tag' type=4 idx=0\n"
	  "[6] PTR type=4\n"
	  "[7] FUNC_PROTO ret=1 't':6\n"
	  "[8] FUNC 'fn' type=7 linkage=1\n"
	  "[9] DECL_TAG 'fn_tag' type=8 idx=-1\n"
	  "[10] FUNC 'other' type=7 linkage=1\n"
	  "[11] DECL_TAG 'fn_tag' type=10 idx=-1\n" },
	{ "typedef_const", 2, b_typedef,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=4 'x':1@0\n"
	  "[3] TYPEDEF 'foo_t' type=2\n"
	  "[4] CONST type=3\n"
	  "[5] PTR type=4\n" },
	{ "reference_cycle_terminates", 1, b_ref_cycle,
	  "[1] PTR type=2\n"
	  "[2] TYPEDEF 'loop_t' type=1\n"
	  "[3] INT 'int' size=4 enc=1\n" },
	{ "bitfields", 2, b_bitfields,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'bits' size=4 'a':1@0:3 'b':1@3:5\n" },
	{ "append_only", 2, b_same_struct,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'foo' size=16 'a':1@0 'next':3@64\n"
	  "[3] PTR type=2\n"
	  "[4] PTR type=6\n"
	  "[5] INT 'int' size=4 enc=1\n"
	  "[6] STRUCT 'foo' size=16 'a':5@0 'next':4@64\n", true },
	{ "array_length_below", 2, b_array_length_below,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] ARRAY elem=1 idx=1 n=4\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'foo' size=8 'p':3@0\n"
	  "[5] ARRAY elem=1 idx=1 n=5\n"
	  "[6] PTR type=5\n"
	  "[7] STRUCT 'foo' size=8 'p':6@0\n" },
	{ "member_offset_below", 2, b_member_offset_below,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT '' size=8 'a':1@0 'b':1@32\n"
	  "[3] STRUCT 'foo' size=8 's':2@0\n"
	  "[4] STRUCT '' size=8 'a':1@32 'b':1@0\n"
	  "[5] STRUCT 'foo' size=8 's':4@0\n" },
	{ "param_name_below", 2, b_param_name_below,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] FUNC_PROTO ret=1 'x':1\n"
	  "[3] PTR type=2\n"
	  "[4] STRUCT 'ops' size=8 'fn':3@0\n"
	  "[5] FUNC_PROTO ret=1 'y':1\n"
	  "[6] PTR type=5\n"
	  "[7] STRUCT 'ops' size=8 'fn':6@0\n" },
	{ "ref_walked_twice", 2, b_ref_walked_twice,
	  "[1] INT 'int' size=4 enc=1\n"
	  "[2] STRUCT 'A' size=4 'x':1@0\n"
	  "[3] PTR type=2\n"
	  "[4] INT 'long' size=8 enc=1\n"
	  "[5] STRUCT 'B' size=8 'y':4@0\n"
	  "[6] PTR type=5\n"
	  "[7] STRUCT 'S1' size=8 'p':3@0\n"
	  "[8] STRUCT 'S2' size=8 'p':6@0\n"
	  "[9] STRUCT 'S2' size=8 'p':3@0\n" },
	{ "many_shallow_twins", 7, b_many_shallow_twins,
	  "[1] INT 'long' size=8 enc=1\n"
	  "[2] STRUCT 's3' size=8 'y':1@0\n"
	  "[3] INT 'int' size=4 enc=1\n"
	  "[4] STRUCT 's0' size=4 'x':3@0\n"
	  "[5] PTR type=4\n"
	  "[6] UNION '' size=8 'event':5@0 'handler':5@0\n"
	  "[7] STRUCT 's1' size=4 'x':3@0\n"
	  "[8] PTR type=7\n"
	  "[9] UNION '' size=8 'event':8@0 'handler':8@0\n"
	  "[10] STRUCT 's2' size=4 'x':3@0\n"
	  "[11] PTR type=10\n"
	  "[12] UNION '' size=8 'event':11@0 'handler':11@0\n"
	  "[13] STRUCT 's3' size=4 'x':3@0\n"
	  "[14] PTR type=13\n"
	  "[15] UNION '' size=8 'event':14@0 'handler':14@0\n", .group_conflict = true },
};

#endif
