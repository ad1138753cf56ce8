// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tests of the unit stage (lib/unit) on generated DWARF.  Each case is a
 * tests/dwarfgen description, written here beside its expectations; the
 * test turns it into an object with dwarfgen.py, walks its one compile unit
 * with unit__walk() and checks the unit's BTF by type name, then converts
 * the whole file with d2b_convert_file() and checks the result the same way
 * (dedup must keep what the unit had).
 *
 * The cases are the forms that once went wrong or that compilers seldom
 * write: DW_FORM_data1 array bounds and enumerator values >= 128 (libdw's
 * dwarf_formsdata sign-extends dataN), types defined inside function bodies
 * and lexical blocks, and DWARF 2-4 bitfields (DW_AT_bit_offset counted
 * from the top of a DW_AT_byte_size storage unit).  The bitfield case is
 * also compiled by gcc with -gdwarf-4 -gstrict-dwarf (legacy form) and
 * -gdwarf-5 (DW_AT_data_bit_offset; gcc 12 still writes DW_AT_bit_offset,
 * in DW_FORM_implicit_const, for union members): all three must give the
 * same layout.
 *
 * Needs python3 and as (dwarfgen) and the source tree (D2B_SRC, as
 * tests/run.sh sets it, else the current directory); SKIPs without them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <dwarf.h>

#include "base/diag.h"
#include "base/pages.h"
#include "btf/btf.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"
#include "unit/unit.h"
#include "test.h"

static char tmpdir[] = "/tmp/d2b-test-unit.XXXXXX";
static char dwarfgen[1024];
static const char *no_dwarfgen;	/* why the dwarfgen cases cannot run, or NULL */
/* why a file or a reader did not open: its newest message */
static struct diag why = { .kept = true, .newest_only = true };

/* ---- looking types up by name ---- */

static const char *stage;	/* "unit" or "converted": named in failures */

#define FAILF(...) do {								\
	printf("#   %s: ", stage);						\
	printf(__VA_ARGS__);							\
	putchar('\n');								\
	test_failed_now = 1;							\
} while (0)

/* The first own type of this kind and name; 0 (and a failure) if none. */
static uint32_t find(const struct d2b_btf *b, unsigned int kind, const char *name)
{
	uint32_t id, end = d2b_btf__end_id(b);

	for (id = d2b_btf__start_id(b); id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(b, id);

		if (t && d2b_kind(t) == kind && !strcmp(d2b_btf__str(b, t->name_off), name))
			return id;
	}
	FAILF("no %s '%s'", d2b_kind_name(kind), name);
	return 0;
}

static const struct d2b_member *find_member(const struct d2b_btf *b, const struct d2b_type *t,
					    const char *name)
{
	unsigned int i;

	for (i = 0; i < d2b_vlen(t); i++) {
		if (!strcmp(d2b_btf__str(b, btf_members(t)[i].name_off), name))
			return &btf_members(t)[i];
	}
	FAILF("'%s' has no member '%s'", d2b_btf__str(b, t->name_off), name);
	return NULL;
}

/* Is id a type of this kind and name (name NULL: any)? */
static bool is_named(const struct d2b_btf *b, uint32_t id, unsigned int kind, const char *name)
{
	const struct d2b_type *t = d2b_btf__type(b, id);

	return t && d2b_kind(t) == kind && (!name || !strcmp(d2b_btf__str(b, t->name_off), name));
}

/* ---- the cases ---- */

/*
 * (a) u8 x[256] as gcc writes it: DW_AT_upper_bound 255 in DW_FORM_data1.
 * Read with dwarf_formsdata, 0xff is -1, which once made it x[0].  Each
 * array is named by a typedef.
 */
static const char dg_array_bounds[] =
	"cu version=4 name=arrays.c producer=dwarfgen language=C99\n"
	"  base_type @u8 name='unsigned char' encoding=unsigned_char byte_size=1\n"
	"  base_type @idx name='long unsigned int' encoding=unsigned byte_size=8\n"
	"  typedef name=ub_data1_255 type=@a1\n"
	"  array_type @a1 type=@u8\n"
	"    subrange_type type=@idx upper_bound:data1=255\n"
	"  typedef name=ub_data1_128 type=@a2\n"
	"  array_type @a2 type=@u8\n"
	"    subrange_type type=@idx upper_bound:data1=128\n"
	"  typedef name=ub_data1_127 type=@a3\n"
	"  array_type @a3 type=@u8\n"
	"    subrange_type type=@idx upper_bound:data1=127\n"
	"  typedef name=count_data1_200 type=@a4\n"
	"  array_type @a4 type=@u8\n"
	"    subrange_type type=@idx count:data1=200\n"
	"  typedef name=count_data1_255 type=@a5\n"
	"  array_type @a5 type=@u8\n"
	"    subrange_type type=@idx count:data1=255\n"
	"  typedef name=ub_data2_65535 type=@a6\n"
	"  array_type @a6 type=@u8\n"
	"    subrange_type type=@idx upper_bound:data2=0xffff\n"
	"  typedef name=ub_data4_2g type=@a7\n"
	"  array_type @a7 type=@u8\n"
	"    subrange_type type=@idx upper_bound:data4=0x80000000\n"
	"  typedef name=ub_udata_200 type=@a8\n"
	"  array_type @a8 type=@u8\n"
	"    subrange_type type=@idx upper_bound:udata=200\n"
	"  typedef name=ub_sdata_255 type=@a9\n"
	"  array_type @a9 type=@u8\n"
	"    subrange_type type=@idx upper_bound:sdata=255\n"
	"  # old gcc's [0]: upper bound -1\n"
	"  typedef name=ub_sdata_minus1 type=@a10\n"
	"  array_type @a10 type=@u8\n"
	"    subrange_type type=@idx upper_bound:sdata=-1\n"
	"  # u8 m[2][200]: outer dimension first\n"
	"  typedef name=two_dims type=@a11\n"
	"  array_type @a11 type=@u8\n"
	"    subrange_type type=@idx upper_bound:data1=1\n"
	"    subrange_type type=@idx upper_bound:data1=199\n";

/* The ARRAY a typedef names: nelems and element type checked; returns it. */
static const struct d2b_type *check_array(const struct d2b_btf *b, const char *td, uint32_t nelems,
					  unsigned int elem_kind, const char *elem_name)
{
	uint32_t id = find(b, D2B_KIND_TYPEDEF, td);
	const struct d2b_type *t;

	if (!id)
		return NULL;
	t = d2b_btf__type(b, d2b_btf__type(b, id)->type);
	if (!t || d2b_kind(t) != D2B_KIND_ARRAY) {
		FAILF("typedef %s: not an ARRAY", td);
		return NULL;
	}
	if (btf_array(t)->nelems != nelems)
		FAILF("typedef %s: ARRAY nelems %u, expected %u", td, btf_array(t)->nelems, nelems);
	if (!is_named(b, btf_array(t)->type, elem_kind, elem_name))
		FAILF("typedef %s: ARRAY of type %u, expected %s '%s'", td, btf_array(t)->type,
		      d2b_kind_name(elem_kind), elem_name ? elem_name : "");
	return t;
}

static void check_array_bounds(const struct d2b_btf *b)
{
	const struct d2b_type *outer;

	check_array(b, "ub_data1_255", 256, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_data1_128", 129, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_data1_127", 128, D2B_KIND_INT, "unsigned char");
	check_array(b, "count_data1_200", 200, D2B_KIND_INT, "unsigned char");
	check_array(b, "count_data1_255", 255, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_data2_65535", 65536, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_data4_2g", 0x80000001u, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_udata_200", 201, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_sdata_255", 256, D2B_KIND_INT, "unsigned char");
	check_array(b, "ub_sdata_minus1", 0, D2B_KIND_INT, "unsigned char");
	outer = check_array(b, "two_dims", 2, D2B_KIND_ARRAY, NULL);
	if (outer) {
		const struct d2b_type *inner = d2b_btf__type(b, btf_array(outer)->type);

		if (btf_array(inner)->nelems != 200 ||
		    !is_named(b, btf_array(inner)->type, D2B_KIND_INT, "unsigned char"))
			FAILF("two_dims: inner ARRAY nelems %u, expected 200 of unsigned char",
			      btf_array(inner)->nelems);
	}
	CHECK_EQ(d2b_btf__resolve_size(b, find(b, D2B_KIND_TYPEDEF, "two_dims")), 400);
}

/*
 * (b) Enumerators in DW_FORM_dataN are unsigned: gcc writes 200 as data1
 * 0xc8, in an unsigned enum and in a signed one alike (negative values as
 * sdata).  Sign-extended, 200 was -56.
 */
static const char dg_enum_values[] =
	"cu version=4 name=enums.c producer=dwarfgen language=C99\n"
	"  base_type @uint name='unsigned int' encoding=unsigned byte_size=4\n"
	"  base_type @int name=int encoding=signed byte_size=4\n"
	"  base_type @ulong name='long unsigned int' encoding=unsigned byte_size=8\n"
	"  enumeration_type name=uenum type=@uint byte_size=4\n"
	"    enumerator name=U200 const_value:data1=200\n"
	"    enumerator name=U128 const_value:data1=128\n"
	"    enumerator name=U255 const_value:data1=255\n"
	"    enumerator name=U127 const_value:data1=127\n"
	"    enumerator name=U40000 const_value:data2=40000\n"
	"    enumerator name=U_HIGH const_value:data4=0xfffffff0\n"
	"  enumeration_type name=senum type=@int byte_size=4\n"
	"    enumerator name=S200 const_value:data1=200\n"
	"    enumerator name=S_MINUS56 const_value:sdata=-56\n"
	"  # no DW_AT_type (DWARF 2 producers): unsigned unless a value is negative\n"
	"  enumeration_type name=nobase byte_size=1\n"
	"    enumerator name=N200 const_value:data1=200\n"
	"    enumerator name=N1 const_value:udata=1\n"
	"  enumeration_type name=u64enum type=@ulong byte_size=8\n"
	"    enumerator name=TOP const_value:data8=0x8000000000000000\n"
	"    enumerator name=SMALL const_value:data1=129\n";

/* The enum's value of enumerator name, as the BTF means it (kflag: signed). */
static void check_enum_value(const struct d2b_btf *b, uint32_t id, const char *name, int64_t want)
{
	const struct d2b_type *t = d2b_btf__type(b, id);
	unsigned int i;

	if (!id)
		return;
	for (i = 0; i < d2b_vlen(t); i++) {
		int64_t v;

		if (d2b_kind(t) == D2B_KIND_ENUM) {
			const struct d2b_enum *e = &btf_enums(t)[i];

			if (strcmp(d2b_btf__str(b, e->name_off), name))
				continue;
			v = d2b_kflag(t) ? (int64_t)e->val : (int64_t)(uint32_t)e->val;
		} else {
			const struct d2b_enum64 *e = &btf_enums64(t)[i];

			if (strcmp(d2b_btf__str(b, e->name_off), name))
				continue;
			v = (int64_t)btf_enum64_val(e);
		}
		if (v != want)
			FAILF("%s = %lld, expected %lld", name, (long long)v, (long long)want);
		return;
	}
	FAILF("no enumerator %s", name);
}

static void check_enum_kind(const struct d2b_btf *b, uint32_t id, uint32_t size, bool is_signed,
			    unsigned int vlen)
{
	const struct d2b_type *t = d2b_btf__type(b, id);

	if (!id)
		return;
	if (t->size != size || d2b_kflag(t) != is_signed || d2b_vlen(t) != vlen)
		FAILF("%s '%s': size %u, %s, %u values; expected size %u, %s, %u values",
		      d2b_kind_name(d2b_kind(t)), d2b_btf__str(b, t->name_off), t->size,
		      d2b_kflag(t) ? "signed" : "unsigned", d2b_vlen(t), size,
		      is_signed ? "signed" : "unsigned", vlen);
}

static void check_enum_values(const struct d2b_btf *b)
{
	uint32_t id;

	id = find(b, D2B_KIND_ENUM, "uenum");
	check_enum_kind(b, id, 4, false, 6);
	check_enum_value(b, id, "U200", 200);
	check_enum_value(b, id, "U128", 128);
	check_enum_value(b, id, "U255", 255);
	check_enum_value(b, id, "U127", 127);
	check_enum_value(b, id, "U40000", 40000);
	check_enum_value(b, id, "U_HIGH", 0xfffffff0);

	id = find(b, D2B_KIND_ENUM, "senum");
	check_enum_kind(b, id, 4, true, 2);
	check_enum_value(b, id, "S200", 200);
	check_enum_value(b, id, "S_MINUS56", -56);

	id = find(b, D2B_KIND_ENUM, "nobase");
	check_enum_kind(b, id, 1, false, 2);
	check_enum_value(b, id, "N200", 200);
	check_enum_value(b, id, "N1", 1);

	id = find(b, D2B_KIND_ENUM64, "u64enum");
	check_enum_kind(b, id, 8, false, 2);
	check_enum_value(b, id, "TOP", INT64_MIN);	/* 0x8000000000000000 */
	check_enum_value(b, id, "SMALL", 129);
}

/*
 * (c) Types defined inside a function body, directly and in (nested)
 * lexical blocks, are the unit's types; one refers to another.
 */
static const char dg_local_types[] =
	"cu version=4 name=local.c producer=dwarfgen language=C99\n"
	"  base_type @int name=int encoding=signed byte_size=4\n"
	"  subprogram name=outer external prototyped type=@int pc=outer\n"
	"    formal_parameter name=x type=@int\n"
	"    structure_type @in_func name=in_func byte_size=4\n"
	"      member name=a type=@int data_member_location=0\n"
	"    lexical_block\n"
	"      union_type name=in_block byte_size=4\n"
	"        member name=u type=@int data_member_location=0\n"
	"      lexical_block\n"
	"        structure_type name=in_nested byte_size=8\n"
	"          member name=b type=@int data_member_location=0\n"
	"          member name=f type=@in_func data_member_location=4\n"
	"        enumeration_type name=local_enum type=@int byte_size=4\n"
	"          enumerator name=LOCAL_A const_value=1\n"
	"        typedef name=local_td type=@int\n";

static void check_local_types(const struct d2b_btf *b)
{
	const struct d2b_member *m;
	uint32_t id;

	find(b, D2B_KIND_FUNC, "outer");
	if ((id = find(b, D2B_KIND_STRUCT, "in_func"))) {
		CHECK_EQ(d2b_btf__type(b, id)->size, 4);
		m = find_member(b, d2b_btf__type(b, id), "a");
		CHECK(m && is_named(b, m->type, D2B_KIND_INT, "int"));
	}
	if ((id = find(b, D2B_KIND_UNION, "in_block")))
		CHECK_EQ(d2b_vlen(d2b_btf__type(b, id)), 1);
	if ((id = find(b, D2B_KIND_STRUCT, "in_nested"))) {
		m = find_member(b, d2b_btf__type(b, id), "f");
		CHECK(m && m->offset == 32 && is_named(b, m->type, D2B_KIND_STRUCT, "in_func"));
	}
	if ((id = find(b, D2B_KIND_ENUM, "local_enum")))
		check_enum_value(b, id, "LOCAL_A", 1);
	if ((id = find(b, D2B_KIND_TYPEDEF, "local_td")))
		CHECK(is_named(b, d2b_btf__type(b, id)->type, D2B_KIND_INT, "int"));
}

/*
 * (d) DWARF 2-4 bitfields, little-endian: DW_AT_bit_offset counts from the
 * most significant bit of a DW_AT_byte_size storage unit at
 * DW_AT_data_member_location.  struct bf and union ubf are what gcc 12
 * -gdwarf-4 -gstrict-dwarf writes for bitfield_src below; struct variants
 * has forms gcc does not write: no DW_AT_byte_size (the storage unit is
 * the member type's size), a DW_AT_byte_size smaller than the type's, no
 * DW_AT_data_member_location, and DW_AT_data_bit_offset beside the legacy
 * ones.
 */
static const char dg_bitfields[] =
	"cu version=4 name=bitfields.c producer=dwarfgen language=C89\n"
	"  base_type @uint name='unsigned int' encoding=unsigned byte_size=4\n"
	"  base_type @int name=int encoding=signed byte_size=4\n"
	"  base_type @uchar name='unsigned char' encoding=unsigned_char byte_size=1\n"
	"  base_type @ulong name='long unsigned int' encoding=unsigned byte_size=8\n"
	"  structure_type name=bf byte_size=16\n"
	"    member name=a type=@uint byte_size:data1=4 bit_size:data1=3 bit_offset:data1=29 data_member_location:data1=0\n"
	"    member name=b type=@uint byte_size:data1=4 bit_size:data1=5 bit_offset:data1=24 data_member_location:data1=0\n"
	"    member name=c type=@int byte_size:data1=4 bit_size:data1=12 bit_offset:data1=12 data_member_location:data1=0\n"
	"    member name=d type=@uchar data_member_location:data1=3\n"
	"    member name=e type=@ulong byte_size:data1=8 bit_size:data1=40 bit_offset:data1=24 data_member_location:data1=8\n"
	"    member name=f type=@uint byte_size:data1=4 bit_size:data1=1 bit_offset:data1=23 data_member_location:data1=12\n"
	"  union_type name=ubf byte_size=4\n"
	"    member name=lo type=@uint byte_size:data1=4 bit_size:data1=4 bit_offset:data1=28\n"
	"    member name=hi type=@uint byte_size:data1=4 bit_size:data1=28 bit_offset:data1=4\n"
	"    member name=whole type=@int\n"
	"  structure_type name=variants byte_size=8\n"
	"    member name=v1 type=@uchar byte_size=1 bit_size=2 bit_offset=0\n"
	"    member name=v0 type=@uint bit_size=4 bit_offset=20 data_member_location=0\n"
	"    member name=v2 type=@uint bit_size=7 data_bit_offset=40\n"
	"    member name=v3 type=@uint byte_size=1 bit_size=2 bit_offset=0 data_member_location=6\n"
	"  structure_type name=plain byte_size=8\n"
	"    member name=x type=@int data_member_location=0\n"
	"    member name=y type=@int data_member_location=4\n";

static const char bitfield_src[] =
	"struct bf { unsigned int a:3; unsigned int b:5; int c:12; unsigned char d;\n"
	"	    unsigned long e:40; unsigned int f:1; } bf;\n"
	"union ubf { unsigned int lo:4; unsigned int hi:28; int whole; } ubf;\n";

/* Member name of composite id: bit offset and bitfield size (0: none). */
static void check_member(const struct d2b_btf *b, uint32_t id, const char *name, uint32_t bit_off,
			 uint32_t bits)
{
	const struct d2b_type *t = d2b_btf__type(b, id);
	const struct d2b_member *m;

	if (!id || !(m = find_member(b, t, name)))
		return;
	if (d2b_member_bit_offset(t, m) != bit_off || d2b_member_bitfield_size(t, m) != bits)
		FAILF("%s.%s at bit %u, %u bits; expected bit %u, %u bits",
		      d2b_btf__str(b, t->name_off), name, d2b_member_bit_offset(t, m),
		      d2b_member_bitfield_size(t, m), bit_off, bits);
}

static void check_kflag(const struct d2b_btf *b, uint32_t id, bool want)
{
	const struct d2b_type *t = d2b_btf__type(b, id);

	if (id && d2b_kflag(t) != want)
		FAILF("'%s': kind_flag %d, expected %d", d2b_btf__str(b, t->name_off), d2b_kflag(t),
		      want);
}

/* struct bf and union ubf: the same from dwarfgen and from gcc */
static void check_bf_ubf(const struct d2b_btf *b)
{
	uint32_t id;

	id = find(b, D2B_KIND_STRUCT, "bf");
	check_kflag(b, id, true);
	check_member(b, id, "a", 0, 3);
	check_member(b, id, "b", 3, 5);
	check_member(b, id, "c", 8, 12);
	check_member(b, id, "d", 24, 0);
	check_member(b, id, "e", 64, 40);
	check_member(b, id, "f", 104, 1);
	id = find(b, D2B_KIND_UNION, "ubf");
	check_kflag(b, id, true);
	check_member(b, id, "lo", 0, 4);
	check_member(b, id, "hi", 0, 28);
	check_member(b, id, "whole", 0, 0);
}

static void check_bitfields(const struct d2b_btf *b)
{
	uint32_t id;

	check_bf_ubf(b);
	id = find(b, D2B_KIND_STRUCT, "variants");
	check_kflag(b, id, true);
	check_member(b, id, "v0", 8, 4);	/* 32 - 20 - 4 in an unsigned int */
	check_member(b, id, "v1", 6, 2);	/* 8 - 0 - 2 at byte 0 */
	check_member(b, id, "v2", 40, 7);
	check_member(b, id, "v3", 54, 2);	/* 8 - 0 - 2 in the 1-byte unit at byte 6 */
	id = find(b, D2B_KIND_STRUCT, "plain");
	check_kflag(b, id, false);
	check_member(b, id, "y", 32, 0);
}

/*
 * (e) A policy over the unit's functions (unit/func_facts.h) sees the
 * facts of an out-of-line instance that lists its origin's parameters in
 * another order, and the prototype it makes is the unit's FUNC's (the
 * whole file's, converted without it, keeps the declared one).
 */
static const char dg_func_facts[] =
	"cu version=4 name=facts.c producer=dwarfgen language=C99\n"
	"  base_type @int name=int encoding=signed byte_size=4\n"
	"  base_type @long name=long encoding=signed byte_size=8\n"
	"  subprogram @f name=f external prototyped type=@int\n"
	"    formal_parameter @x name=x type=@int\n"
	"    formal_parameter @y name=y type=@long\n"
	"  subprogram abstract_origin=@f pc=f\n"
	"    formal_parameter abstract_origin=@y location=hex:55\n"
	"    formal_parameter abstract_origin=@x\n";

enum { FACTS_WORD = 0x55aa };

/* What the policy below saw, one bit per fact as expected */
static unsigned int facts_seen;

static int facts_judge(const void *arg, struct fn_facts *fn, uint32_t *flags)
{
	struct die_unit *du;
	struct die_attr loc;
	int origin = -2;
	unsigned int seen = 0;
	const char *name;

	(void)arg;
	seen |= (fn_facts__nr_params(fn, FN_CODE) == 2) << 0;
	seen |= (fn_facts__nr_params(fn, FN_ORIGIN) == 2) << 1;
	seen |= (fn_facts__has_origin(fn) && fn_facts__external(fn) &&
		 !fn_facts__declares_itself(fn)) << 2;
	seen |= (fn_facts__param_origin(fn, 0, &origin) && origin == 1) << 3;
	seen |= (fn_facts__origin_param_code(fn, 0) == 1) << 4;
	seen |= (!fn_facts__same_types(fn)) << 5;
	seen |= (fn_facts__param_size(fn, FN_CODE, 0) == 8 &&
		 fn_facts__param_size(fn, FN_ORIGIN, 0) == 4) << 6;
	seen |= (fn_facts__param_location(fn, FN_CODE, 0, &du, &loc) &&
		 !fn_facts__param_location(fn, FN_CODE, 1, &du, &loc)) << 7;
	name = fn_facts__param_name(fn, FN_CODE, 0);
	seen |= (name && !strcmp(name, "y") &&
		 !fn_facts__param_has(fn, FN_CODE, 0, DW_AT_type)) << 8;
	seen |= (fn_facts__ptr_size(fn) == 8 && fn_facts__producer(fn) &&
		 !strcmp(fn_facts__producer(fn), "dwarfgen")) << 9;
	facts_seen = seen;
	*flags = FACTS_WORD;
	/* the code's order, the second renamed */
	return fn_facts__proto(fn, (const struct fn_proto_param[]){
		{ .i = 0 }, { .i = 1, .name = "renamed" } }, 2, false);
}

static const struct unit_func_filter facts_filter = {
	.policy = { .judge = facts_judge, .static_linkage = true },
};

static void check_func_facts(const struct d2b_btf *b)
{
	bool unit = !strcmp(stage, "unit");
	const struct d2b_type *t;
	const struct d2b_param *p;
	uint32_t id = find(b, D2B_KIND_FUNC, "f");

	if (!id)
		return;
	if (unit)
		CHECK_EQ(facts_seen, 0x3ffu);
	t = d2b_btf__type(b, id);
	CHECK_EQ(d2b_vlen(t), unit ? D2B_LINKAGE_STATIC : D2B_LINKAGE_GLOBAL);
	t = d2b_btf__type(b, t->type);
	REQUIRE(t && d2b_kind(t) == D2B_KIND_FUNC_PROTO && d2b_vlen(t) == 2);
	p = btf_params(t);
	CHECK_STR(d2b_btf__str(b, p[0].name_off), unit ? "y" : "x");
	CHECK(is_named(b, p[0].type, D2B_KIND_INT, unit ? "long" : "int"));
	CHECK_STR(d2b_btf__str(b, p[1].name_off), unit ? "renamed" : "y");
	CHECK(is_named(b, p[1].type, D2B_KIND_INT, unit ? "int" : "long"));
}

struct ucase {
	const char *name;
	const char *dg;
	void (*check)(const struct d2b_btf *b);
	const struct unit_func_filter *filter;	/* for unit__walk(), or NULL */
};

static const struct ucase cases[] = {
	{ "unit_array_bounds_data1", dg_array_bounds, check_array_bounds },
	{ "unit_enum_values_data1", dg_enum_values, check_enum_values },
	{ "unit_types_in_function_bodies", dg_local_types, check_local_types },
	{ "unit_legacy_bitfields", dg_bitfields, check_bitfields },
	{ "unit_func_facts", dg_func_facts, check_func_facts, &facts_filter },
};

/* ---- running a case ---- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -errno;
	err = fputs(text, f) < 0 ? -EIO : 0;
	if (fclose(f) && !err)
		err = -EIO;
	return err;
}

/* Run a shell command; on failure show its output (in out) as # lines. */
static bool run_cmd(const char *cmd, const char *out)
{
	char line[512];
	FILE *f;

	if (system(cmd) == 0)
		return true;
	printf("#   failed: %s\n", cmd);
	f = fopen(out, "r");
	while (f && fgets(line, sizeof(line), f))
		printf("#   | %s", line);
	if (f)
		fclose(f);
	return false;
}

static const char *level_name(enum d2b_level l)
{
	static const char *const names[] = { "error", "warning", "info", "stats", "debug",
					      "notice" };

	return l <= D2B_NOTICE ? names[l] : "?";
}

static void conv_diag(const struct d2b_diag *d, void *arg)
{
	unsigned int *bad = arg;

	if (d->level <= D2B_WARN) {
		printf("#   converted: %s: %s\n", level_name(d->level), d->msg);
		(*bad)++;
	}
}

/* Walk the only unit of obj and check it, then convert obj and check that. */
static void walk_and_check(const char *obj, void (*check)(const struct d2b_btf *b),
			   const struct unit_func_filter *filter)
{
	struct d2b_opts opts = { 0 };
	struct dwarf_file *df = NULL;
	struct dwarf_units units = { 0 };
	struct die_reader *r = NULL;
	struct unit_walker *uw = NULL;
	struct d2b_btf *out = NULL;
	struct unit u = { 0 };
	unsigned int bad = 0;
	size_t skipped = 0, i;
	int rc;

	rc = dwarf_file__open(obj, &why, &df);
	if (rc) {
		printf("#   %s: %s\n", obj, diag__last(&why));
		test_failed_now = 1;
		return;
	}
	rc = dwarf_file__units(df, &units, &skipped, NULL);
	if (rc || units.nr != 1) {
		printf("#   %s: %zu units (error %d), expected 1\n", obj, units.nr, rc);
		test_failed_now = 1;
		goto out;
	}
	if (die_reader__from_dwarf(dwarf_file__dwarf(df), &why, &r) ||
	    unit_walker__new(df, r, NULL, &uw)) {
		printf("#   %s: no DIE reader: %s\n", obj, diag__last(&why));
		test_failed_now = 1;
		goto out;
	}
	rc = unit__walk(&u, &opts, filter, uw, &(struct unit_ref){
		.r = r, .off = dwarf_dieoffset(&units.dies[0]) - dwarf_cuoffset(&units.dies[0]) });
	for (i = 0; i < u.diag.nr_msgs; i++) {
		/* the inputs are well formed: nothing to warn about */
		if (u.diag.msgs[i].level <= D2B_WARN) {
			printf("#   unit: %s at DIE 0x%llx: %s\n", level_name(u.diag.msgs[i].level),
			       (unsigned long long)u.diag.msgs[i].die_off, u.diag.msgs[i].msg);
			test_failed_now = 1;
		}
	}
	if (rc || !u.btf || u.skipped) {
		printf("#   unit__walk: %d%s\n", rc, u.skipped ? " (unit skipped)" : "");
		test_failed_now = 1;
		goto out;
	}
	stage = "unit";
	check(u.btf);
	if (filter && filter->policy.judge) {
		CHECK_EQ(u.nr_funcs, 1);
		CHECK(u.nr_funcs < 1 || u.funcs[0].flags == FACTS_WORD);
	}

	opts.diag = conv_diag;
	opts.diag_arg = &bad;
	rc = d2b_convert_file(obj, NULL, &opts, &out);
	if (rc || !out || bad) {
		printf("#   d2b_convert_file: %d, %u errors or warnings\n", rc, bad);
		test_failed_now = 1;
		goto out;
	}
	stage = "converted";
	check(out);
out:
	d2b_btf__free(out);
	unit__release(&u);
	unit_walker__free(uw);
	die_reader__free(r);
	free(units.dies);
	free(units.types);
	dwarf_file__free(df);
}

static const struct ucase *cur;

static void run_case(void)
{
	char dg[1024], obj[1024], log[1024], cmd[8192];

	snprintf(dg, sizeof(dg), "%s/%s.dg", tmpdir, cur->name);
	snprintf(obj, sizeof(obj), "%s/%s.o", tmpdir, cur->name);
	snprintf(log, sizeof(log), "%s/%s.log", tmpdir, cur->name);
	REQUIRE(write_file(dg, cur->dg) == 0);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' -o '%s' >'%s' 2>&1", dwarfgen, dg, obj, log);
	REQUIRE(run_cmd(cmd, log));
	walk_and_check(obj, cur->check, cur->filter);
}

/* ---- bitfields from gcc ---- */

/* Has some DIE under die (depth-first) attribute at? */
static bool has_attr(Dwarf_Die *die, unsigned int at, int depth)
{
	Dwarf_Die child;

	if (dwarf_hasattr(die, at))
		return true;
	if (depth > 8 || !dwarf_haschildren(die) || dwarf_child(die, &child) != 0)
		return false;
	do {
		if (has_attr(&child, at, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Does obj's first unit use at (as it must, to test what it claims)? */
static bool object_uses(const char *obj, unsigned int at)
{
	struct dwarf_file *df = NULL;
	struct dwarf_units units = { 0 };
	size_t skipped;
	bool found = false;

	if (dwarf_file__open(obj, &why, &df) == 0 &&
	    dwarf_file__units(df, &units, &skipped, NULL) == 0 && units.nr)
		found = has_attr(&units.dies[0], at, 0);
	free(units.dies);
	free(units.types);
	dwarf_file__free(df);
	return found;
}

static const struct {
	const char *name, *flags;
	unsigned int attr;	/* the object must use it */
} gcc_cases[] = {
	{ "unit_gcc_bitfields_dwarf4_strict", "-gdwarf-4 -gstrict-dwarf", DW_AT_bit_offset },
	{ "unit_gcc_bitfields_dwarf5", "-gdwarf-5", DW_AT_data_bit_offset },
};

static void run_gcc_cases(void)
{
	char src[1024], obj[1024], log[1024], cmd[8192];
	size_t i;

	snprintf(src, sizeof(src), "%s/bitfields.c", tmpdir);
	if (system("gcc --version >/dev/null 2>&1") != 0 || write_file(src, bitfield_src) != 0) {
		for (i = 0; i < sizeof(gcc_cases) / sizeof(gcc_cases[0]); i++)
			printf("SKIP %s: no gcc\n", gcc_cases[i].name);
		return;
	}
	for (i = 0; i < sizeof(gcc_cases) / sizeof(gcc_cases[0]); i++) {
		test_failed_now = 0;
		snprintf(obj, sizeof(obj), "%s/bitfields.%zu.o", tmpdir, i);
		snprintf(log, sizeof(log), "%s/gcc.log", tmpdir);
		snprintf(cmd, sizeof(cmd), "gcc %s -c -o '%s' '%s' >'%s' 2>&1", gcc_cases[i].flags,
			 obj, src, log);
		if (!run_cmd(cmd, log)) {
			printf("SKIP %s: gcc %s failed\n", gcc_cases[i].name, gcc_cases[i].flags);
			continue;
		}
		if (!object_uses(obj, gcc_cases[i].attr)) {
			printf("SKIP %s: gcc %s wrote no DW_AT 0x%x: nothing to test\n",
			       gcc_cases[i].name, gcc_cases[i].flags, gcc_cases[i].attr);
			continue;
		}
		walk_and_check(obj, check_bf_ubf, NULL);
		printf("%s %s%s\n", test_failed_now ? "FAIL" : "PASS", gcc_cases[i].name,
		       test_failed_now ? ": see above" : "");
		test_nfail += test_failed_now;
	}
}

/* ---- main ---- */

static void find_dwarfgen(void)
{
	const char *src = getenv("D2B_SRC");
	struct stat st;

	snprintf(dwarfgen, sizeof(dwarfgen), "%s/tests/dwarfgen/dwarfgen.py", src ? src : ".");
	if (strchr(dwarfgen, '\'') || stat(dwarfgen, &st) != 0)
		no_dwarfgen = "tests/dwarfgen/dwarfgen.py not found (set D2B_SRC)";
	else if (system("python3 -c '' >/dev/null 2>&1") != 0)
		no_dwarfgen = "no python3";
	else if (system("as --version >/dev/null 2>&1") != 0)
		no_dwarfgen = "no as";
}

/* ---- pages dropped behind libdw's listing ---- */

/*
 * dwarf_file__units() reaches each unit's offset in .debug_info as it
 * lists them (pages_behind__reach(), so that the pages behind are dropped
 * during the listing of a large file, not after it): with a batch of one
 * byte, the last reach is at the last unit's DIE.  The pages_behind's
 * region is a scratch mapping as large as .debug_info (only its offsets
 * matter here; dropping its pages loses nothing).
 */
static void test_list_reaches_units(void)
{
	static const char dg[] =
		"cu version=4 name=a.c language=C99\n"
		"  base_type name=int byte_size=4 encoding=signed\n"
		"cu version=5 name=b.c language=C99\n"
		"  base_type name=long byte_size=8 encoding=signed\n"
		"cu version=4 name=c.c language=C99\n"
		"  base_type name=char byte_size=1 encoding=signed_char\n";
	char path[1024], obj[1024], log[1024], cmd[8192];
	struct dwarf_units units = { 0 };
	struct dwarf_file *df = NULL;
	struct pages_behind pb;
	size_t skipped = 0, len = 1 << 20;
	void *scratch;

	snprintf(path, sizeof(path), "%s/list.dg", tmpdir);
	snprintf(obj, sizeof(obj), "%s/list.o", tmpdir);
	snprintf(log, sizeof(log), "%s/list.log", tmpdir);
	REQUIRE(write_file(path, dg) == 0);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' -o '%s' >'%s' 2>&1", dwarfgen, path, obj, log);
	REQUIRE(run_cmd(cmd, log));
	scratch = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(scratch != MAP_FAILED);
	REQUIRE(dwarf_file__open(obj, &why, &df) == 0);
	pages_behind__init(&pb, scratch, len, 1);
	CHECK_EQ(dwarf_file__units(df, &units, &skipped, &pb), 0);
	CHECK_EQ(units.nr, 3);
	if (units.nr == 3) {
		CHECK(dwarf_dieoffset(&units.dies[2]) > dwarf_dieoffset(&units.dies[1]));
		CHECK_EQ(pb.done, dwarf_dieoffset(&units.dies[2]));
	}
	free(units.dies);
	free(units.types);
	dwarf_file__free(df);
	munmap(scratch, len);
}

/* ---- a base handed over later (d2b_convert_file_later_base()) ---- */

struct later_arg {
	const struct d2b_btf *base;
	unsigned int calls;
};

static const struct d2b_btf *later_get(void *arg)
{
	struct later_arg *a = arg;

	a->calls++;
	return a->base;
}

static void count_errors(const struct d2b_diag *d, void *arg)
{
	if (d->level <= D2B_ERROR)
		(*(unsigned int *)arg)++;
}

/*
 * Over a base the caller hands over when asked: the same BTF as over the
 * base given at once, get() called once; get() returning NULL fails the
 * conversion with -ECANCELED and no message of the library's; no get()
 * at all is an error it reports.
 */
static void test_later_base(void)
{
	struct d2b_opts opts = { .diag = count_errors };
	struct d2b_btf *base = NULL, *now = NULL, *later = NULL;
	struct later_arg a = { 0 };
	struct d2b_base_later l = { .get = later_get, .arg = &a };
	void *raw1 = NULL, *raw2 = NULL;
	size_t n1 = 0, n2 = 0;
	unsigned int errors = 0;
	char obj[1024];

	opts.diag_arg = &errors;
	snprintf(obj, sizeof(obj), "%s/%s.o", tmpdir, cases[0].name);
	REQUIRE(d2b_convert_file(obj, NULL, &opts, &base) == 0);
	CHECK_EQ(d2b_convert_file(obj, base, &opts, &now), 0);
	a.base = base;
	CHECK_EQ(d2b_convert_file_later_base(obj, &l, &opts, &later), 0);
	CHECK_EQ(a.calls, 1);
	REQUIRE(now && later);
	CHECK_EQ(d2b_btf__encode(now, &raw1, &n1), 0);
	CHECK_EQ(d2b_btf__encode(later, &raw2, &n2), 0);
	CHECK(n1 == n2 && raw1 && raw2 && !memcmp(raw1, raw2, n1));
	CHECK_EQ(errors, 0);
	d2b_btf__free(later);
	later = NULL;

	a.base = NULL;
	a.calls = 0;
	CHECK_EQ(d2b_convert_file_later_base(obj, &l, &opts, &later), -ECANCELED);
	CHECK(!later);
	CHECK_EQ(a.calls, 1);
	CHECK_EQ(errors, 0);

	l.get = NULL;
	CHECK_EQ(d2b_convert_file_later_base(obj, &l, &opts, &later), -EINVAL);
	CHECK(!later);
	CHECK_EQ(errors, 1);
	/* a file that cannot be opened: get() is never called */
	l.get = later_get;
	a.calls = 0;
	errors = 0;
	CHECK(d2b_convert_file_later_base("/nonexistent/x.o", &l, &opts, &later) < 0);
	CHECK_EQ(a.calls, 0);
	CHECK_EQ(errors, 1);
	free(raw1);
	free(raw2);
	d2b_btf__free(now);
	d2b_btf__free(base);
}

int main(void)
{
	char cmd[256];
	size_t i;

	if (!mkdtemp(tmpdir)) {
		printf("FAIL setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	find_dwarfgen();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (no_dwarfgen) {
			printf("SKIP %s: %s\n", cases[i].name, no_dwarfgen);
			continue;
		}
		cur = &cases[i];
		test_run(run_case, cases[i].name);
	}
	if (!no_dwarfgen) {
		test_run(test_later_base, "later_base");	/* (over cases[0]'s object) */
		test_run(test_list_reaches_units, "list_reaches_units");
	} else {
		printf("SKIP list_reaches_units: %s\n", no_dwarfgen);
	}
	run_gcc_cases();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return test_done();
}
