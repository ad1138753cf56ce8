// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target for the DIE reader (lib/dwarf/die_reader.h) on its own,
 * without libdw or ELF around the sections.  An input is
 *
 *	u8 flags (bit 0: big-endian), then 7 u32 (little-endian) lengths of
 *	.debug_info .debug_types .debug_abbrev .debug_str .debug_line_str
 *	.debug_str_offsets .debug_addr, then those sections' bytes in that
 *	order (a length past the end is cut; 0: the section is absent)
 *
 * Every unit of both unit sections is loaded and walked twice: with the
 * cursor, reading every attribute and following references; and by child
 * and sibling links, in as many steps as the walker allows.  Invariants (a
 * broken one aborts): every failing call leaves a message, units advance,
 * the cursor meets at most as many DIEs as the unit has bytes.
 *
 * Seeds: the debug sections of the e2e fixtures (tests/fuzz/seeds.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "base/diag.h"
#include "dwarf/die_reader.h"
#include "fuzz.h"

static volatile uint64_t fuzz_die_sink;

enum {
	FUZZ_DIE_HEADER = 1 + 4 * DIE_SEC_NR,
	/* child and sibling steps per byte of a unit, as the walker allows
	 * (CU_STEPS_PER_BYTE, lib/unit/cu.h): die__sibling() trusts a forward
	 * DW_AT_sibling even into the DIE's own subtree, so a walk that meets
	 * DIEs again and again is cut off by its caller */
	FUZZ_DIE_STEPS_PER_BYTE = 16,
};

/* What the unit says of its failures, since it was last loaded. */
static struct diag fuzz_die_why = { .kept = true, .newest_only = true };

static int fuzz_die_failed(const char *what)
{
	if (!diag__last(&fuzz_die_why)[0]) {
		fprintf(stderr, "fuzz: %s failed without a message\n", what);
		return -1;
	}
	return 0;
}

/* Read every attribute of d and what it points to. */
static int fuzz_die_attrs(struct die_unit *u, const struct die *d)
{
	struct die_attr want[3] = { { .name = DW_AT_name }, { .name = DW_AT_type },
				    { .name = DW_AT_byte_size } };
	struct die_attr_iter it;
	struct die_attr a;
	struct die t;
	int e;

	die__attr_iter_init(d, &it);
	while ((e = die__next_attr(u, d, &it, &a)) > 0) {
		switch (a.form) {
		case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
		case DW_FORM_ref_udata:
			if (die_unit__die_at(u, a.u, &t) >= 0)
				fuzz_die_sink += t.tag;
			break;
		default:
			break;
		}
		/* touch what the value points to */
		if (a.str)
			fuzz_die_sink += strlen(a.str);
		if (a.block && a.len)
			fuzz_die_sink += a.block[0] + a.block[a.len - 1];
		if (die_attr__is_constant(&a))
			fuzz_die_sink += die_attr__sdata(&a) + die_attr__udata(&a);
	}
	if (e < 0)
		return fuzz_die_failed("die__next_attr");
	/* by name: one at a time, and several in one pass */
	if (die__has_attr(u, d, DW_AT_name) && die__attr(u, d, DW_AT_name, &a) < 0)
		return fuzz_die_failed("die__attr");
	if (die__attrs(u, d, want, 3) < 0)
		return fuzz_die_failed("die__attrs");
	return 0;
}

/* The cursor walk: every DIE in order, each at least a byte further. */
static int fuzz_die_cursor(struct die_unit *u)
{
	const struct die_unit_header *h = die_unit__header(u);
	uint64_t n = 0;
	struct die_cursor c;
	struct die d;
	int e;

	die_cursor__init(u, &c);
	while ((e = die_cursor__next(u, &c, &d)) > 0) {
		if (++n > h->next_off - h->off) {
			fprintf(stderr, "fuzz: the cursor meets more DIEs than the unit has bytes\n");
			return -1;
		}
		if (fuzz_die_attrs(u, &d))
			return -1;
		/* now and then skip a subtree (the DW_AT_sibling path) */
		if (d.has_children && (d.off & 3) == 1 &&
		    die_cursor__skip_children(u, &c, &d) < 0)
			return fuzz_die_failed("die_cursor__skip_children");
	}
	return e < 0 ? fuzz_die_failed("die_cursor__next") : 0;
}

/* The link walk: root, then child and sibling, depth first, in *steps_left
 * steps and DIE_MAX_DEPTH levels at most (then it stops, as the walker
 * does). */
static int fuzz_die_links(struct die_unit *u, const struct die *d, unsigned int depth,
			  uint64_t *steps_left)
{
	struct die c;
	int e;

	if (depth > DIE_MAX_DEPTH)
		return 0;	/* (die__child cannot know the depth: the walker bounds it) */
	for (e = die__child(u, d, &c); e > 0; e = die__sibling(u, &c, &c)) {
		if (!*steps_left)
			return 0;
		--*steps_left;
		if (fuzz_die_links(u, &c, depth + 1, steps_left))
			return -1;
	}
	return e < 0 ? fuzz_die_failed("die__child/die__sibling") : 0;
}

static int fuzz_die_units(struct die_unit *u, const struct die_reader *r, enum die_section sec)
{
	uint64_t off, next, end = die_reader__section_size(r, sec);

	for (off = 0; off < end; off = next) {
		const struct die_unit_header *h;
		uint64_t steps;
		struct die root;

		diag__clear(&fuzz_die_why);
		if (die_unit__load(u, sec, off) < 0)
			return fuzz_die_failed("die_unit__load");
		h = die_unit__header(u);
		next = h->next_off;
		if (next <= off || h->off != off) {
			fprintf(stderr, "fuzz: unit at 0x%llx does not advance\n",
				(unsigned long long)off);
			return -1;
		}
		if (fuzz_die_cursor(u))
			return -1;
		if (die_unit__root(u, &root) < 0) {
			if (fuzz_die_failed("die_unit__root"))
				return -1;
			continue;
		}
		steps = FUZZ_DIE_STEPS_PER_BYTE * (next - off);
		if (fuzz_die_links(u, &root, 0, &steps))
			return -1;
	}
	return 0;
}

/* Returns 0, or -1 if an invariant broke (message on stderr). */
static int fuzz_die_reader(const uint8_t *data, size_t size)
{
	struct die_sections secs = { 0 };
	struct die_reader *r = NULL;
	struct die_unit *u = NULL;
	const uint8_t *p = data + FUZZ_DIE_HEADER;
	size_t left;
	int i, ret = -1;

	if (size < FUZZ_DIE_HEADER)
		return 0;
	left = size - FUZZ_DIE_HEADER;
	for (i = 0; i < DIE_SEC_NR; i++) {
		const uint8_t *l = data + 1 + 4 * i;
		size_t len = (uint32_t)l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 |
			     (uint32_t)l[3] << 24;

		if (len > left)
			len = left;
		if (len) {
			/* exact-size copies, so ASan sees a read past a section */
			uint8_t *copy = malloc(len);

			if (!copy)
				goto out;
			memcpy(copy, p, len);
			secs.sec[i].buf = copy;
			secs.sec[i].size = len;
		}
		p += len;
		left -= len;
	}
	diag__clear(&fuzz_die_why);
	if (die_reader__new(&secs, data[0] & 1, &fuzz_die_why, &r)) {
		if (r || !diag__last(&fuzz_die_why)[0]) {
			fprintf(stderr, "fuzz: die_reader__new failed without a message\n");
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (die_unit__new(r, &fuzz_die_why, &u))
		goto out;
	if (!fuzz_die_units(u, r, DIE_SEC_INFO) && !fuzz_die_units(u, r, DIE_SEC_TYPES))
		ret = 0;
out:
	die_unit__free(u);
	die_reader__free(r);
	for (i = 0; i < DIE_SEC_NR; i++)
		free((void *)secs.sec[i].buf);
	return ret;
}

FUZZ_TARGET(fuzz_die_reader)
