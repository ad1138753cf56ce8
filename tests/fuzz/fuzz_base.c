// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target for --base inputs: raw BTF bytes used both ways a base is.
 *
 *  1. as the base: parsed, then a fixed object (tests/sample/sample.o)
 *     converted over it, as `dwarf2btf -b BASE -o OUT sample.o` does;
 *  2. as split BTF over a fixed base: the BTF converted from that object,
 *     as a module's .BTF over vmlinux's.
 *
 * Invariants (a broken one aborts): a failed parse or conversion leaves a
 * message and no BTF; a split BTF converted over the base obeys the kernel's
 * rules, its encoding parses back over the base and encodes to the same
 * bytes; distilling its base (.BTF.base) gives a base and a split BTF that
 * both parse back; a split input that parses dumps and round-trips too.
 *
 * The object is read from $D2B_FUZZ_OBJECT, else
 * $D2B_SRC/tests/sample/sample.o, else tests/sample/sample.o.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf2btf.h"
#include "fuzz.h"
#include "fuzz_file.h"

static const char *fuzz_base_object(void)
{
	static char path[4096];
	const char *src;

	if (getenv("D2B_FUZZ_OBJECT"))
		return getenv("D2B_FUZZ_OBJECT");
	src = getenv("D2B_SRC");
	snprintf(path, sizeof(path), "%s/tests/sample/sample.o", src ? src : ".");
	return path;
}

/* The fixed base: the object's own BTF, converted once. */
static const struct d2b_btf *fuzz_base_fixed(void)
{
	static struct d2b_btf *base;

	if (!base && d2b_convert_file(fuzz_base_object(), NULL, NULL, &base)) {
		fprintf(stderr, "fuzz: cannot convert %s (set D2B_FUZZ_OBJECT or D2B_SRC)\n",
			fuzz_base_object());
		abort();
	}
	return base;
}

/* Distill split's base: both halves encode and parse back. */
static int fuzz_base_distill(const struct d2b_btf *split)
{
	struct d2b_btf *dbase = NULL, *dsplit = NULL;
	void *enc_base = NULL, *enc_split = NULL;
	size_t base_size, split_size;
	int err, ret = -1;

	err = d2b_btf__distill_base(split, &dbase, &dsplit);
	if (err) {
		/* -EINVAL: split references a base VAR/FUNC/DATASEC */
		if (err == -EINVAL && !dbase && !dsplit)
			return 0;
		fprintf(stderr, "fuzz: distilling the base failed: %d\n", err);
		goto out;
	}
	enc_base = fuzz_round_trip(dbase, NULL, &base_size);
	if (!enc_base)
		goto out;
	enc_split = fuzz_round_trip(dsplit, dbase, &split_size);
	if (!enc_split)
		goto out;
	ret = 0;
out:
	free(enc_split);
	free(enc_base);
	d2b_btf__free(dsplit);
	d2b_btf__free(dbase);
	return ret;
}

/* 1: data is the base, the object is converted over it */
static int fuzz_base_as_base(const uint8_t *data, size_t size)
{
	unsigned int errors = 0;
	struct d2b_opts opts = { .diag = fuzz_diag, .diag_arg = &errors };
	struct d2b_btf *base = NULL, *btf = NULL;
	void *enc = NULL;
	size_t enc_size;
	char err[256];
	int r, ret = -1;

	err[0] = 0;
	if (d2b_btf__parse_raw(data, size, NULL, &base, err, sizeof(err))) {
		ret = fuzz_parse_refused(base, err, "parse");
		goto out;
	}
	r = d2b_convert_file(fuzz_base_object(), base, &opts, &btf);
	if (r) {
		ret = fuzz_convert_refused(r, btf, errors, "conversion over the base");
		goto out;
	}
	if (!btf || d2b_btf__base(btf) != base || d2b_btf__start_id(btf) != d2b_btf__end_id(base)) {
		fprintf(stderr, "fuzz: the conversion is not split BTF over the base\n");
		goto out;
	}
	if (d2b_btf__verify(btf, 0, NULL, NULL)) {
		fprintf(stderr, "fuzz: split BTF over the base breaks the kernel's rules\n");
		goto out;
	}
	enc = fuzz_round_trip(btf, base, &enc_size);
	if (enc && !fuzz_base_distill(btf))
		ret = 0;
out:
	free(enc);
	d2b_btf__free(btf);
	d2b_btf__free(base);
	return ret;
}

/* 2: data is split BTF over the fixed base */
static int fuzz_base_as_split(const uint8_t *data, size_t size)
{
	const struct d2b_btf *base = fuzz_base_fixed();
	struct d2b_btf *split = NULL;
	char err[256], *dump = NULL;
	size_t dump_len = 0, enc_size;
	void *enc;
	FILE *f;
	int ret = -1;

	err[0] = 0;
	if (d2b_btf__parse_raw(data, size, base, &split, err, sizeof(err))) {
		ret = fuzz_parse_refused(split, err, "split parse");
		goto out;
	}
	f = open_memstream(&dump, &dump_len);
	if (!f || d2b_btf__dump(split, f)) {
		fprintf(stderr, "fuzz: dump of a parsed split BTF failed\n");
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	enc = fuzz_round_trip(split, base, &enc_size);
	if (enc)
		ret = 0;
	free(enc);
out:
	free(dump);
	d2b_btf__free(split);
	return ret;
}

/* Returns 0, or -1 if an invariant broke (message on stderr). */
static int fuzz_base(const uint8_t *data, size_t size)
{
	return fuzz_base_as_base(data, size) || fuzz_base_as_split(data, size) ? -1 : 0;
}

FUZZ_TARGET(fuzz_base)
