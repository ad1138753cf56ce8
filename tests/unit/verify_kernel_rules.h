/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The rules test_verify_kernel.c holds the verifier and the kernel to: one
 * row per rule, whose builder writes a raw BTF blob word by word, keeping
 * the rule (bad = false) or breaking it.  Written word by word, not with
 * the library's builder, so that a broken rule the builder would refuse
 * can still be written.  A row says what the kernel does with the broken
 * blob: refuses it as the verifier does, or accepts it where the verifier
 * is stricter on purpose, or depends on its version (the reason is given).
 */
#ifndef D2B_VERIFY_KERNEL_RULES_H
#define D2B_VERIFY_KERNEL_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf2btf.h"

enum { MAX_WORDS = 4096, MAX_STR = 8192 };

/* ---- blobs, word by word ---- */

struct blob {
	uint32_t w[MAX_WORDS];
	unsigned int nw;
	char s[MAX_STR];
	unsigned int ns;
	uint32_t ntypes;
};

static void blob_init(struct blob *b)
{
	b->nw = 0;
	b->ns = 1;
	b->s[0] = 0;
	b->ntypes = 0;
}

static uint32_t str(struct blob *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = b->ns;

	if (!*s)
		return 0;
	if (b->ns + n > sizeof(b->s))
		abort();
	memcpy(b->s + b->ns, s, n);
	b->ns += (unsigned int)n;
	return off;
}

static void word(struct blob *b, uint32_t w)
{
	if (b->nw == MAX_WORDS)
		abort();
	b->w[b->nw++] = w;
}

/* A type's first three words; returns its ID */
static uint32_t type(struct blob *b, const char *name, unsigned int kind, bool kflag,
		     unsigned int vlen, uint32_t size_or_type)
{
	word(b, str(b, name));
	word(b, d2b_info(kind, kflag, vlen));
	word(b, size_or_type);
	return ++b->ntypes;
}

static uint32_t t_int(struct blob *b, const char *name, uint32_t size, uint32_t enc, uint32_t off,
		      uint32_t bits)
{
	uint32_t id = type(b, name, D2B_KIND_INT, false, 0, size);

	word(b, enc << 24 | off << 16 | bits);
	return id;
}

static void member(struct blob *b, const char *name, uint32_t type_id, uint32_t off)
{
	word(b, str(b, name));
	word(b, type_id);
	word(b, off);
}

static uint32_t t_array(struct blob *b, uint32_t elem, uint32_t index, uint32_t n)
{
	uint32_t id = type(b, "", D2B_KIND_ARRAY, false, 0, 0);

	word(b, elem);
	word(b, index);
	word(b, n);
	return id;
}

static uint32_t t_var(struct blob *b, const char *name, uint32_t type_id, uint32_t linkage)
{
	uint32_t id = type(b, name, D2B_KIND_VAR, false, 0, type_id);

	word(b, linkage);
	return id;
}

/* header + types + strings, in the host's byte order; malloc()ed */
static void *blob_encode(const struct blob *b, size_t *size)
{
	struct d2b_header h = {
		.magic = D2B_BTF_MAGIC, .version = D2B_BTF_VERSION, .hdr_len = sizeof(h),
		.type_off = 0, .type_len = b->nw * 4, .str_off = b->nw * 4, .str_len = b->ns,
	};
	uint8_t *p;

	*size = sizeof(h) + h.type_len + h.str_len;
	p = malloc(*size);
	if (!p)
		abort();
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), b->w, h.type_len);
	memcpy(p + sizeof(h) + h.type_len, b->s, h.str_len);
	return p;
}

/* ---- the table: each builder keeps its rule (bad = false) or breaks it ---- */

static void r_int_kflag(struct blob *b, bool bad)
{
	word(b, str(b, "int"));
	word(b, d2b_info(D2B_KIND_INT, bad, 0));
	word(b, 4);
	word(b, D2B_INT_SIGNED << 24 | 32);
	b->ntypes++;
}

static void r_int_vlen(struct blob *b, bool bad)
{
	word(b, str(b, "int"));
	word(b, d2b_info(D2B_KIND_INT, false, bad));
	word(b, 4);
	word(b, 32);
	b->ntypes++;
}

static void r_int_word(struct blob *b, bool bad)
{
	t_int(b, "int", 4, bad ? 0x10 : 1, 0, 32);	/* encoding bits past BTF_INT_MASK */
}

static void r_int_bits(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 0, bad ? 1 : 0, 32);
}

static void r_int_encoding(struct blob *b, bool bad)
{
	t_int(b, "int", 4, bad ? D2B_INT_SIGNED | D2B_INT_CHAR : D2B_INT_CHAR, 0, 32);
}

static void r_int_size(struct blob *b, bool bad)
{
	t_int(b, "int", bad ? 32 : 16, 0, 0, 128);
}

static void r_ptr_name(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, bad ? "p" : "", D2B_KIND_PTR, false, 0, 1);
}

static void r_const_kflag(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_CONST, bad, 0, 1);
}

static void r_volatile_vlen(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_VOLATILE, false, bad ? 2 : 0, 1);
}

static void r_typedef_name(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, bad ? "1t" : "t.1", D2B_KIND_TYPEDEF, false, 0, 1);
}

static void r_typedef_missing(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "t", D2B_KIND_TYPEDEF, false, 0, bad ? 7 : 1);
}

static void r_fwd_type(struct blob *b, bool bad)
{
	type(b, "s", D2B_KIND_FWD, false, 0, bad);
}

static void r_fwd_name(struct blob *b, bool bad)
{
	type(b, bad ? "" : "s", D2B_KIND_FWD, true, 0, 0);
}

static void r_array_size(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_ARRAY, false, 0, bad ? 4 : 0);
	word(b, 1);
	word(b, 1);
	word(b, 4);
}

static void r_array_index(struct blob *b, bool bad)
{
	/* a typedef of a regular INT is an index; an INT of 3 bits is not */
	t_int(b, "int", 4, 1, 0, 32);
	t_int(b, "odd", 1, 0, 0, 3);
	type(b, "idx", D2B_KIND_TYPEDEF, false, 0, 1);
	t_array(b, 1, bad ? 2 : 3, 4);
}

static void r_array_elem_int(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_int(b, "odd", 1, 0, 0, bad ? 3 : 8);
	t_array(b, 2, 1, 4);
}

static void r_array_4g(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_array(b, 1, 1, bad ? 0x40000000 : 0x3fffffff);
}

static void r_array_elem_fwd(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "s", D2B_KIND_FWD, false, 0, 0);
	t_array(b, bad ? 2 : 1, 1, 4);
}

/* through a modifier to void (a mutant: the ARRAY of a damaged array's
 * const element type) */
static void r_array_elem_const_void(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_CONST, false, 0, bad ? 0 : 1);
	t_array(b, 2, 1, 4);
}

static void r_struct_name(struct blob *b, bool bad)
{
	type(b, bad ? "s-1" : "s.1", D2B_KIND_STRUCT, false, 0, 0);
}

/* A name offset other than 0 at an empty string (the NUL ending "x"):
 * the kernel checks the name there, and "" is no identifier */
static void r_struct_name_empty(struct blob *b, bool bad)
{
	uint32_t x = str(b, "x");

	word(b, bad ? x + 1 : 0);
	word(b, d2b_info(D2B_KIND_STRUCT, false, 0));
	word(b, 0);
	b->ntypes++;
}

static void r_ptr_name_empty(struct blob *b, bool bad)
{
	uint32_t x = str(b, "x");

	t_int(b, "int", 4, 1, 0, 32);
	word(b, bad ? x + 1 : 0);
	word(b, d2b_info(D2B_KIND_PTR, false, 0));
	word(b, 1);
	b->ntypes++;
}

static void r_member_name(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 4);
	member(b, bad ? "9a" : "a", 1, 0);
}

static void r_member_order(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "s", D2B_KIND_STRUCT, false, 2, 8);
	member(b, "a", 1, bad ? 32 : 0);
	member(b, "b", 1, bad ? 0 : 32);
}

static void r_union_offset(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "u", D2B_KIND_UNION, false, 1, 8);
	member(b, "a", 1, bad ? 32 : 0);
}

static void r_member_past_end(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "s", D2B_KIND_STRUCT, false, 1, bad ? 7 : 8);
	member(b, "a", 1, 32);
}

/* BTF's first bitfield encoding: the member's INT holds its own bit offset */
static void r_member_int_offset(struct blob *b, bool bad)
{
	t_int(b, "bf", 4, 0, 24, 8);
	type(b, "s", D2B_KIND_STRUCT, false, 1, bad ? 3 : 4);
	member(b, "a", 1, 0);
}

static void r_member_int_128(struct blob *b, bool bad)
{
	t_int(b, "i128", 16, 0, 0, 128);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 32);
	member(b, "a", 1, bad ? 4 : 0);
}

/* kind_flag: a bitfield over an ARRAY (finding bitfield-size-1.o) */
static void r_bitfield_array(struct blob *b, bool bad)
{
	t_int(b, "unsigned char", 1, 0, 0, 8);
	t_int(b, "int", 4, 1, 0, 32);
	t_array(b, 1, 2, 4);
	type(b, "flags", D2B_KIND_STRUCT, true, 1, 8);
	member(b, "a", bad ? 3 : 1, 1u << 24);
}

/* kind_flag: a bitfield wider than its INT (finding bitfield-size-40.o) */
static void r_bitfield_width(struct blob *b, bool bad)
{
	t_int(b, "unsigned int", 4, 0, 0, 32);
	type(b, "flags", D2B_KIND_STRUCT, true, 1, 8);
	member(b, "g", 1, (bad ? 40u : 32u) << 24 | 20);
}

static void r_bitfield_irregular(struct blob *b, bool bad)
{
	t_int(b, "odd", 4, 0, 0, bad ? 31 : 32);
	type(b, "s", D2B_KIND_STRUCT, true, 1, 4);
	member(b, "a", 1, 3u << 24);
}

static void r_bitfield_ptr(struct blob *b, bool bad)
{
	t_int(b, "long", 8, 1, 0, 64);
	type(b, "", D2B_KIND_PTR, false, 0, 1);
	type(b, "s", D2B_KIND_STRUCT, true, 1, 8);
	member(b, "p", 2, bad ? 8u << 24 : 0);
}

static void r_bitfield_typedef(struct blob *b, bool bad)
{
	/* through a typedef, as the type it names */
	t_int(b, "unsigned int", 4, 0, 0, 32);
	type(b, "u32", D2B_KIND_TYPEDEF, false, 0, 1);
	type(b, "s", D2B_KIND_STRUCT, true, 1, 8);
	member(b, "a", 2, (bad ? 33u : 5u) << 24 | 40);
}

static void r_bitfield_enum(struct blob *b, bool bad)
{
	type(b, "e", D2B_KIND_ENUM, false, 1, 8);
	word(b, str(b, "E"));
	word(b, 0);
	type(b, "s", D2B_KIND_STRUCT, true, 1, 8);
	member(b, "a", 1, (bad ? 33u : 32u) << 24);
}

static void r_enum_kflag_member(struct blob *b, bool bad)
{
	/* not a bitfield: counts 32 bits, whatever its size */
	type(b, "e", D2B_KIND_ENUM, false, 1, 1);
	word(b, str(b, "E"));
	word(b, 0);
	type(b, "s", D2B_KIND_STRUCT, true, 1, bad ? 2 : 4);
	member(b, "a", 1, 0);
}

static void r_float_member(struct blob *b, bool bad)
{
	type(b, "double", D2B_KIND_FLOAT, false, 0, 8);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 16);
	member(b, "d", 1, bad ? 32 : 64);
}

static void r_ptr_member(struct blob *b, bool bad)
{
	t_int(b, "long", 8, 1, 0, 64);
	type(b, "", D2B_KIND_PTR, false, 0, 1);
	type(b, "s", D2B_KIND_STRUCT, false, 1, bad ? 12 : 16);
	member(b, "p", 2, 64);
}

static void r_member_fwd(struct blob *b, bool bad)
{
	type(b, "f", D2B_KIND_FWD, false, 0, 0);
	type(b, "", D2B_KIND_PTR, false, 0, 1);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 8);
	member(b, "a", bad ? 1 : 2, 0);
}

static void r_struct_loop(struct blob *b, bool bad)
{
	/* a struct holding itself; through a pointer it is a list */
	type(b, "", D2B_KIND_PTR, false, 0, 2);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 8);
	member(b, "next", bad ? 2 : 1, 0);
}

static void r_ptr_loop(struct blob *b, bool bad)
{
	/* pointers and modifiers only: a loop; through a struct: fine */
	type(b, "", D2B_KIND_PTR, false, 0, 2);
	type(b, "", D2B_KIND_CONST, false, 0, bad ? 1 : 3);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 8);
	member(b, "p", 1, 0);
}

/* 33 structs each holding the next: resolved outside-in, the kernel's
 * stack of 32 overflows; inside-out (the inner ones first), it does not */
static void r_nest_depth(struct blob *b, bool bad)
{
	uint32_t i, n = 33;

	t_int(b, "int", 4, 1, 0, 32);
	for (i = 0; i < n; i++) {
		type(b, "", D2B_KIND_STRUCT, false, 1, 4);
		if (bad)	/* [2] holds [3] ... holds the int */
			member(b, "m", i + 1 == n ? 1 : b->ntypes + 1, 0);
		else		/* [2] holds the int, [3] holds [2] ... */
			member(b, "m", i == 0 ? 1 : b->ntypes - 1, 0);
	}
}

static void r_type_tag_order(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	if (bad) {
		type(b, "", D2B_KIND_CONST, false, 0, 3);
		type(b, "user", D2B_KIND_TYPE_TAG, false, 0, 1);
		type(b, "", D2B_KIND_PTR, false, 0, 2);
	} else {
		type(b, "user", D2B_KIND_TYPE_TAG, false, 0, 3);
		type(b, "", D2B_KIND_CONST, false, 0, 1);
		type(b, "", D2B_KIND_PTR, false, 0, 2);
	}
}

/* the kernel walks a chain up to a type of a lower ID (checked before):
 * the IDs grow along this one, so it walks all of it */
static void r_modifier_chain(struct blob *b, bool bad)
{
	uint32_t i, n = bad ? 33 : 32;

	for (i = 0; i < n; i++)
		type(b, "", D2B_KIND_CONST, false, 0, b->ntypes + 2);
	t_int(b, "int", 4, 1, 0, 32);
}

static void r_enum_size(struct blob *b, bool bad)
{
	type(b, "e", D2B_KIND_ENUM, false, 1, bad ? 3 : 2);
	word(b, str(b, "E"));
	word(b, 0);
}

static void r_enumerator_name(struct blob *b, bool bad)
{
	type(b, "e", D2B_KIND_ENUM64, true, 1, 8);
	word(b, str(b, bad ? "" : "E"));
	word(b, 1);
	word(b, 0);
}

static void r_func_proto_kflag(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, bad, 1, 1);
	word(b, 0);
	word(b, 0);	/* ... */
}

static void r_param_name(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 1, 1);
	word(b, str(b, bad ? "a b" : "a"));
	word(b, 1);
}

static void r_param_void(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 2, 1);
	word(b, 0);
	word(b, bad ? 0 : 1);
	word(b, 0);
	word(b, 1);
}

static void r_return_fwd(struct blob *b, bool bad)
{
	type(b, "s", D2B_KIND_FWD, false, 0, 0);
	type(b, "", D2B_KIND_PTR, false, 0, 1);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 0, bad ? 1 : 2);
}

/* A pointer to a FUNC, not to its FUNC_PROTO: the kernel refuses it when
 * the FUNC comes after the pointer, and takes it when the FUNC, resolved
 * before, stands for its FUNC_PROTO */
static void r_ptr_to_func(struct blob *b, bool bad, bool func_first)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 0, 1);
	if (func_first)
		type(b, "f", D2B_KIND_FUNC, false, 0, 2);
	type(b, "", D2B_KIND_PTR, false, 0, bad ? (func_first ? 3 : 4) : 2);
	if (!func_first)
		type(b, "f", D2B_KIND_FUNC, false, 0, 2);
}

static void r_ptr_to_later_func(struct blob *b, bool bad) { r_ptr_to_func(b, bad, false); }
static void r_ptr_to_earlier_func(struct blob *b, bool bad) { r_ptr_to_func(b, bad, true); }

static void r_func_linkage(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 0, 1);
	type(b, "f", D2B_KIND_FUNC, false, bad ? D2B_LINKAGE_EXTERN : D2B_LINKAGE_GLOBAL, 2);
}

static void r_func_kflag(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 0, 1);
	type(b, "f", D2B_KIND_FUNC, bad, 0, 2);
}

static void r_func_unnamed_param(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 1, 1);
	word(b, str(b, bad ? "" : "x"));
	word(b, 1);
	type(b, "f", D2B_KIND_FUNC, false, 0, 2);
}

static void r_func_proto_target(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 0, 1);
	type(b, "f", D2B_KIND_FUNC, false, 0, bad ? 1 : 2);
}

static void r_var_name_digit(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, bad ? "16_t" : "v.16_t", 1, 0);
}

static void r_var_name_backtick(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, bad ? "`wide" : "wide", 1, 0);
}

static void r_var_linkage(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, bad ? 2 : 1);
}

static void r_var_kflag(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "v", D2B_KIND_VAR, bad, 0, 1);
	word(b, 0);
}

static void r_var_type(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "", D2B_KIND_FUNC_PROTO, false, 0, 1);
	t_var(b, "v", bad ? 2 : 1, 0);
}

static void datasec(struct blob *b, const char *name, bool kflag, uint32_t size, uint32_t var,
		    uint32_t off, uint32_t vsize)
{
	type(b, name, D2B_KIND_DATASEC, kflag, 1, size);
	word(b, var);
	word(b, off);
	word(b, vsize);
}

static void r_datasec_name(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	datasec(b, bad ? "" : ".note.ABI-tag", false, 4, 2, 0, 4);
}

static void r_datasec_kflag(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	datasec(b, ".data", bad, 4, 2, 0, 4);
}

static void r_datasec_entry(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	datasec(b, ".data", false, 8, 2, bad ? 6 : 4, 4);
}

static void r_datasec_var_size(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	datasec(b, ".data", false, 8, 2, 0, bad ? 2 : 4);
}

/* The VAR after its DATASEC: the kernel resolves it first and does not
 * compare that entry's size (btf_datasec_resolve() goes on at the next),
 * unless something with a lower ID resolved it before: a DECL_TAG on it */
static void r_datasec_var_after_tagged(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "tag", D2B_KIND_DECL_TAG, false, 0, 4);
	word(b, (uint32_t)-1);
	datasec(b, ".data", false, 8, 4, 0, bad ? 2 : 4);
	t_var(b, "v", 1, 1);
}

/* ... or an earlier entry of the same DATASEC: the second is compared */
static void r_datasec_var_after_twice(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, ".data", D2B_KIND_DATASEC, false, 2, 8);
	word(b, 3);
	word(b, 0);
	word(b, 4);
	word(b, 3);
	word(b, 4);
	word(b, bad ? 2 : 4);
	t_var(b, "v", 1, 1);
}

static void r_datasec_not_var(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	datasec(b, ".data", false, 8, bad ? 1 : 2, 0, 4);
}

static void r_float_size(struct blob *b, bool bad)
{
	type(b, "f", D2B_KIND_FLOAT, false, 0, bad ? 6 : 12);
}

static void r_float_kflag(struct blob *b, bool bad)
{
	type(b, "f", D2B_KIND_FLOAT, bad, 0, 4);
}

static void r_decl_tag_target(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "t", D2B_KIND_TYPEDEF, false, 0, 1);
	type(b, "tag", D2B_KIND_DECL_TAG, false, 0, bad ? 1 : 2);
	word(b, (uint32_t)-1);
}

static void r_decl_tag_component(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "s", D2B_KIND_STRUCT, false, 1, 4);
	member(b, "a", 1, 0);
	type(b, "tag", D2B_KIND_DECL_TAG, false, 0, 2);
	word(b, bad ? 1 : 0);
}

static void r_decl_tag_vlen(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	type(b, "tag", D2B_KIND_DECL_TAG, false, bad, 2);
	word(b, (uint32_t)-1);
}

static void r_info_bits(struct blob *b, bool bad)
{
	word(b, str(b, "int"));
	word(b, d2b_info(D2B_KIND_INT, false, 0) | (bad ? 1u << 16 : 0));
	word(b, 4);
	word(b, 32);
	b->ntypes++;
}

/*
 * The bpf tree's inline-site kinds, which every 6.x kernel refuses (kind
 * past BTF_KIND_MAX), and so does the verifier unless told the BTF is for
 * that tree (D2B_VERIFY_LOC_KINDS; their own rules: test_verify.c and
 * test_verify_loc.c, no kernel here loads them).  int foo(int a), then the
 * kind: a LOC_PARAM (reg5), a LOC_PROTO of it, a LOCSEC of foo's site.
 */
static void loc_kinds(struct blob *b, bool bad, unsigned int upto)
{
	uint32_t i = t_int(b, "int", 4, 1, 0, 32), p, f, lp, proto;

	p = type(b, "", D2B_KIND_FUNC_PROTO, false, 1, i);
	word(b, str(b, "a"));
	word(b, i);
	f = type(b, "foo", D2B_KIND_FUNC, false, D2B_LINKAGE_STATIC, p);
	if (!bad)
		return;
	lp = type(b, "", D2B_KIND_LOC_PARAM, false, 1, 4);
	word(b, D2B_LOC_PARAM_REG);
	word(b, 5);
	if (upto == D2B_KIND_LOC_PARAM)
		return;
	proto = type(b, "", D2B_KIND_LOC_PROTO, false, 1, 0);
	word(b, lp);
	if (upto == D2B_KIND_LOC_PROTO)
		return;
	type(b, "inline.text", D2B_KIND_LOCSEC, false, 1, 0);
	word(b, f);
	word(b, proto);
	word(b, 64);
}

static void r_loc_param(struct blob *b, bool bad) { loc_kinds(b, bad, D2B_KIND_LOC_PARAM); }
static void r_loc_proto(struct blob *b, bool bad) { loc_kinds(b, bad, D2B_KIND_LOC_PROTO); }
static void r_locsec(struct blob *b, bool bad) { loc_kinds(b, bad, D2B_KIND_LOCSEC); }

static void r_empty(struct blob *b, bool bad)
{
	if (!bad)
		t_int(b, "int", 4, 1, 0, 32);
}

static void r_name_long(struct blob *b, bool bad)
{
	char name[600];

	memset(name, 'a', sizeof(name));
	name[bad ? 512 : 510] = 0;
	type(b, name, D2B_KIND_STRUCT, false, 0, 0);
}

static void r_name_latin1(struct blob *b, bool bad)
{
	type(b, bad ? "caf\xe9" : "cafe", D2B_KIND_STRUCT, false, 0, 0);
}

static void r_datasec_blank(struct blob *b, bool bad)
{
	t_int(b, "int", 4, 1, 0, 32);
	t_var(b, "v", 1, 1);
	datasec(b, bad ? ".data x" : ".data.x", false, 4, 2, 0, 4);
}

static void r_tag_kflag(struct blob *b, bool bad)
{
	/* attributes: btf_type_tag kind_flag, decl_tag kind_flag */
	t_int(b, "int", 4, 1, 0, 32);
	type(b, "address_space(1)", D2B_KIND_TYPE_TAG, bad, 0, 1);
	type(b, "", D2B_KIND_PTR, false, 0, 2);
	t_var(b, "v", 3, 1);
	type(b, "aligned(8)", D2B_KIND_DECL_TAG, bad, 0, 4);
	word(b, (uint32_t)-1);
}

enum kernel_says {
	REFUSES,	/* the broken blob: both refuse */
	ACCEPTS,	/* the verifier is stricter on purpose (why says why) */
	NEWER_ACCEPT,	/* older kernels refuse, this one may accept */
	OLDER_REFUSE,	/* the verifier accepts; older kernels refuse */
};

struct rule {
	const char *name;
	void (*build)(struct blob *b, bool bad);
	enum kernel_says kernel;
	const char *why;	/* ACCEPTS, NEWER_ACCEPT, OLDER_REFUSE: the reason */
};

static const struct rule rules[] = {
	{ "int/kflag", r_int_kflag, REFUSES, NULL },
	{ "int/vlen", r_int_vlen, REFUSES, NULL },
	{ "int/unused_bits", r_int_word, REFUSES, NULL },
	{ "int/bits_past_size", r_int_bits, REFUSES, NULL },
	{ "int/two_encodings", r_int_encoding, REFUSES, NULL },
	{ "int/size_over_16", r_int_size, ACCEPTS,
	  "no C integer is wider than 16 bytes: damage, not a type" },
	{ "ptr/name", r_ptr_name, REFUSES, NULL },
	{ "const/kflag", r_const_kflag, REFUSES, NULL },
	{ "volatile/vlen", r_volatile_vlen, REFUSES, NULL },
	{ "typedef/name", r_typedef_name, REFUSES, NULL },
	{ "typedef/missing_type", r_typedef_missing, REFUSES, NULL },
	{ "fwd/type", r_fwd_type, REFUSES, NULL },
	{ "fwd/name", r_fwd_name, REFUSES, NULL },
	{ "array/size_field", r_array_size, REFUSES, NULL },
	{ "array/index", r_array_index, REFUSES, NULL },
	{ "array/elem_irregular_int", r_array_elem_int, REFUSES, NULL },
	{ "array/over_4g", r_array_4g, REFUSES, NULL },
	{ "array/elem_fwd", r_array_elem_fwd, REFUSES, NULL },
	{ "array/elem_const_void", r_array_elem_const_void, REFUSES, NULL },
	{ "struct/name", r_struct_name, REFUSES, NULL },
	{ "struct/name_offset_at_empty_string", r_struct_name_empty, REFUSES, NULL },
	{ "ptr/name_offset_at_empty_string", r_ptr_name_empty, REFUSES, NULL },
	{ "member/name", r_member_name, REFUSES, NULL },
	{ "member/order", r_member_order, REFUSES, NULL },
	{ "member/union_offset", r_union_offset, REFUSES, NULL },
	{ "member/past_end", r_member_past_end, REFUSES, NULL },
	{ "member/int_own_offset", r_member_int_offset, REFUSES, NULL },
	{ "member/int_128_bits", r_member_int_128, REFUSES, NULL },
	{ "member/bitfield_of_array", r_bitfield_array, REFUSES, NULL },
	{ "member/bitfield_wider_than_int", r_bitfield_width, REFUSES, NULL },
	{ "member/bitfield_irregular_int", r_bitfield_irregular, REFUSES, NULL },
	{ "member/bitfield_of_ptr", r_bitfield_ptr, REFUSES, NULL },
	{ "member/bitfield_through_typedef", r_bitfield_typedef, REFUSES, NULL },
	{ "member/bitfield_of_enum", r_bitfield_enum, REFUSES, NULL },
	{ "member/kflag_enum_32_bits", r_enum_kflag_member, REFUSES, NULL },
	{ "member/float_alignment", r_float_member, REFUSES, NULL },
	{ "member/ptr_size", r_ptr_member, REFUSES, NULL },
	{ "member/fwd", r_member_fwd, REFUSES, NULL },
	{ "resolve/struct_holds_itself", r_struct_loop, REFUSES, NULL },
	{ "resolve/pointer_loop", r_ptr_loop, REFUSES, NULL },
	{ "resolve/depth", r_nest_depth, REFUSES, NULL },
	{ "chain/type_tag_order", r_type_tag_order, NEWER_ACCEPT,
	  "btf_check_type_tags: 6.1 to 6.18 (7.3 dropped it)" },
	{ "chain/length", r_modifier_chain, NEWER_ACCEPT,
	  "btf_check_type_tags: 6.1 to 6.18 (7.3 dropped it)" },
	{ "enum/size", r_enum_size, REFUSES, NULL },
	{ "enum/enumerator_name", r_enumerator_name, REFUSES, NULL },
	{ "func_proto/kflag", r_func_proto_kflag, REFUSES, NULL },
	{ "func_proto/param_name", r_param_name, REFUSES, NULL },
	{ "func_proto/param_void", r_param_void, REFUSES, NULL },
	{ "func_proto/return_fwd", r_return_fwd, REFUSES, NULL },
	{ "ptr/to_later_func", r_ptr_to_later_func, REFUSES, NULL },
	{ "ptr/to_earlier_func", r_ptr_to_earlier_func, ACCEPTS,
	  "a pointer to a FUNC is refused in any order: the kernel takes it only when the FUNC "
	  "has the lower ID" },
	{ "func/linkage_extern", r_func_linkage, REFUSES, NULL },
	{ "func/kflag", r_func_kflag, REFUSES, NULL },
	{ "func/unnamed_param", r_func_unnamed_param, REFUSES, NULL },
	{ "func/not_over_proto", r_func_proto_target, REFUSES, NULL },
	{ "var/name_digit", r_var_name_digit, REFUSES, NULL },
	{ "var/name_backtick", r_var_name_backtick, REFUSES, NULL },
	{ "var/linkage", r_var_linkage, REFUSES, NULL },
	{ "var/kflag", r_var_kflag, REFUSES, NULL },
	{ "var/sizeless_type", r_var_type, REFUSES, NULL },
	{ "datasec/name", r_datasec_name, REFUSES, NULL },
	{ "datasec/kflag", r_datasec_kflag, REFUSES, NULL },
	{ "datasec/entry_past_end", r_datasec_entry, REFUSES, NULL },
	{ "datasec/var_larger_than_entry", r_datasec_var_size, REFUSES, NULL },
	{ "datasec/entry_not_var", r_datasec_not_var, REFUSES, NULL },
	{ "datasec/var_after_tagged", r_datasec_var_after_tagged, REFUSES, NULL },
	{ "datasec/var_after_twice", r_datasec_var_after_twice, REFUSES, NULL },
	{ "float/size", r_float_size, REFUSES, NULL },
	{ "float/kflag", r_float_kflag, REFUSES, NULL },
	{ "decl_tag/target", r_decl_tag_target, REFUSES, NULL },
	{ "decl_tag/component", r_decl_tag_component, REFUSES, NULL },
	{ "decl_tag/vlen", r_decl_tag_vlen, REFUSES, NULL },
	{ "info/unused_bits", r_info_bits, NEWER_ACCEPT,
	  "BTF_INFO_MASK: 6.1 to 6.18 (7.3 no longer looks)" },
	{ "btf/empty", r_empty, REFUSES, NULL },
	{ "loc/loc_param_on_6x", r_loc_param, REFUSES, NULL },
	{ "loc/loc_proto_on_6x", r_loc_proto, REFUSES, NULL },
	{ "loc/locsec_on_6x", r_locsec, REFUSES, NULL },
	{ "name/512_bytes", r_name_long, ACCEPTS,
	  "KSYM_NAME_LEN counts the NUL in kallsyms: names of 511 bytes at most" },
	{ "name/latin1", r_name_latin1, ACCEPTS,
	  "the kernel's isalpha() takes Latin-1 letters; C names are ASCII" },
	{ "datasec/blank_in_name", r_datasec_blank, ACCEPTS,
	  "6.12+ take any printable run; 6.1 wants an identifier; ELF section names have no blanks" },
	{ "tag/kflag_attributes", r_tag_kflag, OLDER_REFUSE,
	  "attributes (kind_flag TYPE_TAG, DECL_TAG): 6.1 and 6.12 refuse them, and are never "
	  "asked to take them" },
};

#endif
