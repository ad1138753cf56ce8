// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Linear probing over a power-of-two table kept at most half full, so that
 * a miss (the common case when interning) probes about 2.5 slots of 16
 * bytes, one cache line, rather than the 8.5 slots of a 3/4 full table.  There
 * is no deletion (nothing in dwarf2btf needs it), so probing stops at the
 * first empty slot.  Entries sharing a key are met in the order they were
 * added (growing keeps it: hmap_grow_to()), so the order is deterministic.
 *
 * The frozen form
 * ---------------
 * A map that a cache keeps for every later run (a base's index) is only
 * read, so it is kept smaller: 12-byte slots at most 3/4 full (16 bytes
 * an entry) instead of 16-byte ones at most half full (32 to 64 bytes an
 * entry, as the table last doubled).
 *
 *  - A slot is three 32-bit words: x = hash_mix64(key) as low and high
 *    word, then val + 1 (0: free).  hash_mix64() is a bijection, so equal
 *    x means equal key: the slot is exact, not a fingerprint.  Values must
 *    fit in 32 bits (hmap__freeze() checks them).
 *  - Any number of slots, not a power of two: the home of x is
 *    hmap_frozen_home(), the high word of x scaled to the table, then
 *    linear probing with wrap-around.  At most 3/4 full (a miss probes
 *    about 8.5 slots of 12 bytes, two cache lines: a cold table pays the
 *    line misses, not the probes) and never full, so a probe ends.
 *  - Order: entries of one key lie in one run of full slots, in the order
 *    they were added.  Freezing walks the source from just past a free
 *    slot (as hmap_grow_to() does), so each run is met from its start and
 *    the entries of one key are inserted in their order; linear probing
 *    places a later one further from its home, so hmap__next() meets
 *    them in that order again.
 *  - The frozen map is read through the same calls: hmap__iter_init() and
 *    hmap__next() test m->frozen once a call (a branch always taken the
 *    same way for one map), and the iterator keeps x instead of the key.
 *  - force_collisions is not recorded in the slots, so such a map is not
 *    frozen (a test switch; caches never use it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "base/pages.h"

enum {
	HMAP_MIN_CAP = 64,	/* slots of the first table */
	HMAP_LOAD_NUM = 1,	/* grow past HMAP_LOAD_NUM / HMAP_LOAD_DEN full */
	HMAP_LOAD_DEN = 2,
	HMAP_SHRINK = 16,	/* clear() gives back a table used below 1/HMAP_SHRINK */
	FROZEN_LOAD_NUM = 3,	/* a frozen table is at most 3/4 full */
	FROZEN_LOAD_DEN = 4,
	FROZEN_WORDS = 3,	/* words of a frozen slot: x low, x high, val + 1 */
};

/* A frozen slot's value word is below this (val + 1 fits in 32 bits). */
static const uint64_t FROZEN_VAL_MAX = UINT32_MAX - 1;

/*
 * A slot keeps val + 1, so that a free slot is all zeros: a new table is
 * calloc()'s (pages__zalloc()), which for a large one is fresh zero pages
 * from the kernel, not a pass over it in memset().  (val HMAP_EMPTY,
 * whose + 1 would be 0, is refused.)
 */
#define SLOT_FREE 0

/* hash_bytes()'s odd multipliers (64-bit primes; too wide for an enum) */
static const uint64_t HASH_K1 = 0x9e3779b185ebca87ULL;
static const uint64_t HASH_K2 = 0xc2b2ae3d27d4eb4fULL;
static const uint64_t HASH_K3 = 0x165667b19e3779f9ULL;

void hmap__init(struct hmap *m, bool force_collisions)
{
	memset(m, 0, sizeof(*m));
	m->force_collisions = force_collisions;
}

void hmap__release(struct hmap *m)
{
	free(m->slots);		/* (NULL when frozen: the slots are the caller's) */
	m->slots = NULL;
	m->frozen = NULL;
	m->cap = m->len = 0;
}

bool hmap__frozen_fits(size_t cap, size_t len)
{
	return (uint64_t)cap <= UINT32_MAX && len < cap &&
	       (uint64_t)len * FROZEN_LOAD_DEN <= (uint64_t)cap * FROZEN_LOAD_NUM;
}

size_t hmap__frozen_cap(size_t len)
{
	size_t cap;

	if (len > (size_t)UINT32_MAX / FROZEN_LOAD_DEN * FROZEN_LOAD_NUM)
		return 0;
	/* the least cap with len * 4 <= cap * 3 (above len when len > 0) */
	cap = len + (len + FROZEN_LOAD_NUM - 1) / FROZEN_LOAD_NUM;
	return cap < HMAP_MIN_CAP ? HMAP_MIN_CAP : cap;
}

/* Slot i of m, ordinary or frozen: val + 1 (SLOT_FREE: free) and *x. */
static uint64_t slot_at(const struct hmap *m, size_t i, uint64_t *x)
{
	const uint32_t *f;

	if (!m->frozen) {
		*x = hash_mix64(m->slots[i].key);
		return m->slots[i].val;
	}
	f = &m->frozen[FROZEN_WORDS * i];
	*x = f[0] | (uint64_t)f[1] << 32;
	return f[2];
}

int hmap__freeze(const struct hmap *m, uint32_t *slots, size_t cap)
{
	size_t i, n, start, left = cap;
	uint64_t x, v;

	if (m->force_collisions || !hmap__frozen_fits(cap, m->len))
		return -EINVAL;
	for (i = 0; i < m->cap; i++) {
		v = slot_at(m, i, &x);
		if (v != SLOT_FREE && v - 1 > FROZEN_VAL_MAX)
			return -ERANGE;
	}
	memset(slots, 0, cap * FROZEN_WORDS * sizeof(*slots));
	/* from just past a free slot (either form has one), so that each run
	 * is met from its start (see hmap_grow_to()) */
	for (start = 0; start < m->cap && slot_at(m, start, &x) != SLOT_FREE; start++)
		;
	for (n = 0, i = start; n < m->cap; n++) {
		size_t pos;

		i = i + 1 >= m->cap ? 0 : i + 1;
		v = slot_at(m, i, &x);
		if (v == SLOT_FREE)
			continue;
		if (--left == 0)	/* (a frozen m held more than its len) */
			return -EBADMSG;
		pos = hmap_frozen_home(x, cap);
		while (slots[FROZEN_WORDS * pos + 2] != SLOT_FREE)
			pos = pos + 1 == cap ? 0 : pos + 1;
		slots[FROZEN_WORDS * pos] = (uint32_t)x;
		slots[FROZEN_WORDS * pos + 1] = (uint32_t)(x >> 32);
		slots[FROZEN_WORDS * pos + 2] = (uint32_t)v;
	}
	return 0;
}

int hmap__borrow_frozen(struct hmap *m, const uint32_t *slots, size_t cap, size_t len)
{
	hmap__init(m, false);
	if (!hmap__frozen_fits(cap, len))
		return -EINVAL;
	m->frozen = slots;
	m->cap = cap;
	m->len = len;
	return 0;
}

/*
 * A table far larger than what it held (one large unit, then many small
 * ones) is given back rather than wiped: wiping costs its whole size each
 * time, growing again only what is used.  A frozen map's slots are the
 * caller's: forgotten, never written.
 */
void hmap__clear(struct hmap *m)
{
	if (m->frozen || (m->cap > HMAP_MIN_CAP && m->len * HMAP_SHRINK < m->cap)) {
		hmap__release(m);
		return;
	}
	if (m->slots)
		memset(m->slots, SLOT_FREE, m->cap * sizeof(*m->slots));
	m->len = 0;
}

static int hmap_grow_to(struct hmap *m, size_t new_cap)
{
	size_t i, n, start;
	struct hmap_entry *old = m->slots, *slots;

	if (new_cap > SIZE_MAX / sizeof(*slots))
		return -EOVERFLOW;
	slots = pages__zalloc(new_cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	/* entries of one key lie in one run of full slots, in the order they
	 * were added: start past an empty slot (a half-full table has one), so
	 * that every run is moved from its start, which keeps that order even
	 * for a run that wraps past the table's end */
	for (start = 0; m->cap && old[start].val != SLOT_FREE; start++)
		;
	for (n = 0; n < m->cap; n++) {
		size_t pos;

		i = (start + 1 + n) & (m->cap - 1);
		if (old[i].val == SLOT_FREE)
			continue;
		pos = hash_mix64(old[i].key) & (new_cap - 1);
		while (slots[pos].val != SLOT_FREE)
			pos = (pos + 1) & (new_cap - 1);
		slots[pos] = old[i];
	}
	free(old);
	m->slots = slots;
	m->cap = new_cap;
	return 0;
}

static int hmap_grow(struct hmap *m)
{
	return hmap_grow_to(m, m->cap ? m->cap * 2 : HMAP_MIN_CAP);
}

int hmap__reserve(struct hmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : HMAP_MIN_CAP;

	if (m->frozen)
		return -EINVAL;
	if (n > SIZE_MAX / HMAP_LOAD_DEN - m->len)
		return -EOVERFLOW;
	while ((m->len + n) * HMAP_LOAD_DEN > cap * HMAP_LOAD_NUM) {
		if (cap > SIZE_MAX / 2)
			return -EOVERFLOW;
		cap *= 2;
	}
	return cap > m->cap ? hmap_grow_to(m, cap) : 0;
}

int hmap__add(struct hmap *m, uint64_t key, uint64_t val)
{
	size_t pos;
	int err;

	if (val == HMAP_EMPTY || m->frozen)
		return -EINVAL;
	if (m->force_collisions)
		key = 0;
	if ((m->len + 1) * HMAP_LOAD_DEN > m->cap * HMAP_LOAD_NUM) {
		err = hmap_grow(m);
		if (err)
			return err;
	}
	pos = hash_mix64(key) & (m->cap - 1);
	while (m->slots[pos].val != SLOT_FREE)
		pos = (pos + 1) & (m->cap - 1);
	m->slots[pos].key = key;
	m->slots[pos].val = val + 1;
	m->len++;
	return 0;
}

void hmap__iter_init(const struct hmap *m, uint64_t key, struct hmap_iter *it)
{
	if (m->force_collisions)
		key = 0;
	it->probes = 0;
	if (__builtin_expect(m->frozen != NULL, 0)) {
		it->key = hash_mix64(key);	/* what a frozen slot keeps */
		it->pos = hmap_frozen_home(it->key, m->cap);
		return;
	}
	it->key = key;
	it->pos = m->cap ? hash_mix64(key) & (m->cap - 1) : 0;
}

static bool frozen_next(const struct hmap *m, struct hmap_iter *it, uint64_t *val)
{
	uint32_t lo = (uint32_t)it->key, hi = (uint32_t)(it->key >> 32);

	while (it->probes < m->cap) {
		const uint32_t *f = &m->frozen[FROZEN_WORDS * it->pos];

		if (f[2] == SLOT_FREE)
			return false;
		it->pos = it->pos + 1 == m->cap ? 0 : it->pos + 1;
		it->probes++;
		if (f[0] == lo && f[1] == hi) {
			*val = f[2] - 1;
			return true;
		}
	}
	return false;
}

bool hmap__next(const struct hmap *m, struct hmap_iter *it, uint64_t *val)
{
	if (__builtin_expect(m->frozen != NULL, 0))
		return frozen_next(m, it, val);
	while (m->cap && it->probes < m->cap) {
		const struct hmap_entry *e = &m->slots[it->pos];

		if (e->val == SLOT_FREE)
			return false;
		it->pos = (it->pos + 1) & (m->cap - 1);
		it->probes++;
		if (e->key == it->key) {
			*val = e->val - 1;
			return true;
		}
	}
	return false;
}

bool hmap__find(const struct hmap *m, uint64_t key, uint64_t *val)
{
	struct hmap_iter it;

	hmap__iter_init(m, key, &it);
	return hmap__next(m, &it, val);
}

int hmap__set(struct hmap *m, uint64_t key, uint64_t val)
{
	struct hmap_iter it;
	uint64_t k = m->force_collisions ? 0 : key;

	if (m->frozen)
		return -EINVAL;
	hmap__iter_init(m, key, &it);
	while (m->cap && it.probes < m->cap) {
		struct hmap_entry *e = &m->slots[it.pos];

		if (e->val == SLOT_FREE)
			break;
		if (e->key == k) {
			if (val == HMAP_EMPTY)
				return -EINVAL;
			e->val = val + 1;
			return 0;
		}
		it.pos = (it.pos + 1) & (m->cap - 1);
		it.probes++;
	}
	return hmap__add(m, key, val);
}

/*
 * Eight bytes per step: each little-endian word is multiplied in and
 * rotated (the round of xxHash64, written from its description), the tail
 * is one zero-padded word, the length is mixed in, and hash_mix64()
 * finishes.  Not for hostile inputs; callers compare what shares a hash.
 */
static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t hash_round(uint64_t h, uint64_t w)
{
	h ^= rotl64(w * HASH_K1, 31) * HASH_K2;
	return rotl64(h, 27) * HASH_K1 + HASH_K3;
}

/*
 * The last 1 to 7 bytes as one zero-padded word: what memcpy() of len bytes
 * into a zeroed word gives.  On a little-endian host, from two loads that
 * may overlap (their common bytes are the same), not a byte loop through
 * the stack (most strings end in such a tail).
 */
static inline uint64_t tail_word(const unsigned char *s, size_t len)
{
	uint64_t w = 0;

	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		if (len >= 4) {
			uint32_t lo, hi;

			memcpy(&lo, s, 4);
			memcpy(&hi, s + len - 4, 4);
			return lo | (uint64_t)hi << (8 * (len - 4));
		}
		return s[0] | (uint64_t)s[len / 2] << (8 * (len / 2)) |
		       (uint64_t)s[len - 1] << (8 * (len - 1));
	}
	memcpy(&w, s, len);
	return w;
}

uint64_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (len * HASH_K2), w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = hash_round(h, w);
	}
	if (len) {
		w = tail_word(s, len);
		h = hash_round(h, w);
	}
	return hash_mix64(h);
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s), 0);
}
