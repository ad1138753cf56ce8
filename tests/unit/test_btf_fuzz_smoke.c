// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The raw BTF fuzz target without libFuzzer: every single-bit flip, every
 * truncation and a fixed-seed stream of multi-byte mutations of valid
 * blobs (every kind in both byte orders, split BTF, a tiny blob) go through
 * tests/fuzz/fuzz_btf_raw.c, whose invariants must hold for each.  Run it
 * under SANITIZE=address,undefined to catch out-of-bounds reads.
 */
#include "test.h"
#include "../fuzz/fuzz_btf_raw.c"

struct seed {
	const char *name;
	uint8_t *data;
	size_t size;
};

static struct seed seeds[5];
static unsigned int nseeds;

static int add_seed(const char *name, struct d2b_btf *btf)
{
	void *raw;
	size_t size;

	if (!btf || d2b_btf__encode(btf, &raw, &size))
		return -1;
	seeds[nseeds].name = name;
	seeds[nseeds].data = raw;
	seeds[nseeds].size = size;
	nseeds++;
	return 0;
}

static int make_seeds(void)
{
	struct d2b_btf *all = d2b_btf__new(NULL), *sw = d2b_btf__new(NULL);
	struct d2b_btf *base = d2b_btf__new(NULL), *split = base ? d2b_btf__new(base) : NULL;
	struct d2b_btf *tiny = d2b_btf__new(NULL), *loc = d2b_btf__new(NULL);
	int err = -1;

	if (!all || !sw || !base || !split || !tiny || !loc)
		goto out;
	if (sample_all_kinds(all) || sample_all_kinds(sw) || sample_base(base) ||
	    sample_split(split) || d2b_btf__add_int(tiny, "x", 1, 0) < 0 || sample_loc(loc))
		goto out;
	d2b_btf__set_endian(sw, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE);
	if (add_seed("all", all) || add_seed("swapped", sw) || add_seed("split", split) ||
	    add_seed("tiny", tiny) || add_seed("loc", loc))
		goto out;
	err = 0;
out:
	d2b_btf__free(loc);
	d2b_btf__free(tiny);
	d2b_btf__free(split);
	d2b_btf__free(base);
	d2b_btf__free(sw);
	d2b_btf__free(all);
	return err;
}

static unsigned int nbad;

static void run_one(const uint8_t *data, size_t size, const char *what, size_t arg)
{
	/* copy to an exact-size heap buffer so ASan sees any overread */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy) {
		test_failed_now = 1;
		return;
	}
	memcpy(copy, data, size);
	if (fuzz_btf_raw(copy, size)) {
		if (nbad++ < 5)
			printf("#   invariant broken by %s %zu\n", what, arg);
		test_failed_now = 1;
	}
	free(copy);
}

static void test_seeds_valid(void)
{
	unsigned int i;

	REQUIRE(nseeds == 5);
	for (i = 0; i < nseeds; i++) {
		struct d2b_btf *btf = NULL;
		char err[256];

		/* the split seed needs its base: checked in fuzz_btf_raw_one */
		if (!strcmp(seeds[i].name, "split"))
			continue;
		CHECK_EQ(d2b_btf__parse_raw(seeds[i].data, seeds[i].size, NULL, &btf, err,
					    sizeof(err)), 0);
		d2b_btf__free(btf);
		run_one(seeds[i].data, seeds[i].size, "seed", i);
	}
}

static void test_bit_flips(void)
{
	unsigned int s;

	for (s = 0; s < nseeds; s++) {
		uint8_t *b = malloc(seeds[s].size);
		size_t bit;

		CHECK(b);
		if (!b)
			return;
		memcpy(b, seeds[s].data, seeds[s].size);
		for (bit = 0; bit < seeds[s].size * 8; bit++) {
			b[bit / 8] ^= 1u << (bit % 8);
			run_one(b, seeds[s].size, "bit flip", bit);
			b[bit / 8] ^= 1u << (bit % 8);
		}
		free(b);
	}
}

static void test_truncations(void)
{
	unsigned int s;
	size_t len;

	for (s = 0; s < nseeds; s++) {
		for (len = 0; len <= seeds[s].size; len++)
			run_one(seeds[s].data, len, "truncation at", len);
	}
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Overwrite 1-4 aligned words with values a parser trips on. */
static void test_word_mutations(void)
{
	static const uint32_t interesting[] = {
		0, 1, 3, 0xff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffff,
		0x100000, 0xffffff, 0x1000000, 4u << 24 | 0xffff, 19u << 24, 20u << 24,
		15u << 24 | 3, 13u << 24 | 2, 1u << 31 | 4u << 24 | 1,
	};
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned int s, iter;

	for (s = 0; s < nseeds; s++) {
		uint8_t *b = malloc(seeds[s].size);

		CHECK(b);
		if (!b)
			return;
		for (iter = 0; iter < 3000; iter++) {
			unsigned int k, n = 1 + rng_next(&rng) % 4;

			memcpy(b, seeds[s].data, seeds[s].size);
			for (k = 0; k < n; k++) {
				size_t w = rng_next(&rng) % (seeds[s].size / 4);
				uint64_t r = rng_next(&rng);
				uint32_t v = r & 1 ? (uint32_t)(r >> 8) :
					     interesting[(r >> 8) % (sizeof(interesting) / 4)];

				memcpy(b + w * 4, &v, 4);
			}
			run_one(b, seeds[s].size, "word mutation", iter);
		}
		free(b);
	}
}

int main(void)
{
	unsigned int i;

	if (make_seeds()) {
		printf("FAIL make_seeds: cannot build seed blobs\n");
		return 1;
	}
	RUN(test_seeds_valid);
	RUN(test_bit_flips);
	RUN(test_truncations);
	RUN(test_word_mutations);
	for (i = 0; i < nseeds; i++)
		free(seeds[i].data);
	return test_done();
}
