// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * d2b_btf__verify: table-driven.  Each case builds a small BTF with one
 * thing the kernel refuses (or accepts: the "ok" cases keep the checker
 * from refusing what the kernel loads) and expects that many violations,
 * with the message naming the problem.
 */
#include "btf/btf.h"
#include "test.h"

struct vcase {
	const char *name;
	void (*build)(struct d2b_btf *b);
	int violations;
	const char *msg;	/* a substring of the first report */
	unsigned int flags;	/* d2b_btf__verify's */
};

static char first_msg[512];

static void report(void *arg, uint32_t id, const char *msg)
{
	int *n = arg;

	(void)id;
	if ((*n)++ == 0)
		snprintf(first_msg, sizeof(first_msg), "%s", msg);
}

static int int_t(struct d2b_btf *b)
{
	return d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
}

static void ok_all_kinds(struct d2b_btf *b)
{
	int i = int_t(b), p, s, f, v;

	d2b_btf__add_int(b, "long unsigned int", 8, 0);	/* spaces are fine in INT names */
	p = d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, i);
	d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, p);
	d2b_btf__add_type_tag(b, "user", 0);		/* a tag over void */
	d2b_btf__add_array(b, i, i, 4);
	s = d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 8);
	d2b_btf__add_member(b, "a", i, 0, 0);
	d2b_btf__add_member(b, "b", i, 32, 3);
	d2b_btf__add_enum(b, "e", 4, false);
	d2b_btf__add_enum_value(b, "E1", 1);
	f = d2b_btf__add_func_proto(b, i);
	d2b_btf__add_param(b, "x", i);
	d2b_btf__add_param(b, NULL, 0);
	f = d2b_btf__add_func(b, "fn", D2B_LINKAGE_GLOBAL, f);
	d2b_btf__add_decl_tag(b, "tag", f, 0);
	d2b_btf__add_decl_tag(b, "tag", s, 1);
	v = d2b_btf__add_var(b, "v", D2B_LINKAGE_GLOBAL, i);
	d2b_btf__add_datasec(b, ".data..percpu", 16);
	d2b_btf__add_datasec_var(b, v, 4, 4);
	d2b_btf__add_float(b, "double", 8);
}

static void bad_struct_name(struct d2b_btf *b)
{
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "bad name", 4);
	d2b_btf__add_member(b, "a", int_t(b), 0, 0);
}

static void bad_member_name(struct d2b_btf *b)
{
	int i = int_t(b);

	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 4);
	d2b_btf__add_member(b, "a-b", i, 0, 0);
}

static void member_past_end(struct d2b_btf *b)
{
	int i = int_t(b);

	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 4);
	d2b_btf__add_member(b, "a", i, 0, 0);
	d2b_btf__add_member(b, "b", i, 32, 0);
}

static void members_out_of_order(struct d2b_btf *b)
{
	int i = int_t(b);

	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 8);
	d2b_btf__add_member(b, "a", i, 32, 0);
	d2b_btf__add_member(b, "b", i, 0, 0);
}

static void union_member_offset(struct d2b_btf *b)
{
	int i = int_t(b);

	d2b_btf__add_composite(b, D2B_KIND_UNION, "u", 8);
	d2b_btf__add_member(b, "a", i, 32, 0);
}

static void member_void(struct d2b_btf *b)
{
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 4);
	d2b_btf__add_member(b, "a", 0, 0, 0);
}

static void bitfield_past_end(struct d2b_btf *b)
{
	int i = int_t(b);

	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 4);
	d2b_btf__add_member(b, "a", i, 30, 5);
}

/* the builder refuses these sizes: add them raw, as a damaged input could */
static void add_sized(struct d2b_btf *b, unsigned int kind, const char *name, uint32_t size)
{
	struct d2b_type t = { 0 };

	t.name_off = (uint32_t)d2b_btf__add_str(b, name);
	t.info = d2b_info(kind, false, 0);
	t.size = size;
	d2b_btf__add_raw(b, &t);
}

static void enum_bad_size(struct d2b_btf *b)
{
	add_sized(b, D2B_KIND_ENUM, "e", 3);
}

static void func_unnamed_param(struct d2b_btf *b)
{
	int i = int_t(b), p = d2b_btf__add_func_proto(b, i);

	d2b_btf__add_param(b, NULL, i);
	d2b_btf__add_func(b, "f", D2B_LINKAGE_STATIC, p);
}

static void func_extern(struct d2b_btf *b)
{
	int p = d2b_btf__add_func_proto(b, int_t(b));

	d2b_btf__add_func(b, "f", D2B_LINKAGE_EXTERN, p);
}

static void array_of_fwd(struct d2b_btf *b)
{
	int i = int_t(b), fw = d2b_btf__add_fwd(b, "s", false);

	d2b_btf__add_array(b, fw, i, 2);
}

static void datasec_overlap(struct d2b_btf *b)
{
	int i = int_t(b), v1 = d2b_btf__add_var(b, "a", 1, i), v2 = d2b_btf__add_var(b, "b", 1, i);

	d2b_btf__add_datasec(b, ".data", 8);
	d2b_btf__add_datasec_var(b, v1, 0, 4);
	d2b_btf__add_datasec_var(b, v2, 2, 4);
}

static void decl_tag_bad_idx(struct d2b_btf *b)
{
	int i = int_t(b), v = d2b_btf__add_var(b, "v", 1, i);

	d2b_btf__add_decl_tag(b, "t", v, 0);
}

static void tag_after_const(struct d2b_btf *b)
{
	int i = int_t(b), c = d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, i);

	d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, d2b_btf__add_type_tag(b, "user", c));
}

static void float_size(struct d2b_btf *b)
{
	add_sized(b, D2B_KIND_FLOAT, "f", 3);
}

static void ptr_to_var(struct d2b_btf *b)
{
	int v = d2b_btf__add_var(b, "v", 1, int_t(b));

	d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, v);
}

static void modifier_loop(struct d2b_btf *b)
{
	int c;

	int_t(b);
	c = d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, 3);	/* [2] -> [3] */
	d2b_btf__add_ref(b, D2B_KIND_VOLATILE, NULL, c);	/* [3] -> [2] */
}

/* A parameter or return must have a size (BPF_BTF_LOAD: "Invalid arg#1",
 * "Invalid return type"), through typedefs too */
static void proto_sizeless(struct d2b_btf *b, int k)
{
	int i = int_t(b), f = d2b_btf__add_fwd(b, "s", false);
	int td = d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, "V", 0), p;

	p = d2b_btf__add_func_proto(b, k == 1 ? td : k == 3 ? f : i);
	d2b_btf__add_param(b, "a", k == 0 ? f : k == 2 ? td : i);
	d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, p);
}

static void param_fwd(struct d2b_btf *b) { proto_sizeless(b, 0); }
static void return_typedef_void(struct d2b_btf *b) { proto_sizeless(b, 1); }
static void param_typedef_void(struct d2b_btf *b) { proto_sizeless(b, 2); }

static void empty(struct d2b_btf *b)
{
	(void)b;
}

/* btf_enum_check_kflag_member: a non-bitfield enum member of a kind_flag
 * struct counts 32 bits, so a 1-byte enum at the last byte "exceeds" it */
static void kflag_small_enum(struct d2b_btf *b)
{
	int i = int_t(b), e = d2b_btf__add_enum(b, "e", 1, false);

	d2b_btf__add_enum_value(b, "A", 1);
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "s", 4);
	d2b_btf__add_member(b, "a", i, 0, 3);
	d2b_btf__add_member(b, "k", e, 8, 0);
}

/* C++ names where identifiers go: refused, unless D2B_VERIFY_CXX_NAMES */
static void cxx_names(struct d2b_btf *b)
{
	int i = int_t(b), s, p, v;

	s = d2b_btf__add_composite(b, D2B_KIND_STRUCT, "geo::Box<int>", 8);
	d2b_btf__add_member(b, "_vptr$base", i, 0, 0);
	d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, "geo::Box<int>::value_type", i);
	d2b_btf__add_fwd(b, "std::vector<int, std::allocator<int> >", false);
	p = d2b_btf__add_func_proto(b, i);
	d2b_btf__add_param(b, "this", s);
	d2b_btf__add_func(b, "geo::Box<int>::operator<<", D2B_LINKAGE_GLOBAL, p);
	v = d2b_btf__add_var(b, "geo::Box<int>::count", D2B_LINKAGE_GLOBAL, i);
	d2b_btf__add_datasec(b, ".data", 4);
	d2b_btf__add_datasec_var(b, v, 0, 4);
}

/* ...but not bytes a damaged string section gives */
static void cxx_names_control(struct d2b_btf *b)
{
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "geo::\x01", 0);
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, " geo", 0);
	d2b_btf__add_composite(b, D2B_KIND_STRUCT, "g\xc3\xa9o", 0);
}

/* ---- the inline-site kinds: int, int foo(int a, int b), then the case ---- */

enum { L = D2B_VERIFY_LOC_KINDS };

static int foo_t(struct d2b_btf *b)
{
	int i = int_t(b), p = d2b_btf__add_func_proto(b, i);

	d2b_btf__add_param(b, "a", i);
	d2b_btf__add_param(b, "b", i);
	return d2b_btf__add_func(b, "foo", D2B_LINKAGE_STATIC, p);	/* [3] */
}

static int lp(struct d2b_btf *b, uint32_t size, uint32_t flags, uint32_t v0, uint32_t v1,
	      unsigned int n)
{
	const uint32_t v[] = { v0, v1 };

	return d2b_btf__add_loc_param(b, size, flags, v, n);
}

/* foo inlined at .text+64, its parameters in reg5 and *(fbreg - 8) */
static int site(struct d2b_btf *b, uint32_t *ret_param, uint32_t *ret_proto)
{
	int f = foo_t(b), p1 = lp(b, 4, D2B_LOC_PARAM_REG, 5, 0, 1);
	int p2 = lp(b, 4, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF | D2B_LOC_PARAM_OFFSET |
		    D2B_LOC_PARAM_SIGNED, D2B_LOC_PARAM_FBREG, (uint32_t)-8, 2);
	int proto = d2b_btf__add_loc_proto(b);

	d2b_btf__add_loc_proto_param(b, (uint32_t)p1);
	d2b_btf__add_loc_proto_param(b, (uint32_t)p2);
	*ret_param = (uint32_t)p1;
	*ret_proto = (uint32_t)proto;
	return f;
}

static void loc_ok(struct d2b_btf *b)
{
	uint32_t param, proto;
	int f = site(b, &param, &proto), none;

	lp(b, 8, D2B_LOC_PARAM_CONST, 1, 2, 2);
	lp(b, 4, D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_SIGNED, (uint32_t)-1, 0, 1);
	lp(b, 8, D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_ADDR, 0x1000, 0, 2);
	lp(b, 16, D2B_LOC_PARAM_REG, 0, 1, 2);		/* a value in two registers */
	lp(b, 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF, 6, 0, 1);
	lp(b, 8, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_OFFSET, 7, 16, 2);
	none = d2b_btf__add_loc_proto(b);		/* no location for either */
	d2b_btf__add_loc_proto_param(b, 0);
	d2b_btf__add_loc_proto_param(b, 0);
	d2b_btf__add_locsec(b, "inline.text");
	d2b_btf__add_locsec_loc(b, (uint32_t)f, proto, 64);
	d2b_btf__add_locsec_loc(b, (uint32_t)f, (uint32_t)none, 128);
	(void)param;
}

static struct d2b_type *last(struct d2b_btf *b)
{
	return btf_type_mut(b, d2b_btf__end_id(b) - 1);
}

static void loc_param_named(struct d2b_btf *b)
{
	lp(b, 4, D2B_LOC_PARAM_REG, 1, 0, 1);
	last(b)->name_off = (uint32_t)d2b_btf__add_str(b, "x");
}

static void loc_param_kflag(struct d2b_btf *b)
{
	lp(b, 4, D2B_LOC_PARAM_REG, 1, 0, 1);
	last(b)->info |= 1u << 31;
}

static void loc_param_size(struct d2b_btf *b)
{
	lp(b, 17, D2B_LOC_PARAM_REG, 1, 0, 1);
	lp(b, 4, D2B_LOC_PARAM_REG, 1, 0, 1);
	last(b)->size = 0;
}

static void loc_param_flags(struct d2b_btf *b)
{
	lp(b, 4, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_SIGNED, 1, 0, 1);	/* SIGNED: no register */
	lp(b, 4, D2B_LOC_PARAM_DEREF, 1, 0, 1);
	lp(b, 4, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_CONST, 1, 0, 1);
	lp(b, 4, D2B_LOC_PARAM_REG, 1, 0, 1);
	((uint32_t *)(last(b) + 1))[0] = 0x40;
}

static void loc_param_vlen(struct d2b_btf *b)
{
	lp(b, 8, D2B_LOC_PARAM_CONST, 1, 0, 1);		/* 8 bytes in one word */
	lp(b, 16, D2B_LOC_PARAM_CONST, 1, 0, 2);	/* a constant of 16 bytes */
	lp(b, 4, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF, 1, 2, 2);
	lp(b, 4, D2B_LOC_PARAM_REG | D2B_LOC_PARAM_OFFSET, 1, 0, 1);
	lp(b, 4, D2B_LOC_PARAM_REG, 1, 0, 1);
	last(b)->info = d2b_info(D2B_KIND_LOC_PARAM, false, 0);	/* and no value */
}

static void loc_proto_type(struct d2b_btf *b)
{
	uint32_t param, proto;

	site(b, &param, &proto);
	btf_type_mut(b, proto)->type = 1;
}

static void loc_proto_param(struct d2b_btf *b)
{
	uint32_t param, proto;

	site(b, &param, &proto);
	((uint32_t *)(btf_type_mut(b, proto) + 1))[1] = 1;	/* the INT */
}

static void locsec_case(struct d2b_btf *b, int which)
{
	uint32_t param, proto;
	int f = site(b, &param, &proto), one = d2b_btf__add_loc_proto(b);

	d2b_btf__add_loc_proto_param(b, param);
	d2b_btf__add_locsec(b, which == 5 ? "inline text" : "inline.text");
	d2b_btf__add_locsec_loc(b, which == 0 ? 1 : which == 1 ? 0 : (uint32_t)f,
				which == 2 ? param : which == 3 ? (uint32_t)one : proto, 64);
	if (which == 4)
		last(b)->size = 8;
}

static void locsec_not_func(struct d2b_btf *b) { locsec_case(b, 0); }
static void locsec_func_0(struct d2b_btf *b) { locsec_case(b, 1); }
static void locsec_not_proto(struct d2b_btf *b) { locsec_case(b, 2); }
static void locsec_mismatch(struct d2b_btf *b) { locsec_case(b, 3); }
static void locsec_size(struct d2b_btf *b) { locsec_case(b, 4); }
static void locsec_name(struct d2b_btf *b) { locsec_case(b, 5); }

static void ptr_to_loc(struct d2b_btf *b)
{
	uint32_t param, proto;

	site(b, &param, &proto);
	d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, param);
	d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, proto);
}

/* more sites than 16 bits count: the bpf tree's kernels only */
static void locsec_wide(struct d2b_btf *b)
{
	uint32_t param, proto, i;
	int f = site(b, &param, &proto);

	d2b_btf__add_locsec(b, "inline.text");
	for (i = 0; i <= D2B_MAX_VLEN; i++)
		d2b_btf__add_locsec_loc(b, (uint32_t)f, proto, i);
}

static const struct vcase cases[] = {
	{ "loc_default", loc_ok, 11, "kind LOC_PARAM (20): inline sites, which only kernels "
	  "of the bpf tree load" },
	{ "loc_ok", loc_ok, 0, NULL, L },
	{ "loc_ok_cxx", loc_ok, 0, NULL, L | D2B_VERIFY_CXX_NAMES },
	{ "ok_all_kinds_loc", ok_all_kinds, 0, NULL, L },
	{ "loc_param_named", loc_param_named, 1, "must have no name", L },
	{ "loc_param_kflag", loc_param_kflag, 1, "kind_flag set", L },
	{ "loc_param_size", loc_param_size, 2, "a size of 0 or over 16 bytes (flags 0x8, size 17", L },
	{ "loc_param_flags", loc_param_flags, 4, "flags the kernel does not know (flags 0x9", L },
	{ "loc_param_vlen", loc_param_vlen, 5, "a vlen its flags and size do not allow (flags "
	  "0x2, size 8, vlen 1)", L },
	{ "loc_proto_type", loc_proto_type, 1, "type field 1, not 0", L },
	{ "loc_proto_param", loc_proto_param, 1, "parameter 1: [1] is not a LOC_PARAM", L },
	{ "locsec_not_func", locsec_not_func, 1, "site 0: [1] is not a FUNC", L },
	{ "locsec_func_0", locsec_func_0, 1, "site 0: [0] is not a FUNC", L },
	{ "locsec_not_proto", locsec_not_proto, 2, "site 0: [4] is not a LOC_PROTO", L },
	{ "locsec_mismatch", locsec_mismatch, 1, "LOC_PROTO [7] has 1 parameters, its FUNC 2", L },
	{ "locsec_size", locsec_size, 1, "size field 8, not 0", L },
	{ "locsec_name", locsec_name, 1, "invalid section name", L },
	{ "ptr_to_loc", ptr_to_loc, 2, "refers to LOC_PARAM", L },
	{ "locsec_wide", locsec_wide, 0, NULL, L },
	{ "locsec_wide_default", locsec_wide, 5, "kind LOC_PARAM", 0 },

	{ "param_fwd", param_fwd, 1, "parameter 0 is FWD" },
	{ "return_typedef_void", return_typedef_void, 1, "returns void through a typedef" },
	{ "param_typedef_void", param_typedef_void, 1, "parameter 0 is void through" },
	{ "empty", empty, 1, "no type at all" },
	{ "kflag_small_enum", kflag_small_enum, 1, "taken for 32 bits" },
	{ "cxx_names_kernel", cxx_names, 6, "invalid name", 0 },
	{ "cxx_names_relaxed", cxx_names, 0, NULL, D2B_VERIFY_CXX_NAMES },
	{ "cxx_names_control", cxx_names_control, 3, "invalid name", D2B_VERIFY_CXX_NAMES },
	{ "ok_all_kinds", ok_all_kinds, 0, NULL },
	{ "bad_struct_name", bad_struct_name, 1, "invalid name" },
	{ "bad_member_name", bad_member_name, 1, "member 0 ('a-b'): invalid name" },
	{ "member_past_end", member_past_end, 1, "ends past" },
	{ "members_out_of_order", members_out_of_order, 1, "before the previous member" },
	{ "union_member_offset", union_member_offset, 1, "union member 'a'" },
	{ "member_void", member_void, 1, "is void" },
	{ "bitfield_past_end", bitfield_past_end, 1, "member 'a' ends past" },
	{ "enum_bad_size", enum_bad_size, 1, "size 3" },
	{ "func_unnamed_param", func_unnamed_param, 1, "parameter 0 has no name" },
	{ "func_extern", func_extern, 1, "linkage 2" },
	{ "array_of_fwd", array_of_fwd, 1, "element type" },
	{ "datasec_overlap", datasec_overlap, 1, "overlaps" },
	{ "decl_tag_bad_idx", decl_tag_bad_idx, 1, "component 0 on a VAR" },
	{ "tag_after_const", tag_after_const, 1, "TYPE_TAG follows" },
	{ "float_size", float_size, 1, "size 3" },
	{ "ptr_to_var", ptr_to_var, 1, "refers to VAR" },
	{ "modifier_loop", modifier_loop, 2, "loop" },
};

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct vcase *c = &cases[i];
		struct d2b_btf *b = d2b_btf__new(NULL);
		int n = 0, r;

		test_failed_now = 0;
		first_msg[0] = '\0';
		c->build(b);
		r = d2b_btf__verify(b, c->flags, report, &n);
		CHECK_EQ(r, n);
		CHECK_EQ(r, c->violations);
		if (c->msg && !strstr(first_msg, c->msg)) {
			printf("#   first report \"%s\" lacks \"%s\"\n", first_msg, c->msg);
			test_failed_now = 1;
		}
		if (test_failed_now) {
			printf("FAIL verify/%s: see above\n", c->name);
			test_nfail++;
		} else {
			printf("PASS verify/%s\n", c->name);
		}
		d2b_btf__free(b);
	}
	return test_done();
}
