// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the frozen (compact, read-only) forms of hmap and of
 * strtab's index: every lookup through the frozen form gives what the
 * source gives, in the same order, and what each test expects is also
 * known apart from both (the lists of values added, the first offset of
 * each string), so a form that lost or reordered entries on both sides
 * would still fail.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/hmap.h"
#include "base/strtab.h"
#include "test.h"

enum { FROZEN_WORDS = 3 };

/* A deterministic stream of numbers (xorshift64*). */
static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Every value under key, in hmap__next()'s order; how many (at most max). */
static size_t values_of(const struct hmap *m, uint64_t key, uint64_t *out, size_t max)
{
	struct hmap_iter it;
	size_t n = 0;
	uint64_t v;

	hmap__iter_init(m, key, &it);
	while (hmap__next(m, &it, &v)) {
		if (n < max)
			out[n] = v;
		n++;
	}
	return n;
}

/*
 * A map of len entries over nkeys keys (0 and UINT64_MAX among them),
 * entry i under keys[i % nkeys] with a value of its own: what hmap__next()
 * must give for a key is exactly the values of its entries, in order.
 */
struct map_case {
	struct hmap m;
	uint64_t *keys, *vals;
	size_t len, nkeys;
};

static int map_case_init(struct map_case *c, size_t len, size_t nkeys, uint64_t seed)
{
	size_t i;

	hmap__init(&c->m, false);
	c->len = len;
	c->nkeys = nkeys;
	c->keys = calloc(nkeys, sizeof(*c->keys));
	c->vals = calloc(len ? len : 1, sizeof(*c->vals));
	if (!c->keys || !c->vals)
		return -ENOMEM;
	for (i = 0; i < nkeys; i++)
		c->keys[i] = rnd_next(&seed);
	c->keys[0] = 0;
	if (nkeys > 1)
		c->keys[1] = UINT64_MAX;
	for (i = 0; i < len; i++) {
		/* 0 and the largest value a frozen slot keeps among them */
		c->vals[i] = i == 0 ? 0 : i == 1 ? UINT32_MAX - 1 : (uint32_t)rnd_next(&seed) >> 1;
		if (hmap__add(&c->m, c->keys[i % nkeys], c->vals[i]))
			return -ENOMEM;
	}
	return 0;
}

static void map_case_release(struct map_case *c)
{
	hmap__release(&c->m);
	free(c->keys);
	free(c->vals);
}

/* Every key of c (and keys never added) gives the same list from the
 * source and from f, and that list is the values added under it. */
static void check_same(const struct map_case *c, const struct hmap *f)
{
	size_t k, i, n, nf, per = c->len / c->nkeys + 1;
	uint64_t *a = calloc(per, sizeof(*a)), *b = calloc(per, sizeof(*b)), seed = 99, v;
	bool ok = true;

	REQUIRE(a && b);
	for (k = 0; k < c->nkeys && ok; k++) {
		n = values_of(&c->m, c->keys[k], a, per);
		nf = values_of(f, c->keys[k], b, per);
		/* entries k, k + nkeys, ...: the values added, in order */
		ok = n == (c->len + c->nkeys - 1 - k) / c->nkeys && nf == n;
		for (i = 0; ok && i < n; i++)
			ok = a[i] == c->vals[k + i * c->nkeys] && b[i] == a[i];
		if (!ok)
			printf("#   key %#llx: %zu values, frozen %zu\n",
			       (unsigned long long)c->keys[k], n, nf);
		CHECK(ok);
		CHECK_EQ(hmap__find(f, c->keys[k], &v), n > 0);
		if (n)
			CHECK_EQ(v, c->vals[k]);
		hmap__prefetch(f, c->keys[k]);
	}
	for (k = 0; k < 1000; k++) {	/* keys never added */
		uint64_t key = rnd_next(&seed);

		for (i = 0; i < c->nkeys && c->keys[i] != key; i++)
			;
		if (i < c->nkeys)
			continue;
		CHECK_EQ(values_of(f, key, b, per), 0);
		CHECK(!hmap__find(f, key, &v));
	}
	free(a);
	free(b);
}

/* Freeze c into cap slots, borrow them, compare; the slots are not written. */
static void freeze_and_check(const struct map_case *c, size_t cap)
{
	uint32_t *slots = malloc(cap * FROZEN_WORDS * sizeof(*slots)), *copy;
	struct hmap f;

	REQUIRE(slots);
	memset(slots, 0xa5, cap * FROZEN_WORDS * sizeof(*slots));	/* freeze zeroes it */
	CHECK_EQ(hmap__freeze(&c->m, slots, cap), 0);
	CHECK_EQ(hmap__borrow_frozen(&f, slots, cap, c->len), 0);
	copy = malloc(cap * FROZEN_WORDS * sizeof(*slots));
	REQUIRE(copy);
	memcpy(copy, slots, cap * FROZEN_WORDS * sizeof(*slots));
	check_same(c, &f);
	CHECK(memcmp(copy, slots, cap * FROZEN_WORDS * sizeof(*slots)) == 0);
	hmap__release(&f);	/* forgets the slots: freeing them is ours */
	free(copy);
	free(slots);
}

static void test_hmap_frozen_sizes(void)
{
	static const struct {
		size_t len, nkeys;
	} cases[] = {
		{ 0, 1 }, { 1, 1 }, { 63, 63 }, { 63, 5 }, { 64, 2 }, { 64, 64 },
		{ 65, 13 }, { 1000, 1000 }, { 1000, 17 }, { 1000, 1 },
		{ 100000, 100000 }, { 100000, 9001 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct map_case c;
		size_t cap = hmap__frozen_cap(cases[i].len);

		REQUIRE(map_case_init(&c, cases[i].len, cases[i].nkeys, 1 + i) == 0);
		CHECK_EQ(c.m.len, cases[i].len);
		freeze_and_check(&c, cap);
		/* more slots than needed, and exactly 3/4 full */
		freeze_and_check(&c, cap * 2 + 7);
		if (cases[i].len >= 48 && cases[i].len % 3 == 0) {
			freeze_and_check(&c, cases[i].len / 3 * 4);
			CHECK_EQ(hmap__freeze(&c.m, NULL, cases[i].len / 3 * 4 - 1), -EINVAL);
		}
		map_case_release(&c);
		if (test_failed_now) {
			printf("#   case %zu entries, %zu keys\n", cases[i].len, cases[i].nkeys);
			return;
		}
	}
}

/*
 * One key's values in a run that wraps past the end of both tables: the
 * source's (home its last slot) and the frozen one's.  A freeze that
 * walked the source from slot 0 would insert the run's tail first.
 */
static void test_hmap_frozen_wrap(void)
{
	enum { N = 40, SRC_CAP = 128, CAP = 64 };
	uint64_t key, vals[N], got[N];
	uint32_t slots[CAP * FROZEN_WORDS];
	struct hmap m, f;
	size_t i;

	for (key = 1;; key++) {
		uint64_t x = hash_mix64(key);

		if ((x & (SRC_CAP - 1)) == SRC_CAP - 1 && hmap_frozen_home(x, CAP) == CAP - 1)
			break;
	}
	hmap__init(&m, false);
	for (i = 0; i < N; i++) {
		vals[i] = N - i;
		CHECK_EQ(hmap__add(&m, key, vals[i]), 0);
	}
	CHECK_EQ(m.cap, SRC_CAP);
	CHECK_EQ(m.slots[SRC_CAP - 1].key, key);	/* the run wraps */
	CHECK_EQ(m.slots[0].key, key);
	CHECK_EQ(hmap__freeze(&m, slots, CAP), 0);
	CHECK_EQ(hmap__borrow_frozen(&f, slots, CAP, N), 0);
	CHECK(slots[(CAP - 1) * FROZEN_WORDS + 2] && slots[2]);	/* wraps too */
	CHECK_EQ(values_of(&f, key, got, N), N);
	for (i = 0; i < N; i++)
		CHECK_EQ(got[i], vals[i]);
	CHECK_EQ(values_of(&f, key + 1, got, N), 0);

	/* a frozen map frozen again, into another size, keeps the order */
	{
		uint32_t again[97 * FROZEN_WORDS];
		struct hmap g;

		CHECK_EQ(hmap__freeze(&f, again, 97), 0);
		CHECK_EQ(hmap__borrow_frozen(&g, again, 97, N), 0);
		CHECK_EQ(values_of(&g, key, got, N), N);
		for (i = 0; i < N; i++)
			CHECK_EQ(got[i], vals[i]);
	}
	hmap__release(&m);
}

/* The inverse of an odd number mod 2^64 (Newton's iteration). */
static uint64_t inverse64(uint64_t c)
{
	uint64_t inv = c;
	int i;

	for (i = 0; i < 6; i++)
		inv *= 2 - c * inv;
	return inv;
}

/* The key whose hash_mix64() is x. */
static uint64_t unmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= inverse64(0xc4ceb9fe1a85ec53ULL);
	x ^= x >> 33;
	x *= inverse64(0xff51afd7ed558ccdULL);
	x ^= x >> 33;
	return x;
}

/*
 * Keys whose mixed forms share a home and one of their two words: a
 * frozen slot must tell them apart by both words, the whole 64 bits.
 */
static void test_hmap_frozen_exact(void)
{
	static const uint64_t xs[] = {
		0x8000000012345678ULL, 0x8000000112345678ULL,	/* low words equal */
		0x8000000212345678ULL, 0x8000000212345679ULL,	/* high words equal */
	};
	enum { N = sizeof(xs) / sizeof(xs[0]), CAP = 64 };
	uint32_t slots[CAP * FROZEN_WORDS];
	uint64_t got[N + 1];
	struct hmap m, f;
	size_t i;

	hmap__init(&m, false);
	for (i = 0; i < N; i++) {
		REQUIRE(hash_mix64(unmix64(xs[i])) == xs[i]);
		CHECK_EQ(hmap_frozen_home(xs[i], CAP), CAP / 2);
		CHECK_EQ(hmap__add(&m, unmix64(xs[i]), 100 + i), 0);
	}
	CHECK_EQ(hmap__freeze(&m, slots, CAP), 0);
	CHECK_EQ(hmap__borrow_frozen(&f, slots, CAP, N), 0);
	for (i = 0; i < N; i++) {
		CHECK_EQ(values_of(&f, unmix64(xs[i]), got, N + 1), 1);
		CHECK_EQ(got[0], 100 + i);
	}
	CHECK_EQ(values_of(&f, unmix64(0x8000000312345678ULL), got, N + 1), 0);
	hmap__release(&m);
}

static void test_hmap_frozen_refused(void)
{
	uint32_t slots[64 * FROZEN_WORDS], copy[64 * FROZEN_WORDS];
	struct hmap m, f;
	uint64_t v;

	hmap__init(&m, false);
	CHECK_EQ(hmap__add(&m, 1, UINT32_MAX - 1), 0);
	CHECK_EQ(hmap__freeze(&m, slots, 64), 0);
	CHECK_EQ(hmap__add(&m, 2, UINT32_MAX), 0);
	CHECK_EQ(hmap__freeze(&m, slots, 64), -ERANGE);
	CHECK_EQ(hmap__set(&m, 2, 1ULL << 40), 0);
	CHECK_EQ(hmap__freeze(&m, slots, 64), -ERANGE);
	CHECK_EQ(hmap__set(&m, 2, 7), 0);
	CHECK_EQ(hmap__freeze(&m, slots, 64), 0);
	/* too few slots, or too many for 32-bit homes */
	CHECK_EQ(hmap__freeze(&m, slots, 2), -EINVAL);
	CHECK_EQ(hmap__freeze(&m, slots, 0), -EINVAL);
	if (sizeof(size_t) > 4)
		CHECK_EQ(hmap__freeze(&m, NULL, (size_t)UINT32_MAX + 1), -EINVAL);
	hmap__release(&m);

	hmap__init(&m, true);
	CHECK_EQ(hmap__add(&m, 1, 1), 0);
	CHECK_EQ(hmap__freeze(&m, slots, 64), -EINVAL);
	hmap__release(&m);

	CHECK_EQ(hmap__borrow_frozen(&f, slots, 0, 0), -EINVAL);
	CHECK_EQ(hmap__borrow_frozen(&f, slots, 4, 4), -EINVAL);
	CHECK_EQ(hmap__borrow_frozen(&f, slots, 64, 49), -EINVAL);
	CHECK_EQ(hmap__borrow_frozen(&f, slots, 64, 48), 0);
	if (sizeof(size_t) > 4)
		CHECK_EQ(hmap__borrow_frozen(&f, slots, (size_t)UINT32_MAX + 1, 1), -EINVAL);

	/* a borrowed frozen map is not changed, and never written */
	CHECK_EQ(hmap__borrow_frozen(&f, slots, 64, 2), 0);
	memcpy(copy, slots, sizeof(slots));
	CHECK_EQ(hmap__add(&f, 3, 3), -EINVAL);
	CHECK_EQ(hmap__set(&f, 1, 3), -EINVAL);
	CHECK_EQ(hmap__reserve(&f, 10), -EINVAL);
	CHECK(hmap__find(&f, 1, &v) && v == UINT32_MAX - 1);
	CHECK(hmap__find(&f, 2, &v) && v == 7);
	/* clear forgets the slots: an empty ordinary map */
	hmap__clear(&f);
	CHECK(!hmap__find(&f, 1, &v));
	CHECK_EQ(hmap__add(&f, 1, 5), 0);
	CHECK(hmap__find(&f, 1, &v) && v == 5);
	CHECK(memcmp(copy, slots, sizeof(slots)) == 0);
	hmap__release(&f);
}

static void test_hmap_frozen_cap(void)
{
	size_t len, cap;

	for (len = 0; len < 5000; len++) {
		cap = hmap__frozen_cap(len);
		CHECK(cap >= 64 && cap > len && len * 4 <= cap * 3);
		if (cap > 64)
			CHECK((cap - 1) * 3 < len * 4);	/* the least */
		if (test_failed_now)
			return;
	}
	if (sizeof(size_t) > 4)
		CHECK_EQ(hmap__frozen_cap((size_t)UINT32_MAX), 0);
}

/*
 * A section of nstr strings, where every 7th repeats an earlier one (and
 * "alpha" comes twice): strtab__load() keeps the first offset of each.
 * first[i]: the offset strtab__find() must give for string i.
 */
struct str_case {
	char *data;
	size_t len, nstr;
	uint32_t *off, *first;
};

static int str_case_init(struct str_case *c, size_t nstr)
{
	size_t i, cap = 16 + nstr * 24;
	uint64_t seed = 7;

	c->data = malloc(cap);
	c->off = calloc(nstr + 2, sizeof(*c->off));
	c->first = calloc(nstr + 2, sizeof(*c->first));
	if (!c->data || !c->off || !c->first)
		return -ENOMEM;
	c->data[0] = '\0';
	c->len = 1;
	for (i = 0; i < nstr; i++) {
		size_t src = i;

		if (i == 2)
			src = 0;	/* "alpha" again */
		else if (i > 10 && i % 7 == 0)
			src = (size_t)(rnd_next(&seed) % i);
		c->off[i] = (uint32_t)c->len;
		c->first[i] = src == i ? c->off[i] : c->first[src];
		if (src == i && i == 0)
			c->len += (size_t)sprintf(c->data + c->len, "alpha") + 1;
		else if (src == i)
			c->len += (size_t)sprintf(c->data + c->len, "s%zu_%llx", i,
						  (unsigned long long)(rnd_next(&seed) & 0xfff)) + 1;
		else {
			size_t n = strlen(c->data + c->off[src]) + 1;

			memcpy(c->data + c->len, c->data + c->off[src], n);
			c->len += n;
		}
	}
	c->nstr = nstr;
	return 0;
}

static void str_case_release(struct str_case *c)
{
	free(c->data);
	free(c->off);
	free(c->first);
}

/* Every string of c is found at its first offset in st; others are not. */
static void check_strings(const struct str_case *c, const struct strtab *st)
{
	char buf[64];
	size_t i;

	for (i = 0; i < c->nstr; i++) {
		const char *s = c->data + c->off[i];
		uint64_t h = hash_bytes(s, strlen(s), 0);

		strtab__prefetch(st, h);
		CHECK_EQ(strtab__find(st, s), c->first[i]);
		CHECK_EQ(strtab__find_hashed(st, s, strlen(s), h), c->first[i]);
		snprintf(buf, sizeof(buf), "%s!", s);
		CHECK_EQ(strtab__find(st, buf), -ENOENT);
		if (test_failed_now) {
			printf("#   string %zu \"%s\"\n", i, s);
			return;
		}
	}
	CHECK_EQ(strtab__find(st, ""), 0);
	CHECK_EQ(strtab__find(st, "alph"), -ENOENT);
	CHECK_EQ(strtab__find(st, "s1"), -ENOENT);
}

static void strtab_frozen_case(size_t nstr, size_t extra)
{
	struct strtab *st = strtab__new(false), *b = NULL, *b2 = NULL;
	struct strtab_index ix;
	size_t nslots, i;
	void *slots = NULL, *slots_copy = NULL, *slots2 = NULL;
	char *data_copy = NULL;
	struct str_case c;
	int64_t off;

	REQUIRE(st && str_case_init(&c, nstr) == 0);
	CHECK_EQ(strtab__load(st, c.data, c.len), 0);
	CHECK(strtab__loaded_dups(st));
	strtab__index(st, &ix);
	check_strings(&c, st);

	nslots = strtab__frozen_slots(ix.nused) + extra;
	CHECK(nslots > ix.nused && ix.nused * 4 <= nslots * 3);
	slots = malloc(nslots * 8);
	REQUIRE(slots);
	memset(slots, 0xa5, nslots * 8);
	CHECK_EQ(strtab__freeze(st, slots, nslots), 0);
	CHECK_EQ(strtab__freeze(st, slots, ix.nused), -EINVAL);
	ix.slots = slots;
	ix.nslots = nslots;
	b = strtab__borrow_frozen(c.data, c.len, &ix);
	REQUIRE(b);
	CHECK(strtab__loaded_dups(b));
	data_copy = malloc(c.len);
	slots_copy = malloc(nslots * 8);
	REQUIRE(data_copy && slots_copy);
	memcpy(data_copy, c.data, c.len);
	memcpy(slots_copy, slots, nslots * 8);
	check_strings(&c, b);

	/* frozen again from the frozen table, into other slots */
	slots2 = malloc((nslots + 3) * 8);
	REQUIRE(slots2);
	CHECK_EQ(strtab__freeze(b, slots2, nslots + 3), 0);
	ix.slots = slots2;
	ix.nslots = nslots + 3;
	b2 = strtab__borrow_frozen(c.data, c.len, &ix);
	REQUIRE(b2);
	check_strings(&c, b2);

	/* the first change: copies, an ordinary index, the caller's untouched */
	off = strtab__add(b, "a string never loaded");
	CHECK_EQ(off, (int64_t)c.len);
	CHECK_EQ(strtab__add(b, "alpha"), c.first[0]);
	CHECK_EQ(strtab__find(b, "a string never loaded"), off);
	check_strings(&c, b);
	for (i = 0; i < 300; i++) {	/* grows the new index too */
		char s[32];

		snprintf(s, sizeof(s), "new%zu", i);
		CHECK(strtab__add(b, s) > off);
	}
	CHECK_EQ(strtab__find(b, "a string never loaded"), off);
	check_strings(&c, b);
	strtab__index(b, &ix);
	CHECK(ix.nslots >= 2 * ix.nused && !(ix.nslots & (ix.nslots - 1)));
	CHECK(strtab__data(b) != c.data);
	CHECK(memcmp(data_copy, c.data, c.len) == 0);
	CHECK(memcmp(slots_copy, slots, nslots * 8) == 0);

	/* the owner's table, and its index, as before */
	check_strings(&c, st);
	strtab__free(b2);
	strtab__free(b);
	strtab__free(st);
	free(slots);
	free(slots2);
	free(slots_copy);
	free(data_copy);
	str_case_release(&c);
}

static void test_strtab_frozen(void)
{
	strtab_frozen_case(3, 0);
	strtab_frozen_case(100, 0);
	strtab_frozen_case(5000, 0);
	strtab_frozen_case(5000, 1);
	strtab_frozen_case(60000, 0);
}

static void test_strtab_frozen_refused(void)
{
	static const char data[] = "\0alpha\0beta\0";
	struct strtab *st = strtab__new(true);
	struct strtab_index ix;
	uint32_t slots[64 * 2];

	REQUIRE(st);
	CHECK_EQ(strtab__load(st, data, sizeof(data)), 0);
	CHECK_EQ(strtab__freeze(st, slots, 64), -EINVAL);	/* force_collisions */
	strtab__free(st);

	st = strtab__new(false);
	REQUIRE(st);
	CHECK_EQ(strtab__load(st, data, sizeof(data)), 0);
	CHECK(!strtab__loaded_dups(st));
	CHECK_EQ(strtab__freeze(st, slots, 2), -EINVAL);
	CHECK_EQ(strtab__freeze(st, slots, 3), 0);	/* 2 of 3: under 3/4 */
	strtab__index(st, &ix);
	ix.slots = slots;
	ix.nslots = 2;
	CHECK(!strtab__borrow_frozen(data, sizeof(data), &ix));
	ix.nslots = 3;
	{
		struct strtab *b = strtab__borrow_frozen(data, sizeof(data), &ix);

		REQUIRE(b);
		CHECK_EQ(strtab__find(b, "alpha"), 1);
		CHECK_EQ(strtab__find(b, "beta"), 7);
		CHECK_EQ(strtab__find(b, "gamma"), -ENOENT);
		strtab__free(b);
	}
	CHECK_EQ(strtab__frozen_slots(0), 64);
	CHECK_EQ(strtab__frozen_slots(300), 400);
	CHECK_EQ(strtab__frozen_slots(301), 402);
	strtab__free(st);
}

int main(void)
{
	RUN(test_hmap_frozen_sizes);
	RUN(test_hmap_frozen_wrap);
	RUN(test_hmap_frozen_exact);
	RUN(test_hmap_frozen_refused);
	RUN(test_hmap_frozen_cap);
	RUN(test_strtab_frozen);
	RUN(test_strtab_frozen_refused);
	return test_done();
}
