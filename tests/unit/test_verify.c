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

static const struct vcase cases[] = {
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
