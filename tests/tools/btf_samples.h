/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * BTF samples built with the builder API, shared by the unit tests and the
 * golden test's helper (tests/tools/btfdump.c): every kind, every flag and
 * the odd corners a dumper must print like bpftool (unknown INT encodings,
 * unknown linkages, signed enums, bitfields, anonymous names), plus a base
 * and a split BTF over it.  Each builder returns 0 or a negative errno.
 */
#ifndef D2B_BTF_SAMPLES_H
#define D2B_BTF_SAMPLES_H

#include <errno.h>
#include <stdint.h>

#include "dwarf2btf.h"

#define SAMPLE_TRY(x) do { int _r = (x); if (_r < 0) return _r; } while (0)

/* A type with no trailing records or one trailing word, added raw. */
static inline int sample_raw(struct d2b_btf *btf, const char *name, uint32_t info,
			     uint32_t size_or_type, uint32_t extra)
{
	uint32_t w[4];
	int off = d2b_btf__add_str(btf, name);

	if (off < 0)
		return off;
	w[0] = off;
	w[1] = info;
	w[2] = size_or_type;
	w[3] = extra;
	return d2b_btf__add_raw(btf, (const struct d2b_type *)w);
}

/* Every kind; IDs are fixed so tests can name them. */
static inline int sample_all_kinds(struct d2b_btf *btf)
{
	int i_int, i_uchar, i_bool, i_ptr, i_arr, i_s, i_u, i_fwd, i_proto, i_func, i_var, i_flt;

	i_int = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);			/* 1 */
	SAMPLE_TRY(i_int);
	i_uchar = d2b_btf__add_int(btf, "unsigned char", 1, 0);			/* 2 */
	SAMPLE_TRY(i_uchar);
	SAMPLE_TRY(d2b_btf__add_int(btf, "char", 1, D2B_INT_CHAR));		/* 3 */
	i_bool = d2b_btf__add_int(btf, "_Bool", 1, D2B_INT_BOOL);			/* 4 */
	SAMPLE_TRY(i_bool);
	/* odd INT: encoding 7 (UNKN), bit offset 3, 5 bits */
	SAMPLE_TRY(sample_raw(btf, "odd_int", d2b_info(D2B_KIND_INT, false, 0), 2,
			      7u << 24 | 3u << 16 | 5));					/* 5 */
	i_ptr = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, i_int);			/* 6 */
	SAMPLE_TRY(i_ptr);
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_CONST, NULL, i_int));		/* 7 */
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_VOLATILE, NULL, 7));		/* 8 */
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_RESTRICT, NULL, i_ptr));		/* 9 */
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, "int_t", i_int));	/* 10 */
	SAMPLE_TRY(d2b_btf__add_type_tag(btf, "user", i_int));			/* 11 */
	i_arr = d2b_btf__add_array(btf, i_uchar, i_int, 16);			/* 12 */
	SAMPLE_TRY(i_arr);
	i_s = d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "s", 24);		/* 13 */
	SAMPLE_TRY(i_s);
	SAMPLE_TRY(d2b_btf__add_member(btf, "a", i_int, 0, 0));
	SAMPLE_TRY(d2b_btf__add_member(btf, "b", i_int, 32, 3));
	SAMPLE_TRY(d2b_btf__add_member(btf, NULL, i_int, 35, 29));
	SAMPLE_TRY(d2b_btf__add_member(btf, "buf", i_arr, 64, 0));
	i_u = d2b_btf__add_composite(btf, D2B_KIND_UNION, NULL, 8);		/* 14 */
	SAMPLE_TRY(i_u);
	SAMPLE_TRY(d2b_btf__add_member(btf, "x", i_int, 0, 0));
	SAMPLE_TRY(d2b_btf__add_member(btf, "p", i_ptr, 0, 0));
	SAMPLE_TRY(d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "empty", 0));	/* 15 */
	SAMPLE_TRY(d2b_btf__add_enum(btf, "e_unsigned", 4, false));		/* 16 */
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "U0", 0));
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "UMAX", 0xffffffffu));
	SAMPLE_TRY(d2b_btf__add_enum(btf, NULL, 1, true));				/* 17 */
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "SNEG", -128));
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "SPOS", 127));
	SAMPLE_TRY(d2b_btf__add_enum64(btf, "e64_unsigned", 8, false));		/* 18 */
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "BIG", (int64_t)0xfedcba9876543210ull));
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "SMALL", 1));
	SAMPLE_TRY(d2b_btf__add_enum64(btf, "e64_signed", 8, true));		/* 19 */
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "NEG", INT64_MIN));
	SAMPLE_TRY(d2b_btf__add_enum_value(btf, "POS", INT64_MAX));
	i_fwd = d2b_btf__add_fwd(btf, "fwd_s", false);				/* 20 */
	SAMPLE_TRY(i_fwd);
	SAMPLE_TRY(d2b_btf__add_fwd(btf, "fwd_u", true));				/* 21 */
	i_proto = d2b_btf__add_func_proto(btf, i_int);				/* 22 */
	SAMPLE_TRY(i_proto);
	SAMPLE_TRY(d2b_btf__add_param(btf, "a", i_int));
	SAMPLE_TRY(d2b_btf__add_param(btf, "p", i_ptr));
	SAMPLE_TRY(d2b_btf__add_param(btf, NULL, 0));
	SAMPLE_TRY(d2b_btf__add_func_proto(btf, 0));					/* 23 */
	i_func = d2b_btf__add_func(btf, "f_global", D2B_LINKAGE_GLOBAL, i_proto);	/* 24 */
	SAMPLE_TRY(i_func);
	SAMPLE_TRY(d2b_btf__add_func(btf, "f_static", D2B_LINKAGE_STATIC, 23));	/* 25 */
	SAMPLE_TRY(d2b_btf__add_func(btf, "f_extern", D2B_LINKAGE_EXTERN, 23));	/* 26 */
	SAMPLE_TRY(sample_raw(btf, "f_odd", d2b_info(D2B_KIND_FUNC, false, 7), 23, 0)); /* 27 */
	i_var = d2b_btf__add_var(btf, "v_global", D2B_LINKAGE_GLOBAL, i_int);	/* 28 */
	SAMPLE_TRY(i_var);
	SAMPLE_TRY(d2b_btf__add_var(btf, "v_static", D2B_LINKAGE_STATIC, i_s));	/* 29 */
	SAMPLE_TRY(d2b_btf__add_var(btf, "v_extern", D2B_LINKAGE_EXTERN, i_int));	/* 30 */
	SAMPLE_TRY(sample_raw(btf, "v_odd", d2b_info(D2B_KIND_VAR, false, 0), i_int, 9)); /* 31 */
	SAMPLE_TRY(d2b_btf__add_datasec(btf, ".data", 64));			/* 32 */
	SAMPLE_TRY(d2b_btf__add_datasec_var(btf, i_var, 0, 4));
	SAMPLE_TRY(d2b_btf__add_datasec_var(btf, 29, 8, 24));
	SAMPLE_TRY(d2b_btf__add_datasec_var(btf, i_int, 32, 4));	/* not a VAR: still printed */
	SAMPLE_TRY(d2b_btf__add_datasec_var(btf, 0, 36, 0));
	SAMPLE_TRY(d2b_btf__add_datasec(btf, ".bss..empty", 0));			/* 33 */
	i_flt = d2b_btf__add_float(btf, "double", 8);				/* 34 */
	SAMPLE_TRY(i_flt);
	SAMPLE_TRY(d2b_btf__add_float(btf, "long double", 16));			/* 35 */
	SAMPLE_TRY(d2b_btf__add_decl_tag(btf, "tag_struct", i_s, -1));		/* 36 */
	SAMPLE_TRY(d2b_btf__add_decl_tag(btf, "tag_member", i_s, 2));		/* 37 */
	SAMPLE_TRY(d2b_btf__add_decl_tag(btf, "tag_param", i_func, 0));		/* 38 */
	SAMPLE_TRY(d2b_btf__add_decl_tag(btf, "tag_var", i_var, -1));		/* 39 */
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, i_fwd));		/* 40 */
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, 0));			/* 41 */
	/* a name with characters the dump must print verbatim */
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, "weird name%s\\'", i_int)); /* 42 */
	SAMPLE_TRY(d2b_btf__add_float(btf, "float", 4));				/* 43 */
	return 0;
}

enum { SAMPLE_ALL_KINDS_NR = 43 };

/* A small base: what a vmlinux would hold. */
static inline int sample_base(struct d2b_btf *btf)
{
	SAMPLE_TRY(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED));		/* 1 */
	SAMPLE_TRY(d2b_btf__add_int(btf, "long unsigned int", 8, 0));		/* 2 */
	SAMPLE_TRY(d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "list_head", 16)); /* 3 */
	SAMPLE_TRY(d2b_btf__add_member(btf, "next", 4, 0, 0));
	SAMPLE_TRY(d2b_btf__add_member(btf, "prev", 4, 64, 0));
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, 3));			/* 4 */
	SAMPLE_TRY(d2b_btf__add_var(btf, "jiffies", D2B_LINKAGE_GLOBAL, 2));	/* 5 */
	return 0;
}

/* A split BTF over sample_base(): a module.  Reuses base names and types. */
static inline int sample_split(struct d2b_btf *btf)
{
	uint32_t s = d2b_btf__start_id(btf);

	SAMPLE_TRY(d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "mod_state", 24)); /* s */
	SAMPLE_TRY(d2b_btf__add_member(btf, "list_head", 3, 0, 0));	/* base name reused */
	SAMPLE_TRY(d2b_btf__add_member(btf, "count", 1, 128, 0));
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, s));			/* s+1 */
	SAMPLE_TRY(d2b_btf__add_var(btf, "mod_var", D2B_LINKAGE_STATIC, s));	/* s+2 */
	SAMPLE_TRY(d2b_btf__add_datasec(btf, ".data", 32));			/* s+3 */
	SAMPLE_TRY(d2b_btf__add_datasec_var(btf, s + 2, 0, 24));
	SAMPLE_TRY(d2b_btf__add_datasec_var(btf, 5, 24, 8));	/* a base VAR */
	return 0;
}

/* A split BTF with no strings of its own: an empty string section. */
static inline int sample_split_nostr(struct d2b_btf *btf)
{
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, 1));
	SAMPLE_TRY(d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, "int", 1));	/* base string */
	return 0;
}

/* A LOC_PARAM of n (1 to 3) values */
static inline int sample_loc_param(struct d2b_btf *btf, uint32_t size, uint32_t flags,
				   uint32_t v0, uint32_t v1, uint32_t v2, unsigned int n)
{
	const uint32_t v[3] = { v0, v1, v2 };

	return d2b_btf__add_loc_param(btf, size, flags, v, n);
}

/*
 * The bpf tree's inline sites: first its selftest's mk_loc_btf()
 * (bpftool_btf_dump, loc_dump: [1]..[11], a LOC_PROTO of six for a FUNC
 * of five, which only dumps), then every other form of LOC_PARAM, a
 * LOC_PROTO of none, and a second LOCSEC of two sites.
 */
static inline int sample_loc(struct d2b_btf *btf)
{
	enum { R = D2B_LOC_PARAM_REG, D = D2B_LOC_PARAM_DEREF, O = D2B_LOC_PARAM_OFFSET,
	       S = D2B_LOC_PARAM_SIGNED, C = D2B_LOC_PARAM_CONST, A = D2B_LOC_PARAM_ADDR };
	const uint32_t fb = D2B_LOC_PARAM_FBREG;
	int i, proto;

	SAMPLE_TRY(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED));			/* 1 */
	SAMPLE_TRY(d2b_btf__add_func_proto(btf, 1));					/* 2 */
	for (i = 1; i <= 5; i++)
		SAMPLE_TRY(d2b_btf__add_param(btf, i == 1 ? "arg1" : i == 2 ? "arg2" :
					      i == 3 ? "arg3" : i == 4 ? "arg4" : "arg5", 1));
	SAMPLE_TRY(d2b_btf__add_func(btf, "foo", D2B_LINKAGE_STATIC, 2));		/* 3 */
	SAMPLE_TRY(sample_loc_param(btf, 4, R, 1, 0, 0, 1));				/* 4 */
	SAMPLE_TRY(sample_loc_param(btf, 8, R | D | O, 2, 0x10, 0, 2));			/* 5 */
	SAMPLE_TRY(sample_loc_param(btf, 8, R | O | S, fb, (uint32_t)-0x10, 0, 2));	/* 6 */
	SAMPLE_TRY(sample_loc_param(btf, 8, A | C, 0x9abcdef0, 0x12345678, 0, 2));	/* 7 */
	SAMPLE_TRY(sample_loc_param(btf, 8, C, 0xfeedface, 0xdeadbeef, 0, 2));		/* 8 */
	SAMPLE_TRY(sample_loc_param(btf, 8, R | D | O | S, fb, (uint32_t)-0x20, 0, 2));	/* 9 */
	SAMPLE_TRY(d2b_btf__add_loc_proto(btf));					/* 10 */
	for (i = 4; i <= 9; i++)
		SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, (uint32_t)i));
	SAMPLE_TRY(d2b_btf__add_locsec(btf, "inline.text"));				/* 11 */
	SAMPLE_TRY(d2b_btf__add_locsec_loc(btf, 3, 10, 64));
	SAMPLE_TRY(sample_loc_param(btf, 16, R, 0, 1, 0, 2));				/* 12 */
	SAMPLE_TRY(sample_loc_param(btf, 8, R | D, 6, 0, 0, 1));			/* 13 */
	SAMPLE_TRY(sample_loc_param(btf, 8, R | O, 7, 8, 0, 2));			/* 14 */
	SAMPLE_TRY(sample_loc_param(btf, 8, R | O | S, 7, (uint32_t)-8, ~0u, 3));	/* 15 */
	SAMPLE_TRY(sample_loc_param(btf, 4, C | S, (uint32_t)-2, 0, 0, 1));		/* 16 */
	SAMPLE_TRY(sample_loc_param(btf, 4, C | A, 0x1000, 0, 0, 1));			/* 17 */
	proto = d2b_btf__add_loc_proto(btf);						/* 18 */
	SAMPLE_TRY(proto);
	for (i = 12; i <= 17; i++)
		SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, i == 14 ? 0 : (uint32_t)i));
	SAMPLE_TRY(d2b_btf__add_loc_proto(btf));					/* 19 */
	SAMPLE_TRY(d2b_btf__add_locsec(btf, ".init.text"));				/* 20 */
	SAMPLE_TRY(d2b_btf__add_locsec_loc(btf, 3, (uint32_t)proto, 0));
	SAMPLE_TRY(d2b_btf__add_locsec_loc(btf, 3, 10, 0x1234));
	return 0;
}

/* Inline sites as split BTF over sample_loc() (.BTF.inline over .BTF): a
 * site of the base's FUNC foo, with a base LOC_PARAM and one of its own. */
static inline int sample_split_loc(struct d2b_btf *btf)
{
	uint32_t s = d2b_btf__start_id(btf);

	SAMPLE_TRY(sample_loc_param(btf, 4, D2B_LOC_PARAM_REG, 3, 0, 0, 1));		/* s */
	SAMPLE_TRY(d2b_btf__add_loc_proto(btf));					/* s+1 */
	SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, s));
	SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, 4));
	SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, 0));
	SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, 0));
	SAMPLE_TRY(d2b_btf__add_loc_proto_param(btf, 0));
	SAMPLE_TRY(d2b_btf__add_locsec(btf, "inline.text"));				/* s+2 */
	SAMPLE_TRY(d2b_btf__add_locsec_loc(btf, 3, s + 1, 256));
	return 0;
}

#undef SAMPLE_TRY

#endif
