// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The layout section (libbpf 1.8, Linux 7.1): the 32-byte header and the
 * records between types and strings, byte for byte as libbpf writes them;
 * round trips in both byte orders; never in split BTF; malformed sections
 * with the error each must give; the verifier's and the dump's view.
 */
#include <errno.h>
#include <stdint.h>

#include "btf/btf.h"
#include "dwarf2btf.h"
#include "test.h"
#include "../tools/btf_samples.h"

enum {
	NR_KINDS = D2B_KIND_MAX + 1,
	LAYOUT_LEN = NR_KINDS * 4,
};

/* libbpf 1.8's table, as pahole git HEAD writes it (little-endian bytes):
 * the expected layout section, written out here rather than derived */
static const uint8_t libbpf_layout[LAYOUT_LEN] = {
	0, 0, 0, 0,	4, 0, 0, 0,	0, 0, 0, 0,	12, 0, 0, 0,	/* UNKN INT PTR ARRAY */
	0, 12, 0, 0,	0, 12, 0, 0,	0, 8, 0, 0,	0, 0, 0, 0,	/* STRUCT UNION ENUM FWD */
	0, 0, 0, 0,	0, 0, 0, 0,	0, 0, 0, 0,	0, 0, 0, 0,	/* TYPEDEF VOLATILE CONST RESTRICT */
	0, 0, 0, 0,	0, 8, 0, 0,	4, 0, 0, 0,	0, 12, 0, 0,	/* FUNC FUNC_PROTO VAR DATASEC */
	0, 0, 0, 0,	4, 0, 0, 0,	0, 0, 0, 0,	0, 12, 0, 0,	/* FLOAT DECL_TAG TYPE_TAG ENUM64 */
};

static uint32_t get_u32(const uint8_t *b, size_t off, bool big)
{
	return big ? (uint32_t)b[off] << 24 | b[off + 1] << 16 | b[off + 2] << 8 | b[off + 3] :
		     (uint32_t)b[off + 3] << 24 | b[off + 2] << 16 | b[off + 1] << 8 | b[off];
}

static void put_u32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* A BTF of every kind with a layout section, encoded in byte order e. */
static int layout_blob(enum d2b_endian e, void **ret, size_t *ret_size)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int err;

	if (!btf)
		return -ENOMEM;
	err = sample_all_kinds(btf);
	if (!err)
		err = d2b_btf__set_layout(btf, true);
	if (!err) {
		d2b_btf__set_endian(btf, e);
		err = d2b_btf__encode(btf, ret, ret_size);
	}
	d2b_btf__free(btf);
	return err;
}

/* Header, section order and records, in both byte orders; parse and
 * encode again gives the same bytes. */
static void test_encode_layout(void)
{
	static const enum d2b_endian orders[] = { D2B_ENDIAN_LITTLE, D2B_ENDIAN_BIG };
	size_t o;

	for (o = 0; o < 2; o++) {
		bool big = orders[o] == D2B_ENDIAN_BIG;
		struct d2b_btf *back = NULL;
		void *raw = NULL, *raw2 = NULL;
		const struct d2b_layout *l;
		uint32_t type_len, nr, k;
		size_t size, size2;
		const uint8_t *b;
		char err[256];

		CHECK_EQ(layout_blob(orders[o], &raw, &size), 0);
		REQUIRE(raw);
		b = raw;
		type_len = get_u32(b, 12, big);
		CHECK_EQ(get_u32(b, 4, big), 32);			/* hdr_len */
		CHECK_EQ(get_u32(b, 8, big), 0);			/* type_off */
		CHECK_EQ(get_u32(b, 24, big), type_len);		/* layout_off */
		CHECK_EQ(get_u32(b, 28, big), LAYOUT_LEN);		/* layout_len */
		CHECK_EQ(get_u32(b, 16, big), type_len + LAYOUT_LEN);	/* str_off */
		CHECK_EQ(size, 32 + type_len + LAYOUT_LEN + get_u32(b, 20, big));
		/* (u8, u8, u16 0: the same bytes in both orders) */
		CHECK(!memcmp(b + 32 + type_len, libbpf_layout, LAYOUT_LEN));
		/* flags, in the blob's order: FWD's 0x0102 */
		((uint8_t *)raw)[32 + type_len + 4 * D2B_KIND_FWD + 2] = big ? 1 : 2;
		((uint8_t *)raw)[32 + type_len + 4 * D2B_KIND_FWD + 3] = big ? 2 : 1;

		CHECK_EQ(d2b_btf__parse_raw(raw, size, NULL, &back, err, sizeof(err)), 0);
		if (!back) {
			printf("#   parse: %s\n", err);
			free(raw);
			continue;
		}
		l = d2b_btf__layout(back, &nr);
		CHECK_EQ(nr, NR_KINDS);
		for (k = 0; l && k < nr; k++) {
			CHECK_EQ(l[k].info_sz, libbpf_layout[k * 4]);
			CHECK_EQ(l[k].elem_sz, libbpf_layout[k * 4 + 1]);
			CHECK_EQ(l[k].flags, k == D2B_KIND_FWD ? 0x0102 : 0);
		}
		CHECK_EQ(d2b_btf__encode(back, &raw2, &size2), 0);
		CHECK(raw2 && size == size2 && !memcmp(raw, raw2, size));
		/* (the sample breaks some kernel rules on purpose: only FWD's
		 * flags are more) */
		nr = (uint32_t)d2b_btf__verify(back, 0, NULL, NULL);
		CHECK_EQ(d2b_btf__set_layout(back, true), 0);
		CHECK_EQ(d2b_btf__verify(back, 0, NULL, NULL), (int)nr - 1);
		free(raw);
		free(raw2);
		d2b_btf__free(back);
	}
}

/* Off by default, and again once turned off: the 24-byte header. */
static void test_layout_off(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	uint32_t nr = 1;
	void *raw = NULL;
	size_t size;

	REQUIRE(btf);
	CHECK(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED) == 1);
	CHECK(d2b_btf__layout(btf, &nr) == NULL && nr == 0);
	CHECK_EQ(d2b_btf__set_layout(btf, true), 0);
	CHECK_EQ(d2b_btf__set_layout(btf, false), 0);
	d2b_btf__set_endian(btf, D2B_ENDIAN_LITTLE);
	CHECK_EQ(d2b_btf__encode(btf, &raw, &size), 0);
	REQUIRE(raw);
	CHECK_EQ(size, 24 + 16 + 5);
	CHECK_EQ(((const uint8_t *)raw)[4], 24);
	free(raw);
	d2b_btf__free(btf);
}

/* Split BTF: never written with one; one read is kept as it was. */
static void test_layout_split(void)
{
	struct d2b_btf *base = d2b_btf__new(NULL), *split = NULL, *back = NULL;
	void *raw = NULL, *raw2 = NULL, *blob = NULL;
	size_t size, size2;
	uint32_t nr, type_len, str_len;
	char err[256];

	REQUIRE(base);
	CHECK_EQ(sample_base(base), 0);
	split = d2b_btf__new(base);
	REQUIRE(split);
	CHECK_EQ(sample_split(split), 0);
	CHECK_EQ(d2b_btf__set_layout(split, true), -EINVAL);
	CHECK(d2b_btf__layout(split, &nr) == NULL && nr == 0);
	d2b_btf__set_endian(split, D2B_ENDIAN_LITTLE);
	CHECK_EQ(d2b_btf__encode(split, &raw, &size), 0);
	REQUIRE(raw);
	CHECK_EQ(((const uint8_t *)raw)[4], 24);

	/* libbpf and the kernel take a split BTF with a layout section: so do we */
	memcpy(&type_len, (uint8_t *)raw + 12, 4);
	memcpy(&str_len, (uint8_t *)raw + 20, 4);
	blob = calloc(1, 32 + type_len + LAYOUT_LEN + str_len);
	REQUIRE(blob);
	memcpy(blob, raw, 24);
	put_u32(blob, 4, 32);
	put_u32(blob, 16, type_len + LAYOUT_LEN);
	put_u32(blob, 24, type_len);
	put_u32(blob, 28, LAYOUT_LEN);
	memcpy((uint8_t *)blob + 32, (uint8_t *)raw + 24, type_len);
	memcpy((uint8_t *)blob + 32 + type_len, libbpf_layout, LAYOUT_LEN);
	memcpy((uint8_t *)blob + 32 + type_len + LAYOUT_LEN, (uint8_t *)raw + 24 + type_len, str_len);
	size = 32 + type_len + LAYOUT_LEN + str_len;
	CHECK_EQ(d2b_btf__parse_raw(blob, size, base, &back, err, sizeof(err)), 0);
	if (back) {
		CHECK(d2b_btf__layout(back, &nr) != NULL && nr == NR_KINDS);
		CHECK_EQ(d2b_btf__encode(back, &raw2, &size2), 0);
		CHECK(raw2 && size2 == size && !memcmp(raw2, blob, size));
	} else {
		printf("#   parse: %s\n", err);
	}
	free(raw);
	free(raw2);
	free(blob);
	d2b_btf__free(back);
	d2b_btf__free(split);
	d2b_btf__free(base);
}

struct bad_layout {
	const char *name;
	size_t off;		/* header field to patch: 24 layout_off, 28 layout_len */
	bool after_types;	/* value is added to the type section's length */
	int32_t value;
	const char *msg;	/* expected substring of the reason */
};

static const struct bad_layout bad_layouts[] = {
	{ "misaligned", 24, true, 2, "layout section offset" },
	{ "partial record", 28, false, LAYOUT_LEN - 2, "is not a multiple of 4" },
	{ "past the end", 28, false, LAYOUT_LEN + 4096, "runs past the end of the data" },
	{ "over the types", 24, true, -8, "overlaps the type section" },
	{ "over the strings", 24, true, 8, "overlaps the string section" },
};

static void test_layout_malformed(void)
{
	struct d2b_btf *btf = NULL;
	void *raw = NULL;
	uint8_t *blob;
	uint32_t type_len;
	size_t size, i;
	char err[256];

	CHECK_EQ(layout_blob(D2B_ENDIAN_LITTLE, &raw, &size), 0);
	REQUIRE(raw);
	blob = malloc(size + 4);
	REQUIRE(blob);
	type_len = get_u32(raw, 12, false);
	for (i = 0; i < sizeof(bad_layouts) / sizeof(bad_layouts[0]); i++) {
		const struct bad_layout *c = &bad_layouts[i];
		uint32_t v = (c->after_types ? type_len : 0) + c->value;

		memcpy(blob, raw, size);
		put_u32(blob, c->off, v);
		err[0] = '\0';
		CHECK_EQ(d2b_btf__parse_raw(blob, size, NULL, &btf, err, sizeof(err)), -EINVAL);
		CHECK(btf == NULL);
		if (!strstr(err, c->msg))
			printf("#   %s: got '%s', want '%s'\n", c->name, err, c->msg);
		CHECK(strstr(err, c->msg) != NULL);
		d2b_btf__free(btf);
		btf = NULL;
	}
	/* a header longer still: its unknown bytes must be zero */
	memcpy(blob, raw, 32);
	memset(blob + 32, 0, 4);
	memcpy(blob + 36, (uint8_t *)raw + 32, size - 32);
	put_u32(blob, 4, 36);
	CHECK_EQ(d2b_btf__parse_raw(blob, size + 4, NULL, &btf, err, sizeof(err)), 0);
	d2b_btf__free(btf);
	btf = NULL;
	blob[33] = 1;
	CHECK_EQ(d2b_btf__parse_raw(blob, size + 4, NULL, &btf, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "unknown header field at byte 33") != NULL);
	free(blob);
	free(raw);
}

static void count_report(void *arg, uint32_t id, const char *msg)
{
	(void)id;
	if (strstr(msg, "layout section: kind 4 (STRUCT)") || strstr(msg, "kind 7 has flags"))
		(*(int *)arg)++;
}

/* A record that misdescribes its kind, or has flags, is reported. */
static void test_layout_verify(void)
{
	struct d2b_btf *btf = NULL;
	struct d2b_layout *l;
	void *raw = NULL;
	uint32_t type_len;
	size_t size;
	int seen = 0, clean;
	char err[256];

	CHECK_EQ(layout_blob(D2B_ENDIAN_LITTLE, &raw, &size), 0);
	REQUIRE(raw);
	type_len = get_u32(raw, 12, false);
	CHECK_EQ(d2b_btf__parse_raw(raw, size, NULL, &btf, err, sizeof(err)), 0);
	REQUIRE(btf);
	clean = d2b_btf__verify(btf, 0, NULL, NULL);
	d2b_btf__free(btf);
	btf = NULL;
	l = (struct d2b_layout *)((uint8_t *)raw + 32 + type_len);
	l[D2B_KIND_STRUCT].elem_sz = 16;
	l[D2B_KIND_FWD].flags = 1;
	CHECK_EQ(d2b_btf__parse_raw(raw, size, NULL, &btf, err, sizeof(err)), 0);
	REQUIRE(btf);
	CHECK_EQ(d2b_btf__verify(btf, 0, count_report, &seen), clean + 2);
	CHECK_EQ(seen, 2);
	d2b_btf__free(btf);
	free(raw);
}

/* The dump: bpftool's lines, then the records. */
static void test_layout_dump(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(btf);
	CHECK(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED) == 1);
	CHECK_EQ(d2b_btf__set_layout(btf, true), 0);
	f = open_memstream(&s, &len);
	REQUIRE(f);
	CHECK_EQ(d2b_btf__dump(btf, f), 0);
	fclose(f);
	REQUIRE(s);
	CHECK(!strncmp(s, "[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n"
		       "LAYOUT kinds=20\n\t[0] UNKNOWN info_sz=0 elem_sz=0 flags=0x0\n", 120));
	CHECK(strstr(s, "\t[4] STRUCT info_sz=0 elem_sz=12 flags=0x0\n") != NULL);
	CHECK(strstr(s, "\t[19] ENUM64 info_sz=0 elem_sz=12 flags=0x0\n") != NULL);
	free(s);
	d2b_btf__free(btf);
}

int main(void)
{
	RUN(test_encode_layout);
	RUN(test_layout_off);
	RUN(test_layout_split);
	RUN(test_layout_malformed);
	RUN(test_layout_verify);
	RUN(test_layout_dump);
	return test_done();
}
