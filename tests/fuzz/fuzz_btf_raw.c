// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target for d2b_btf__parse_raw().
 *
 * Each input is parsed on its own and as split BTF over a small base.  A
 * blob that parses must also dump, encode, parse again from its encoding,
 * and encode to the same bytes again, with the same dump; a blob already in
 * canonical layout must encode back to itself.  Any broken invariant aborts.
 *
 * Build and run with `make fuzz` (every target, FUZZ_SECONDS each), or by
 * hand, after `make fuzz FUZZ_SECONDS=0` built it:
 *
 *	build/fuzz/fuzz_btf_raw -max_len=4096 build/fuzz/corpus/btf_raw \
 *		build/fuzz/seeds/btf_raw
 *
 * (the seeds are `btfdump --samples`'s blobs: tests/fuzz/seeds.sh).
 * Without libFuzzer, tests/unit/test_btf_fuzz_smoke.c includes this file
 * and feeds it deterministic mutations of valid blobs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "dwarf2btf.h"
#include "../tools/btf_samples.h"
#include "fuzz.h"

static char *fuzz_dump(const struct d2b_btf *btf)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int err;

	if (!f)
		return NULL;
	err = d2b_btf__dump(btf, f);
	fclose(f);
	if (err) {
		free(s);
		return NULL;
	}
	return s;
}

static bool fuzz_canonical(const uint8_t *data, size_t size)
{
	struct d2b_header h;

	memcpy(&h, data, sizeof(h));
	if (h.magic != D2B_BTF_MAGIC) {
		h.hdr_len = __builtin_bswap32(h.hdr_len);
		h.type_off = __builtin_bswap32(h.type_off);
		h.type_len = __builtin_bswap32(h.type_len);
		h.str_off = __builtin_bswap32(h.str_off);
		h.str_len = __builtin_bswap32(h.str_len);
	}
	return h.hdr_len == sizeof(h) && h.type_off == 0 && h.str_off == h.type_len &&
	       (uint64_t)sizeof(h) + h.type_len + h.str_len == size;
}

/* Every type ID and string offset of a parsed BTF resolves. */
static int fuzz_check_refs(struct d2b_btf *btf)
{
	uint32_t id;

	for (id = d2b_btf__start_id(btf); id < d2b_btf__end_id(btf); id++) {
		struct d2b_type *t = btf_type_mut(btf, id);
		struct btf_field_iter it;
		uint32_t *f;

		if (!t)
			return -1;
		btf_field_iter__init(&it, t, BTF_FIELD_IDS);
		while ((f = btf_field_iter__next(&it))) {
			if (!d2b_btf__type(btf, *f)) {
				fprintf(stderr, "fuzz: type [%u] refers to missing [%u]\n", id, *f);
				return -1;
			}
		}
		btf_field_iter__init(&it, t, BTF_FIELD_STRS);
		while ((f = btf_field_iter__next(&it))) {
			if (!d2b_btf__str(btf, *f)) {
				fprintf(stderr, "fuzz: type [%u] has bad string 0x%x\n", id, *f);
				return -1;
			}
		}
	}
	return 0;
}

/* Returns 0, or -1 if an invariant broke (message on stderr). */
static int fuzz_btf_raw_one(const uint8_t *data, size_t size, const struct d2b_btf *base)
{
	struct d2b_btf *btf = NULL, *again = NULL;
	void *enc = NULL, *enc2 = NULL;
	size_t enc_size = 0, enc2_size = 0;
	char *d1 = NULL, *d2 = NULL;
	char err[256];
	int r, ret = -1;

	r = d2b_btf__parse_raw(data, size, base, &btf, err, sizeof(err));
	if (r < 0) {
		ret = fuzz_parse_refused(btf, err, "parse");
		goto out;
	}
	if (fuzz_check_refs(btf))
		goto out;
	d1 = fuzz_dump(btf);
	if (!d1) {
		fprintf(stderr, "fuzz: dump of a parsed blob failed\n");
		goto out;
	}
	if (d2b_btf__encode(btf, &enc, &enc_size)) {
		fprintf(stderr, "fuzz: encode of a parsed blob failed\n");
		goto out;
	}
	if (!base && fuzz_canonical(data, size) &&
	    (enc_size != size || memcmp(enc, data, size))) {
		fprintf(stderr, "fuzz: canonical blob did not encode to itself\n");
		goto out;
	}
	if (d2b_btf__parse_raw(enc, enc_size, base, &again, err, sizeof(err))) {
		fprintf(stderr, "fuzz: our own encoding does not parse: %s\n", err);
		goto out;
	}
	d2 = fuzz_dump(again);
	if (d2b_btf__encode(again, &enc2, &enc2_size) || enc2_size != enc_size ||
	    memcmp(enc, enc2, enc_size)) {
		fprintf(stderr, "fuzz: second encoding differs\n");
		goto out;
	}
	if (!d2 || strcmp(d1, d2)) {
		fprintf(stderr, "fuzz: dump changed across a round trip\n");
		goto out;
	}
	ret = 0;
out:
	free(d1);
	free(d2);
	free(enc);
	free(enc2);
	d2b_btf__free(again);
	d2b_btf__free(btf);
	return ret;
}

/* Both ways: standalone, and split over sample_base(). */
static int fuzz_btf_raw(const uint8_t *data, size_t size)
{
	struct d2b_btf *base = d2b_btf__new(NULL);
	int ret;

	if (!base || sample_base(base)) {
		d2b_btf__free(base);
		return -1;
	}
	ret = fuzz_btf_raw_one(data, size, NULL);
	if (!ret)
		ret = fuzz_btf_raw_one(data, size, base);
	d2b_btf__free(base);
	return ret;
}

FUZZ_TARGET(fuzz_btf_raw)
