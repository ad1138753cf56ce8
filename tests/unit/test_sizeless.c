// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * finish/sizeless.c: types of no size where the kernel needs one.  A member
 * of a FWD (or of a typedef of void) becomes bytes filling its place; a
 * prototype with such a parameter or return goes, with its FUNCs, and the
 * pointers and typedefs naming it point to void.  The result passes
 * d2b_btf__verify() after prune__funcs(), and nothing else changes.
 */
#include "btf/btf.h"
#include "base/diag.h"
#include "finish/prune.h"
#include "finish/sizeless.h"
#include "test.h"

/* The notes sizeless__repair() gives: how many */
static struct diag notes;

/* A BTF with every case, and what each ID is */
struct ids {
	int i, fwd, tvoid, s, u, bad_param, bad_ret, good, ptr_bad, td_bad, f_bad, f_good;
};

static struct d2b_btf *build(struct ids *x)
{
	struct d2b_btf *b = d2b_btf__new(NULL);

	x->i = d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	x->fwd = d2b_btf__add_fwd(b, "ext", false);
	x->tvoid = d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, "V", 0);
	/* struct s { int a; struct ext e; int c; } with e 8 bytes at 4 */
	x->s = d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 16);
	d2b_btf__add_member(b, "a", x->i, 0, 0);
	d2b_btf__add_member(b, "e", x->fwd, 32, 0);
	d2b_btf__add_member(b, "c", x->i, 96, 0);
	x->u = d2b_btf__add_composite(b, D2B_KIND_UNION, "u", 8);
	d2b_btf__add_member(b, "v", x->tvoid, 0, 0);
	x->bad_param = d2b_btf__add_func_proto(b, x->i);
	d2b_btf__add_param(b, "x", x->fwd);
	x->bad_ret = d2b_btf__add_func_proto(b, x->tvoid);
	x->good = d2b_btf__add_func_proto(b, 0);		/* void f(int, ...) is fine */
	d2b_btf__add_param(b, "x", x->i);
	d2b_btf__add_param(b, NULL, 0);
	x->ptr_bad = d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, x->bad_ret);
	x->td_bad = d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, "fn_t", x->bad_param);
	x->f_bad = d2b_btf__add_func(b, "take_ext", D2B_LINKAGE_GLOBAL, x->bad_param);
	x->f_good = d2b_btf__add_func(b, "ok", D2B_LINKAGE_GLOBAL, x->good);
	return b;
}

static void test_repair(void)
{
	struct ids x;
	struct d2b_btf *b = build(&x), *out = NULL;
	const struct d2b_type *t;
	uint32_t *map = NULL;
	uint8_t *drop = NULL;
	int n, i;

	CHECK(d2b_btf__verify(b, 0, NULL, NULL) > 0);
	diag__init_kept(&notes, true);
	n = sizeless__repair(b, &drop, &notes);
	CHECK_EQ(n, 2);		/* the two prototypes */
	CHECK_EQ(notes.nr_msgs, 3);	/* two members, one FUNC */
	if (n <= 0 || !drop)
		goto out;
	CHECK(drop[x.bad_param - 1] && drop[x.bad_ret - 1] && drop[x.f_bad - 1]);
	CHECK(!drop[x.good - 1] && !drop[x.f_good - 1] && !drop[x.s - 1]);
	/* the member keeps its place: 8 bytes up to the next member */
	t = d2b_btf__type(b, x.s);
	i = btf_members(t)[1].type;
	CHECK_EQ(d2b_kind(d2b_btf__type(b, i)), D2B_KIND_ARRAY);
	CHECK_EQ(d2b_btf__resolve_size(b, i), 8);
	/* a union member fills the union */
	t = d2b_btf__type(b, x.u);
	CHECK_EQ(d2b_btf__resolve_size(b, btf_members(t)[0].type), 8);
	CHECK_EQ(d2b_btf__type(b, x.ptr_bad)->type, 0);
	CHECK_EQ(d2b_btf__type(b, x.td_bad)->type, 0);
	CHECK_EQ(prune__funcs(b, drop, &out, &map), 0);
	if (!out)
		goto out;
	CHECK_EQ(d2b_btf__verify(out, 0, NULL, NULL), 0);
	CHECK_EQ(map[x.f_bad], 0);
	CHECK(map[x.f_good] != 0);
	CHECK_STR(d2b_btf__name(out, map[x.f_good]), "ok");
out:
	d2b_btf__free(out);
	d2b_btf__free(b);
	free(map);
	free(drop);
}

/* A small enum near the end of a kind_flag struct becomes a bitfield */
static void test_small_enum(void)
{
	struct d2b_btf *b = d2b_btf__new(NULL);
	const struct d2b_type *t;
	uint8_t *drop = NULL;
	int i, e, s;

	REQUIRE(b);
	i = d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	e = d2b_btf__add_enum(b, "e", 1, false);
	d2b_btf__add_enum_value(b, "A", 1);
	s = d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 8);
	d2b_btf__add_member(b, "a", i, 0, 3);
	d2b_btf__add_member(b, "early", e, 8, 0);	/* 8 + 32 <= 64: stays */
	d2b_btf__add_member(b, "late", e, 56, 0);
	CHECK_EQ(d2b_btf__verify(b, 0, NULL, NULL), 1);
	diag__release(&notes);
	diag__init_kept(&notes, true);
	CHECK_EQ(sizeless__repair(b, &drop, &notes), 0);
	CHECK_EQ(notes.nr_msgs, 1);
	t = d2b_btf__type(b, s);
	CHECK_EQ(d2b_member_bitfield_size(t, &btf_members(t)[1]), 0);
	CHECK_EQ(d2b_member_bitfield_size(t, &btf_members(t)[2]), 8);
	CHECK_EQ(d2b_member_bit_offset(t, &btf_members(t)[2]), 56);
	CHECK_EQ(d2b_btf__verify(b, 0, NULL, NULL), 0);
	free(drop);
	d2b_btf__free(b);
}

/* Nothing to mend: nothing changes */
static void test_nothing(void)
{
	struct d2b_btf *b = d2b_btf__new(NULL);
	uint8_t *drop = (uint8_t *)1;
	int i = d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);

	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 4);
	d2b_btf__add_member(b, "a", i, 0, 0);
	diag__release(&notes);
	diag__init_kept(&notes, true);
	CHECK_EQ(sizeless__repair(b, &drop, &notes), 0);
	CHECK(drop == NULL);
	CHECK_EQ(notes.nr_msgs, 0);
	CHECK_EQ(d2b_btf__nr_types(b), 2);
	d2b_btf__free(b);
}

int main(void)
{
	RUN(test_repair);
	RUN(test_small_enum);
	RUN(test_nothing);
	diag__release(&notes);
	return test_done();
}
