// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * lib/dwarf/dwp_index.c: a package's unit index, versions 2 and 5, both
 * byte orders, and damaged ones (each refused with its reason, never read
 * out of bounds: the suite runs under ASan).  Real packages from dwp and
 * llvm-dwp-19 are converted in tests/dwz.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "dwarf/dwp_index.h"
#include "test.h"

enum { MAX_BYTES = 512 };

struct blob {
	uint8_t b[MAX_BYTES];
	size_t n;
	bool be;
};

static void put(struct blob *x, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		x->b[x->n + i] = (uint8_t)(v >> (8 * (x->be ? size - 1 - i : i)));
	x->n += size;
}

/*
 * An index of version v: nunits rows (row r: signature 0x1000 + r, unit
 * contribution at 0x40 * r size 0x40, abbrev at 0x10 * r size 0x10,
 * str_offsets at 0x8 * r size 0x8), in 2 * nunits slots.
 */
static void make_index(struct blob *x, unsigned int v, unsigned int nunits, bool be)
{
	static const unsigned int cols_v5[] = { 1, 3, 6 }, cols_v2[] = { 1, 3, 6 };
	const unsigned int *cols = v == 5 ? cols_v5 : cols_v2;
	unsigned int nslots = 2 * nunits, s, r, c;

	memset(x, 0, sizeof(*x));
	x->be = be;
	if (v == 5) {
		put(x, 5, 2);
		put(x, 0, 2);
	} else {
		put(x, v, 4);
	}
	put(x, 3, 4);
	put(x, nunits, 4);
	put(x, nslots, 4);
	for (s = 0; s < nslots; s++)
		put(x, s < nunits ? 0x1000 + s + 1 : 0, 8);
	for (s = 0; s < nslots; s++)
		put(x, s < nunits ? s + 1 : 0, 4);
	for (c = 0; c < 3; c++)
		put(x, cols[c], 4);
	for (r = 1; r <= nunits; r++) {
		put(x, 0x40 * (r - 1), 4);
		put(x, 0x10 * (r - 1), 4);
		put(x, 0x8 * (r - 1), 4);
	}
	for (r = 1; r <= nunits; r++) {
		put(x, 0x40, 4);
		put(x, 0x10, 4);
		put(x, 0x8, 4);
	}
}

static struct die_bytes secs[DIE_SEC_NR];

/* dwp_index__parse(), the reason of a failure in err */
static int parse(const struct blob *x, bool is_tu, struct dwp_row **rows, size_t *nr,
		 char *err, size_t errlen)
{
	static uint8_t dummy[0x1000];
	struct die_bytes idx = { x->b, x->n };
	struct diag why;
	size_t cap = 0;
	int rc;

	secs[DIE_SEC_INFO] = (struct die_bytes){ dummy, 0x100 };
	secs[DIE_SEC_TYPES] = (struct die_bytes){ dummy, 0x100 };
	secs[DIE_SEC_ABBREV] = (struct die_bytes){ dummy, 0x40 };
	secs[DIE_SEC_STR_OFFSETS] = (struct die_bytes){ dummy, 0x20 };
	*rows = NULL;
	*nr = 0;
	diag__init_held(&why);
	rc = dwp_index__parse(&idx, is_tu, x->be, secs, rows, nr, &cap, &why);
	snprintf(err, errlen, "%s", diag__last(&why));
	diag__release(&why);
	return rc;
}

static void test_good(void)
{
	static const struct { unsigned int v; bool be, tu; } cases[] = {
		{ 5, false, false }, { 5, true, false }, { 2, false, false }, { 2, true, true },
		{ 5, false, true },
	};
	size_t i, j, nr;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dwp_row *rows;
		struct blob x;
		char err[256];

		make_index(&x, cases[i].v, 4, cases[i].be);
		CHECK_EQ(parse(&x, cases[i].tu, &rows, &nr, err, sizeof(err)), 0);
		CHECK_EQ(nr, 4);
		for (j = 0; j < nr && j < 4; j++) {
			CHECK_EQ(rows[j].sig, 0x1000 + j + 1);
			CHECK_EQ(rows[j].off[DWP_UNITS], 0x40 * j);
			CHECK_EQ(rows[j].size[DWP_UNITS], 0x40);
			CHECK_EQ(rows[j].off[DWP_ABBREV], 0x10 * j);
			CHECK_EQ(rows[j].off[DWP_STR_OFFSETS], 0x8 * j);
			CHECK_EQ(rows[j].is_type, cases[i].tu);
			/* version 2 type units live in .debug_types.dwo */
			CHECK_EQ(rows[j].sec, cases[i].v == 2 && cases[i].tu ? DIE_SEC_TYPES :
				 DIE_SEC_INFO);
		}
		free(rows);
	}
}

/* Each damage is refused, with a message naming what is wrong. */
static void test_damaged(void)
{
	static const struct {
		const char *name;
		size_t at;		/* byte to overwrite (4 bytes, little-endian) */
		uint32_t val;
		size_t cut;		/* or: keep only this many bytes */
		const char *why;
	} cases[] = {
		{ "short header", 0, 0, 12, "header" },
		{ "bad version", 0, 7, 0, "version" },
		{ "no columns", 4, 0, 0, "columns" },
		{ "too many units", 8, 0x10000, 0, "run past" },
		{ "too many slots", 12, 0x7fffffff, 0, "run past" },
		{ "cut tables", 0, 0, 100, "run past" },
		/* slot 0's row number (after 8 slots of 8 bytes) */
		{ "row past units", 16 + 64, 9, 0, "names row" },
		/* row 1's unit offset: past .debug_info.dwo */
		{ "contribution past end", 16 + 96 + 12, 0xfff0, 0, "runs past" },
	};
	size_t i, nr;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dwp_row *rows;
		struct blob x;
		char err[256];
		int rc;

		make_index(&x, 5, 4, false);
		if (cases[i].cut)
			x.n = cases[i].cut;
		else
			memcpy(x.b + cases[i].at, &(uint32_t){ cases[i].val }, 4);
		rc = parse(&x, false, &rows, &nr, err, sizeof(err));
		if (rc != -EINVAL || !strstr(err, cases[i].why))
			printf("#   %s: %d '%s'\n", cases[i].name, rc, err);
		CHECK_EQ(rc, -EINVAL);
		CHECK(strstr(err, cases[i].why) != NULL);
		free(rows);
	}
}

int main(void)
{
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		printf("SKIP dwp_index: the damage table assumes a little-endian host\n");
		return 0;
	}
	RUN(test_good);
	RUN(test_damaged);
	return test_done();
}
