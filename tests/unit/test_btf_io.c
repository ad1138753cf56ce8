// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Raw BTF in and out: round trips for every kind in both byte orders and
 * for split BTF, byte-exact re-encoding, a table of malformed blobs with
 * the error each must give, files (raw, ELF, compressed ELF) and the
 * never-half-written guarantee of write_raw.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/btf.h"
#include "dwarf2btf.h"
#include "test.h"
#include "../tools/btf_samples.h"

static enum d2b_endian other_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE;
}

static char *dump_to_string(const struct d2b_btf *btf)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	if (d2b_btf__dump(btf, f)) {
		fclose(f);
		free(s);
		return NULL;
	}
	fclose(f);
	return s;
}

/* Same own types, word for word, and same names. */
static void check_same_types(const struct d2b_btf *a, const struct d2b_btf *b)
{
	uint32_t id;

	CHECK_EQ(d2b_btf__start_id(a), d2b_btf__start_id(b));
	CHECK_EQ(d2b_btf__end_id(a), d2b_btf__end_id(b));
	for (id = d2b_btf__start_id(a); id < d2b_btf__end_id(a) && id < d2b_btf__end_id(b); id++) {
		const struct d2b_type *ta = d2b_btf__type(a, id), *tb = d2b_btf__type(b, id);

		CHECK(ta && tb);
		if (!ta || !tb)
			return;
		CHECK_EQ(btf_type_words(ta), btf_type_words(tb));
		CHECK(!memcmp(ta, tb, btf_type_words(ta) * 4));
		CHECK_STR(d2b_btf__name(a, id), d2b_btf__name(b, id));
	}
}

static void test_roundtrip_all_kinds(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL), *back = NULL;
	void *raw = NULL, *raw2 = NULL;
	size_t size, size2;
	char err[256], *d1 = NULL, *d2 = NULL;

	REQUIRE(btf);
	CHECK_EQ(sample_all_kinds(btf), 0);
	CHECK_EQ(d2b_btf__nr_types(btf), SAMPLE_ALL_KINDS_NR);
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), 0);
	CHECK_EQ(d2b_btf__parse_raw(raw, size, NULL, &back, err, sizeof(err)), 0);
	if (!back)
		printf("#   parse: %s\n", err);
	if (back) {
		check_same_types(btf, back);
		CHECK(d2b_btf__endian(back) != D2B_ENDIAN_NATIVE);
		CHECK_EQ(d2b_btf__encode(back, &raw2, &size2), 0);
		CHECK_EQ(size, size2);
		CHECK(raw2 && !memcmp(raw, raw2, size));
		d1 = dump_to_string(btf);
		d2 = dump_to_string(back);
		CHECK(d1 && d2 && !strcmp(d1, d2));
		CHECK(d1 && strstr(d1, "[5] INT 'odd_int' size=2 bits_offset=3 nr_bits=5 encoding=UNKN\n"));
		CHECK(d1 && strstr(d1, "\t'(anon)' type_id=1 bits_offset=35 bitfield_size=29\n"));
		CHECK(d1 && strstr(d1, "\t'NEG' val=-9223372036854775808LL\n"));
		CHECK(d1 && strstr(d1, "[27] FUNC 'f_odd' type_id=23 linkage=(unknown)\n"));
		CHECK(d1 && strstr(d1, "\ttype_id=0 offset=36 size=0 (UNKNOWN '(anon)')\n"));
		/* the parsed types are the BTF's own (adopted, not copied):
		 * it takes more, and refuses a second set */
		CHECK_EQ(d2b_btf__add_int(back, "after_parse", 4, 0),
			 SAMPLE_ALL_KINDS_NR + 1);
		CHECK_EQ(d2b_btf__nr_types(back), SAMPLE_ALL_KINDS_NR + 1);
		CHECK_EQ(btf_adopt_types(back, NULL, 0, NULL, 0), -EBUSY);
	}
	free(d1);
	free(d2);
	free(raw);
	free(raw2);
	d2b_btf__free(back);
	d2b_btf__free(btf);
}

static void test_roundtrip_swapped(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL), *back = NULL;
	void *raw = NULL, *raw2 = NULL;
	size_t size, size2;
	const uint8_t *b;
	char err[256];

	REQUIRE(btf);
	CHECK_EQ(sample_all_kinds(btf), 0);
	d2b_btf__set_endian(btf, other_endian());
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), 0);
	REQUIRE(raw);
	b = raw;
	if (other_endian() == D2B_ENDIAN_BIG)
		CHECK(b[0] == 0xeb && b[1] == 0x9f && b[7] == 24);
	else
		CHECK(b[0] == 0x9f && b[1] == 0xeb && b[4] == 24);
	CHECK_EQ(d2b_btf__parse_raw(raw, size, NULL, &back, err, sizeof(err)), 0);
	if (back) {
		CHECK_EQ(d2b_btf__endian(back), other_endian());
		check_same_types(btf, back);
		CHECK_EQ(d2b_btf__encode(back, &raw2, &size2), 0);
		CHECK(raw2 && size == size2 && !memcmp(raw, raw2, size));
	} else {
		printf("#   parse: %s\n", err);
	}
	free(raw);
	free(raw2);
	d2b_btf__free(back);
	d2b_btf__free(btf);
}

/* Explicit byte layout of a little-endian header. */
static void test_header_layout(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	void *raw = NULL;
	size_t size;
	const uint8_t *b;

	REQUIRE(btf);
	CHECK(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED) == 1);
	d2b_btf__set_endian(btf, D2B_ENDIAN_LITTLE);
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), 0);
	REQUIRE(raw);
	b = raw;
	CHECK_EQ(size, 24 + 16 + 5);
	CHECK(b[0] == 0x9f && b[1] == 0xeb && b[2] == 1 && b[3] == 0);
	CHECK(b[4] == 24 && b[8] == 0 && b[12] == 16 && b[16] == 16 && b[20] == 5);
	CHECK(!memcmp(b + 40, "\0int\0", 5));
	free(raw);
	d2b_btf__free(btf);
}

static void test_roundtrip_split(void)
{
	struct d2b_btf *base = d2b_btf__new(NULL), *split = NULL;
	struct d2b_btf *base2 = NULL, *split2 = NULL, *nobase = NULL;
	void *raw_base = NULL, *raw = NULL, *raw2 = NULL;
	size_t size_base, size, size2;
	char err[256], *d = NULL;

	REQUIRE(base);
	CHECK_EQ(sample_base(base), 0);
	split = d2b_btf__new(base);
	REQUIRE(split);
	CHECK_EQ(sample_split(split), 0);
	CHECK_EQ(d2b_btf__start_id(split), 6);
	CHECK_EQ(d2b_btf__encode(base, &raw_base, &size_base), 0);
	CHECK_EQ(d2b_btf__encode(split, &raw, &size), 0);
	CHECK_EQ(d2b_btf__parse_raw(raw_base, size_base, NULL, &base2, err, sizeof(err)), 0);
	REQUIRE(base2);
	CHECK_EQ(d2b_btf__parse_raw(raw, size, base2, &split2, err, sizeof(err)), 0);
	if (!split2)
		printf("#   parse: %s\n", err);
	REQUIRE(split2);
	CHECK_EQ(d2b_btf__start_id(split2), 6);
	check_same_types(split, split2);
	CHECK_STR(d2b_btf__str(split2, btf_members(d2b_btf__type(split2, 6))[0].name_off),
		  "list_head");
	CHECK_EQ(d2b_btf__encode(split2, &raw2, &size2), 0);
	CHECK(raw2 && size == size2 && !memcmp(raw, raw2, size));
	d = dump_to_string(split2);
	CHECK(d && !strncmp(d, "[6] STRUCT 'mod_state' size=24 vlen=2\n", 38));
	CHECK(d && strstr(d, "\ttype_id=5 offset=24 size=8 (VAR 'jiffies')\n"));
	/* without its base, the split blob's IDs and names dangle */
	CHECK(d2b_btf__parse_raw(raw, size, NULL, &nobase, err, sizeof(err)) < 0);
	CHECK(!nobase);
	free(d);
	free(raw_base);
	free(raw);
	free(raw2);
	d2b_btf__free(split2);
	d2b_btf__free(base2);
	d2b_btf__free(split);
	d2b_btf__free(base);
}

static void test_split_empty_strings(void)
{
	struct d2b_btf *base = d2b_btf__new(NULL), *split = NULL, *back = NULL;
	void *raw = NULL, *raw2 = NULL;
	size_t size, size2;
	struct d2b_header h;
	char err[256];

	REQUIRE(base);
	CHECK_EQ(sample_base(base), 0);
	split = d2b_btf__new(base);
	REQUIRE(split);
	CHECK_EQ(sample_split_nostr(split), 0);
	CHECK_EQ(d2b_btf__encode(split, &raw, &size), 0);
	REQUIRE(raw);
	memcpy(&h, raw, sizeof(h));
	CHECK_EQ(h.str_len, 0);
	CHECK_EQ(size, 24 + 24);
	CHECK_EQ(d2b_btf__parse_raw(raw, size, base, &back, err, sizeof(err)), 0);
	REQUIRE(back);
	CHECK_STR(d2b_btf__name(back, 7), "int");
	CHECK_EQ(d2b_btf__encode(back, &raw2, &size2), 0);
	CHECK(raw2 && size == size2 && !memcmp(raw, raw2, size));
	free(raw);
	free(raw2);
	d2b_btf__free(back);
	d2b_btf__free(split);
	d2b_btf__free(base);
}

/* libbpf and pahole write split string sections without a leading NUL. */
static void test_split_no_leading_nul(void)
{
	struct d2b_btf *base = d2b_btf__new(NULL), *back = NULL;
	uint32_t blob[6 + 3 + 2];
	uint32_t base_str;
	void *raw2 = NULL;
	size_t size2;
	char err[256];
	struct d2b_header h = {
		.magic = D2B_BTF_MAGIC, .version = 1, .hdr_len = 24,
		.type_off = 0, .type_len = 12, .str_off = 12, .str_len = 8,
	};

	REQUIRE(base);
	CHECK_EQ(sample_base(base), 0);
	base_str = btf_end_str(base);
	memcpy(blob, &h, sizeof(h));
	blob[6] = base_str + 4;			/* "bar" */
	blob[7] = d2b_info(D2B_KIND_TYPEDEF, false, 0);
	blob[8] = 1;
	memcpy(&blob[9], "foo\0bar\0", 8);
	CHECK_EQ(d2b_btf__parse_raw(blob, sizeof(blob), base, &back, err, sizeof(err)), 0);
	if (!back)
		printf("#   parse: %s\n", err);
	REQUIRE(back);
	CHECK_STR(d2b_btf__name(back, 6), "bar");
	CHECK_STR(d2b_btf__str(back, base_str), "foo");
	CHECK_EQ(d2b_btf__encode(back, &raw2, &size2), 0);
	CHECK(raw2 && size2 == sizeof(blob) && !memcmp(raw2, blob, sizeof(blob)));
	free(raw2);
	d2b_btf__free(back);
	d2b_btf__free(base);
}

static void test_encode_undefined(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	void *raw = (void *)1;
	size_t size = 1;
	FILE *f = fopen("/dev/null", "w");
	int id;

	REQUIRE(btf && f);
	CHECK(d2b_btf__add_int(btf, "int", 4, 0) == 1);
	id = btf_reserve(btf);
	CHECK_EQ(id, 2);
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), -EINVAL);
	CHECK(raw == NULL && size == 0);
	CHECK_EQ(d2b_btf__dump(btf, f), -EINVAL);
	CHECK_EQ(btf_define(btf, id), 0);
	CHECK(d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, 1) == id);
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), 0);
	free(raw);
	fclose(f);
	d2b_btf__free(btf);
}

/* ---- malformed input ---- */

/*
 * The reference blob, little-endian:
 *   [1] INT 'int'   [2] STRUCT 's' { 'm' [1] }   [3] PTR -> [2]
 *   [4] ENUM (anon) { 'm' = 5 }
 * strings "\0int\0s\0m\0" (int=1, s=5, m=7).
 */
enum {
	REF_TYPE_WORDS = 4 + 6 + 3 + 5,
	REF_TYPE_LEN = REF_TYPE_WORDS * 4,
	REF_STR_LEN = 9,
	REF_SIZE = 24 + REF_TYPE_LEN + REF_STR_LEN,
	/* word indexes inside the type section */
	W_INT = 0, W_STRUCT = 4, W_MEMBER = 7, W_PTR = 10, W_ENUM = 13,
};

static void ref_blob(uint8_t *b)
{
	struct d2b_header h = {
		.magic = D2B_BTF_MAGIC, .version = 1, .hdr_len = 24, .type_off = 0,
		.type_len = REF_TYPE_LEN, .str_off = REF_TYPE_LEN, .str_len = REF_STR_LEN,
	};
	const uint32_t types[REF_TYPE_WORDS] = {
		1, d2b_info(D2B_KIND_INT, false, 0), 4, 1u << 24 | 32,
		5, d2b_info(D2B_KIND_STRUCT, false, 1), 4, 7, 1, 0,
		0, d2b_info(D2B_KIND_PTR, false, 0), 2,
		0, d2b_info(D2B_KIND_ENUM, false, 1), 4, 7, 5,
	};

	memcpy(b, &h, 24);
	memcpy(b + 24, types, sizeof(types));
	memcpy(b + 24 + REF_TYPE_LEN, "\0int\0s\0m\0", REF_STR_LEN);
}

static void set_u32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

enum hdr_field {
	H_HDR_LEN = 4, H_TYPE_OFF = 8, H_TYPE_LEN = 12, H_STR_OFF = 16, H_STR_LEN = 20,
};

#define TYPE_WORD(w) (24 + (w) * 4)
#define STR_BYTE(i) (24 + REF_TYPE_LEN + (i))

struct bad_case {
	const char *name;
	size_t off;		/* byte to patch */
	unsigned int width;	/* 1, 2 or 4 bytes; 0: only truncate */
	uint32_t value;
	size_t off2;		/* a second 4-byte patch, if not 0 */
	uint32_t value2;
	size_t cut;		/* bytes cut off the end */
	int err;
	const char *msg;	/* expected substring of the reason */
};

static const struct bad_case bad_cases[] = {
	{ "short", 0, 0, 0, 0, 0, REF_SIZE - 10, -EINVAL, "10 bytes are too few for a BTF header" },
	{ "empty", 0, 0, 0, 0, 0, REF_SIZE, -EINVAL, "0 bytes are too few" },
	{ "magic", 0, 2, 0x1234, 0, 0, 0, -EINVAL, "bad BTF magic 0x1234" },
	{ "version", 2, 1, 2, 0, 0, 0, -EINVAL, "unsupported BTF version 2" },
	{ "flags", 3, 1, 1, 0, 0, 0, -EINVAL, "unsupported BTF header flags 0x1" },
	{ "hdr_len small", H_HDR_LEN, 4, 20, 0, 0, 0, -EINVAL, "header length 20 is below 24" },
	{ "hdr_len huge", H_HDR_LEN, 4, 500, 0, 0, 0, -EINVAL, "header length 500 runs past" },
	{ "hdr_len longer, nonzero", H_HDR_LEN, 4, 28, 0, 0, 0, -EINVAL,
	  "unknown header field at byte 24 is not zero" },
	{ "types past end", H_TYPE_OFF, 4, 100, 0, 0, 0, -EINVAL,
	  "type section [100, 172) runs past the end of the data (81 bytes after the header)" },
	{ "types huge", H_TYPE_LEN, 4, 0xfffffffc, 0, 0, 0, -EINVAL,
	  "type section [0, 4294967292) runs past" },
	{ "strings past end", H_STR_LEN, 4, 10, 0, 0, 0, -EINVAL, "string section [72, 82) runs past" },
	{ "strings wrap", H_STR_OFF, 4, 0xffffffff, 0, 0, 0, -EINVAL,
	  "string section [4294967295, 4294967304) runs past" },
	{ "overlap", H_TYPE_LEN, 4, REF_TYPE_LEN + 4, 0, 0, 0, -EINVAL,
	  "type section [0, 76) and string section [72, 81) overlap" },
	{ "types misaligned", H_TYPE_OFF, 4, 2, H_TYPE_LEN, REF_TYPE_LEN - 4, 0, -EINVAL,
	  "type section offset 2 is not 4-byte aligned" },
	{ "types unaligned length", H_TYPE_LEN, 4, REF_TYPE_LEN - 2, 0, 0, 0, -EINVAL,
	  "type section length 70 is not a multiple of 4" },
	{ "strings empty", H_STR_LEN, 4, 0, 0, 0, 0, -EINVAL, "string section is empty" },
	{ "strings no leading NUL", STR_BYTE(0), 1, 'x', 0, 0, 0, -EINVAL,
	  "string section does not start with a NUL" },
	{ "strings no trailing NUL", STR_BYTE(REF_STR_LEN - 1), 1, 'x', 0, 0, 0, -EINVAL,
	  "string section does not end with a NUL" },
	{ "kind 0", TYPE_WORD(W_PTR + 1), 4, 0, 0, 0, 0, -EINVAL,
	  "type [3] at byte 40 of the type section has invalid kind 0" },
	{ "kind 23", TYPE_WORD(W_PTR + 1), 4, 23u << 24, 0, 0, 0, -EINVAL, "has invalid kind 23" },
	{ "kind 127", TYPE_WORD(W_PTR + 1), 4, 0x7fu << 24, 0, 0, 0, -EINVAL,
	  "has invalid kind 127" },
	{ "loc_proto param", TYPE_WORD(W_PTR + 1), 4, 21u << 24 | 5, 0, 0, 0, -EINVAL,
	  "type [3] LOC_PROTO: param 1 ID 100663297 out of range (last type is [3])" },
	{ "kind 31", TYPE_WORD(W_INT + 1), 4, 0x1fu << 24, 0, 0, 0, -EINVAL,
	  "type [1] at byte 0 of the type section has invalid kind 31" },
	{ "vlen past end", TYPE_WORD(W_STRUCT + 1), 4, 4u << 24 | 100, 0, 0, 0, -EINVAL,
	  "type [2] STRUCT with vlen 100 runs past the end of the type section" },
	{ "last type cut", H_TYPE_LEN, 4, REF_TYPE_LEN - 4, 0, 0, 0, -EINVAL,
	  "type [4] ENUM with vlen 1 runs past" },
	{ "header cut", H_TYPE_LEN, 4, (4 + 6 + 3 + 2) * 4, 0, 0, 0, -EINVAL,
	  "type [4] at byte 52 of the type section is cut short" },
	{ "type name", TYPE_WORD(W_INT), 4, 9, 0, 0, 0, -EINVAL,
	  "type [1] INT: name offset 0x9 out of range (strings end at 0x9)" },
	{ "member name", TYPE_WORD(W_MEMBER), 4, 0x1000, 0, 0, 0, -EINVAL,
	  "type [2] STRUCT: member 0 name offset 0x1000 out of range" },
	{ "member type", TYPE_WORD(W_MEMBER + 1), 4, 5, 0, 0, 0, -EINVAL,
	  "type [2] STRUCT: member 0 type ID 5 out of range (last type is [4])" },
	{ "ptr type", TYPE_WORD(W_PTR + 2), 4, 0xffffffff, 0, 0, 0, -EINVAL,
	  "type [3] PTR: type ID 4294967295 out of range" },
	{ "enum value name", TYPE_WORD(W_ENUM + 3), 4, 100, 0, 0, 0, -EINVAL,
	  "type [4] ENUM: value 0 name offset 0x64 out of range" },
	{ "proto return", TYPE_WORD(W_PTR + 1), 4, 13u << 24, TYPE_WORD(W_PTR + 2), 7, 0, -EINVAL,
	  "type [3] FUNC_PROTO: return type ID 7 out of range" },
	{ "array element", TYPE_WORD(W_STRUCT + 1), 4, 3u << 24, 0, 0, 0,
	  -EINVAL, "type [2] ARRAY: element type ID 7 out of range" },
	{ "datasec var", TYPE_WORD(W_STRUCT + 1), 4, 15u << 24 | 1, TYPE_WORD(W_STRUCT + 3), 8,
	  0, -EINVAL, "type [2] DATASEC: var 0 type ID 8 out of range" },
	{ "decl_tag type", TYPE_WORD(W_INT + 1), 4, 17u << 24, TYPE_WORD(W_INT + 2), 4, 0, 0,
	  "" },
	{ "decl_tag target", TYPE_WORD(W_INT + 1), 4, 17u << 24, TYPE_WORD(W_INT + 2), 40, 0,
	  -EINVAL, "type [1] DECL_TAG: type ID 40 out of range" },
};

static void test_malformed(void)
{
	uint8_t blob[REF_SIZE + 8];
	struct d2b_btf *btf;
	size_t i;
	char err[256];

	/* the reference itself is fine, as is a longer all-zero header */
	ref_blob(blob);
	btf = NULL;
	CHECK_EQ(d2b_btf__parse_raw(blob, REF_SIZE, NULL, &btf, err, sizeof(err)), 0);
	CHECK(btf && d2b_btf__nr_types(btf) == 4);
	d2b_btf__free(btf);
	memmove(blob + 28, blob + 24, REF_SIZE - 24);
	set_u32(blob, 24, 0);
	set_u32(blob, H_HDR_LEN, 28);
	btf = NULL;
	CHECK_EQ(d2b_btf__parse_raw(blob, REF_SIZE + 4, NULL, &btf, err, sizeof(err)), 0);
	CHECK(btf && d2b_btf__nr_types(btf) == 4);
	d2b_btf__free(btf);

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t size = REF_SIZE - c->cut;
		int r;

		ref_blob(blob);
		if (c->width == 1)
			blob[c->off] = c->value;
		else if (c->width == 2)
			memcpy(blob + c->off, &(uint16_t){ c->value }, 2);
		else if (c->width == 4)
			set_u32(blob, c->off, c->value);
		if (c->off2)
			set_u32(blob, c->off2, c->value2);
		if (!strcmp(c->name, "hdr_len longer, nonzero")) {
			/* 4 extra header bytes, not zero */
			memmove(blob + 28, blob + 24, REF_SIZE - 24);
			set_u32(blob, 24, 0);
			blob[24] = 1;
			size = REF_SIZE + 4;
		}
		btf = c->err ? (struct d2b_btf *)1 : NULL;
		err[0] = '\0';
		r = d2b_btf__parse_raw(blob, size, NULL, &btf, err, sizeof(err));
		if (r != c->err || (r < 0 && btf) || (r == 0 && !btf) || !strstr(err, c->msg)) {
			printf("#   case '%s': got %d \"%s\", expected %d \"%s\"\n", c->name, r, err,
			       c->err, c->msg);
			test_failed_now = 1;
		}
		if (r >= 0)
			d2b_btf__free(btf);
	}
}

/* The same checks hold in the other byte order. */
static void test_malformed_swapped(void)
{
	uint8_t blob[REF_SIZE];
	struct d2b_btf *btf = NULL;
	char err[256];
	size_t i;

	ref_blob(blob);
	blob[0] = 0xeb;
	blob[1] = 0x9f;
	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) {
		blob[0] = 0x9f;
		blob[1] = 0xeb;
	}
	for (i = 4; i < 24 + REF_TYPE_LEN; i += 4) {
		uint32_t w;

		memcpy(&w, blob + i, 4);
		w = __builtin_bswap32(w);
		memcpy(blob + i, &w, 4);
	}
	CHECK_EQ(d2b_btf__parse_raw(blob, REF_SIZE, NULL, &btf, err, sizeof(err)), 0);
	CHECK(btf && d2b_btf__endian(btf) == other_endian());
	CHECK(btf && !strcmp(d2b_btf__name(btf, 2), "s"));
	d2b_btf__free(btf);
	btf = NULL;
	/* member type 5, big-endian this time */
	set_u32(blob, TYPE_WORD(W_MEMBER + 1), __builtin_bswap32(5));
	CHECK_EQ(d2b_btf__parse_raw(blob, REF_SIZE, NULL, &btf, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "member 0 type ID 5 out of range"));
}

/* ---- files ---- */

static char tmpdir[] = "/tmp/d2b-test-btf-io-XXXXXX";

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_write_raw_and_load(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL), *back = NULL;
	char path[256], err[512];
	struct stat st;

	REQUIRE(btf);
	CHECK_EQ(sample_all_kinds(btf), 0);
	snprintf(path, sizeof(path), "%s/all.btf", tmpdir);
	CHECK_EQ(d2b_btf__write_raw(btf, path, NULL, 0), 0);
	CHECK_EQ(count_entries(tmpdir), 1);
	CHECK_EQ(d2b_btf__load_file(path, NULL, &back, err, sizeof(err)), 0);
	if (back)
		check_same_types(btf, back);
	d2b_btf__free(back);
	back = NULL;
	/* rewriting keeps the file's mode and leaves no temp file */
	CHECK_EQ(chmod(path, 0600), 0);
	CHECK_EQ(d2b_btf__write_raw(btf, path, NULL, 0), 0);
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0600);
	CHECK_EQ(count_entries(tmpdir), 1);
	/* a directory that does not exist: an error, nothing written, and a
	 * message that does not name the file (the caller does) */
	snprintf(path, sizeof(path), "%s/nodir/x.btf", tmpdir);
	CHECK_EQ(d2b_btf__write_raw(btf, path, NULL, 0), -ENOENT);
	CHECK_EQ(d2b_btf__write_raw(btf, path, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "temporary file") && strstr(err, "No such file"));
	CHECK(strstr(err, "x.btf") == NULL && strstr(err, tmpdir) == NULL);
	/* success leaves "" */
	snprintf(path, sizeof(path), "%s/all.btf", tmpdir);
	CHECK_EQ(d2b_btf__write_raw(btf, path, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	d2b_btf__free(btf);
}

static void test_load_errors(void)
{
	struct d2b_btf *btf = NULL;
	char path[256], err[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/missing.btf", tmpdir);
	CHECK_EQ(d2b_btf__load_file(path, NULL, &btf, err, sizeof(err)), -ENOENT);
	/* the reason only: the caller names the file */
	CHECK(strstr(err, path) == NULL && strstr(err, "No such file"));
	CHECK_EQ(d2b_btf__load_file(tmpdir, NULL, &btf, err, sizeof(err)), -EISDIR);
	CHECK(strstr(err, tmpdir) == NULL && strstr(err, "directory"));
	snprintf(path, sizeof(path), "%s/garbage", tmpdir);
	f = fopen(path, "w");
	REQUIRE(f);
	fputs("hello, world\n", f);
	fclose(f);
	CHECK_EQ(d2b_btf__load_file(path, NULL, &btf, err, sizeof(err)), -EINVAL);
	CHECK(!strstr(err, path) && strstr(err, "neither an ELF file nor raw BTF"));
	/* raw BTF that is cut short: the reason */
	f = fopen(path, "w");
	REQUIRE(f);
	fwrite("\x9f\xeb\x01\x00\x18\x00\x00\x00", 1, 8, f);
	fclose(f);
	CHECK_EQ(d2b_btf__load_file(path, NULL, &btf, err, sizeof(err)), -EINVAL);
	CHECK(!strstr(err, path) && strstr(err, "too few"));
	CHECK(btf == NULL);
	unlink(path);
}

/* A minimal ELF with (optionally) a .BTF section, compressed or not. */
static int write_elf(const char *path, const void *btf, size_t size, bool with_btf, bool compress)
{
	static char shstrtab[] = "\0.shstrtab\0.BTF\0.text";
	Elf *e = NULL;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	Elf_Scn *scn;
	Elf_Data *d;
	int fd, err = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e)
		goto out;
	eh = elf64_newehdr(e);
	if (!eh)
		goto out;
	eh->e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh->e_type = ET_REL;
	eh->e_machine = EM_BPF;
	eh->e_version = EV_CURRENT;

	scn = elf_newscn(e);
	d = scn ? elf_newdata(scn) : NULL;
	if (!d)
		goto out;
	d->d_buf = shstrtab;
	d->d_size = sizeof(shstrtab);
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	sh = elf64_getshdr(scn);
	sh->sh_name = 1;
	sh->sh_type = SHT_STRTAB;
	eh->e_shstrndx = elf_ndxscn(scn);

	scn = elf_newscn(e);
	d = scn ? elf_newdata(scn) : NULL;
	if (!d)
		goto out;
	d->d_buf = (void *)btf;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 4;
	sh = elf64_getshdr(scn);
	sh->sh_name = with_btf ? 11 : 16;
	sh->sh_type = SHT_PROGBITS;
	if (compress && elf_compress(scn, ELFCOMPRESS_ZLIB, 0) < 0)
		goto out;
	if (elf_update(e, ELF_C_WRITE) < 0)
		goto out;
	err = 0;
out:
	if (err)
		printf("#   libelf: %s\n", elf_errmsg(-1));
	elf_end(e);
	close(fd);
	return err;
}

static void test_load_elf(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL), *back = NULL;
	char path[256], err[512];
	void *raw = NULL;
	size_t size;
	int compress;

	REQUIRE(btf);
	CHECK_EQ(sample_all_kinds(btf), 0);
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), 0);
	REQUIRE(raw);
	snprintf(path, sizeof(path), "%s/obj.o", tmpdir);
	for (compress = 0; compress <= 1; compress++) {
		CHECK_EQ(write_elf(path, raw, size, true, compress), 0);
		back = NULL;
		CHECK_EQ(d2b_btf__load_file(path, NULL, &back, err, sizeof(err)), 0);
		if (back)
			check_same_types(btf, back);
		else
			printf("#   load (compress=%d): %s\n", compress, err);
		d2b_btf__free(back);
	}
	CHECK_EQ(write_elf(path, raw, size, false, false), 0);
	back = NULL;
	CHECK_EQ(d2b_btf__load_file(path, NULL, &back, err, sizeof(err)), -ENOENT);
	CHECK(!strstr(err, path) && strstr(err, "no .BTF section"));
	/* a corrupt .BTF is reported with the section */
	((uint8_t *)raw)[2] = 9;
	CHECK_EQ(write_elf(path, raw, size, true, false), 0);
	CHECK_EQ(d2b_btf__load_file(path, NULL, &back, err, sizeof(err)), -EINVAL);
	CHECK(!strstr(err, path) && strstr(err, ".BTF: unsupported BTF version 9"));
	unlink(path);
	free(raw);
	d2b_btf__free(btf);
}

int main(void)
{
	char path[300];

	RUN(test_roundtrip_all_kinds);
	RUN(test_roundtrip_swapped);
	RUN(test_header_layout);
	RUN(test_roundtrip_split);
	RUN(test_split_empty_strings);
	RUN(test_split_no_leading_nul);
	RUN(test_encode_undefined);
	RUN(test_malformed);
	RUN(test_malformed_swapped);
	if (!mkdtemp(tmpdir)) {
		printf("FAIL files: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	RUN(test_write_raw_and_load);
	RUN(test_load_errors);
	RUN(test_load_elf);
	snprintf(path, sizeof(path), "%s/all.btf", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	return test_done();
}
