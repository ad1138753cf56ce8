// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target for split DWARF files: an input is the bytes of a .dwo file
 * or a .dwp package (an ELF file), read as a split unit's file is
 * (die_reader__from_elf: its .debug_*.dwo sections, a package's
 * .debug_cu_index and .debug_tu_index checked, type units in sections of
 * their own joined).  Every unit of both unit sections is loaded with the
 * package's contributions and walked with the cursor, every attribute
 * read; each unit's id is looked up again (die_reader__split_unit).
 * Invariants (a broken one aborts): every failing load or walk leaves a
 * message, and a reader that cannot be made says why.
 *
 * Seeds: tests/fuzz/seeds.sh (.dwo files and packages of the e2e
 * fixtures); tests/fuzz/regressions/split_file/ holds a DWARF 5 package and
 * a GNU DWARF 4 .dwo file, which test_fuzz_replay also mutates.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libelf.h>

#include "base/diag.h"
#include "dwarf/die_reader.h"
#include "fuzz.h"

static volatile uint64_t fuzz_split_sink;

/* What the unit says of its failures, since it was last loaded. */
static struct diag fuzz_split_why = { .kept = true, .newest_only = true };

static int fuzz_split_failed(const char *what)
{
	if (!diag__last(&fuzz_split_why)[0]) {
		fprintf(stderr, "fuzz: %s failed without a message\n", what);
		return -1;
	}
	return 0;
}

/* Load unit off of sec and read every attribute of every DIE. */
static int fuzz_split_unit(const struct die_reader *r, struct die_unit *u, enum die_section sec,
			   uint64_t off)
{
	struct die_cursor c;
	struct die d;
	uint64_t found, n = 0;
	int e;

	diag__clear(&fuzz_split_why);
	if (die_unit__load(u, sec, off) < 0)
		return fuzz_split_failed("die_unit__load");
	if (die_unit__header(u)->unit_type == DW_UT_split_compile)
		fuzz_split_sink += die_reader__split_unit(r, die_unit__header(u)->signature, &found);
	die_cursor__init(u, &c);
	while ((e = die_cursor__next(u, &c, &d)) > 0) {
		struct die_attr_iter it;
		struct die_attr a;

		if (++n > die_unit__header(u)->next_off - off) {
			fprintf(stderr, "fuzz: more DIEs than bytes in unit 0x%llx\n",
				(unsigned long long)off);
			return -1;
		}
		die__attr_iter_init(&d, &it);
		while ((e = die__next_attr(u, &d, &it, &a)) > 0) {
			if (a.str)
				fuzz_split_sink += strlen(a.str);
			if (a.block && a.len)
				fuzz_split_sink += a.block[0] + a.block[a.len - 1];
		}
		if (e < 0)
			return fuzz_split_failed("die__next_attr");
	}
	return e < 0 ? fuzz_split_failed("die_cursor__next") : 0;
}

static int fuzz_split_file(const uint8_t *data, size_t size)
{
	static const enum die_section secs[2] = { DIE_SEC_INFO, DIE_SEC_TYPES };
	struct die_reader *r = NULL;
	struct die_unit *u = NULL;
	char *copy;
	Elf *elf;
	size_t i;
	int s, rc = 0;

	/* libelf may write into the image (inflating a section): a copy */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (!elf)
		goto out;
	diag__clear(&fuzz_split_why);
	if (die_reader__from_elf(elf, &fuzz_split_why, &r) < 0) {
		if (!diag__last(&fuzz_split_why)[0]) {
			fprintf(stderr, "fuzz: die_reader__from_elf failed without a message\n");
			rc = -1;
		}
		goto out;
	}
	if (die_unit__new(r, &fuzz_split_why, &u))
		goto out;
	for (s = 0; s < 2 && !rc; s++)
		for (i = 0; i < die_reader__nr_units(r, secs[s]) && !rc; i++)
			rc = fuzz_split_unit(r, u, secs[s], die_reader__unit_off(r, secs[s], i));
out:
	die_unit__free(u);
	die_reader__free(r);
	elf_end(elf);
	free(copy);
	return rc;
}

FUZZ_TARGET(fuzz_split_file)
