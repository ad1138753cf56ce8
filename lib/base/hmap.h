/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small open-addressing multimap from a 64-bit key to 64-bit values.
 *
 * The key is either a full hash (callers then compare the candidates it
 * returns: strings, types) or an exact key (a DIE address).  Several
 * entries may share a key; hmap__next() walks them in the order they were
 * added.  Slots are chosen by a mix of the key, so exact keys need no
 * hashing of their own.  force_collisions stores every key as 0: all
 * entries collide and callers' equality checks, not the hash, decide — a
 * test switch.
 *
 * A map can also be frozen (hmap__freeze()) into a compact read-only copy
 * of 12-byte slots in caller memory, which hmap__borrow_frozen() reads in
 * place with the same answers in the same order: see hmap.c.
 */
#ifndef D2B_HMAP_H
#define D2B_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A value no caller may store (hmap.c keeps val + 1 in a slot, 0: free). */
#define HMAP_EMPTY UINT64_MAX

struct hmap_entry {
	uint64_t key;
	uint64_t val;
};

struct hmap {
	struct hmap_entry *slots;
	const uint32_t *frozen;	/* hmap__borrow_frozen()'s slots, or NULL */
	size_t cap;		/* power of two, or 0; any number when frozen */
	size_t len;
	bool force_collisions;
};

struct hmap_iter {
	size_t pos;
	size_t probes;
	uint64_t key;		/* a frozen map's: hash_mix64() of the key */
};

void hmap__init(struct hmap *m, bool force_collisions);
/*
 * The frozen form: cap slots of three words (the key's hash_mix64() as low
 * and high word, then value + 1; all zero: free), at most 3/4 full.
 * hmap__frozen_cap() is the number of slots for len entries (0 if len is
 * too many); hmap__freeze() fills slots (cap * 3 words, zeroed by it) with
 * m's entries: -ERANGE if a value is above UINT32_MAX - 1, -EINVAL if cap
 * cannot hold them or is 2^32 or more, or if m has force_collisions (a
 * frozen map does not record it), -EBADMSG if m is a frozen map holding
 * more entries than its len; slots are undefined after an error.
 * hmap__borrow_frozen() makes m a read-only map over such slots, for
 * hmap__find(), hmap__iter_init(), hmap__next() and hmap__prefetch(): the
 * same values in the same order as the frozen map's.  hmap__add(),
 * hmap__set() and hmap__reserve() on it give -EINVAL; hmap__clear() and
 * hmap__release() forget the slots (never free or write them), leaving an
 * empty ordinary map.  -EINVAL if cap or len is out of range.
 */
size_t hmap__frozen_cap(size_t len);
/* Whether cap frozen slots may hold len entries (at most 3/4 full, a free
 * slot left, cap below 2^32): the rule strtab's frozen index keeps too. */
bool hmap__frozen_fits(size_t cap, size_t len);
int hmap__freeze(const struct hmap *m, uint32_t *slots, size_t cap);
int hmap__borrow_frozen(struct hmap *m, const uint32_t *slots, size_t cap, size_t len);
/* Frees m's table; one of hmap__borrow_frozen() only forgets its slots. */
void hmap__release(struct hmap *m);
void hmap__clear(struct hmap *m);
/* Room for n more entries without growing (one move of the table, not
 * one per doubling). */
int hmap__reserve(struct hmap *m, size_t n);
/* -EINVAL for val HMAP_EMPTY */
int hmap__add(struct hmap *m, uint64_t key, uint64_t val);
/* Start a walk over the values stored under key. */
void hmap__iter_init(const struct hmap *m, uint64_t key, struct hmap_iter *it);
bool hmap__next(const struct hmap *m, struct hmap_iter *it, uint64_t *val);
/* First value under key; false if none. */
bool hmap__find(const struct hmap *m, uint64_t key, uint64_t *val);
/* Replace the value of the first entry under key, or add it. */
int hmap__set(struct hmap *m, uint64_t key, uint64_t val);

/* Hash helpers */

/* A 64-bit finalizer: every input bit affects every output bit. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_bytes(const void *p, size_t len, uint64_t seed);

/* The home slot of mixed key x among cap < 2^32 frozen slots: the high 32
 * bits of x scaled to [0, cap) (multiply-shift, no division). */
static inline size_t hmap_frozen_home(uint64_t x, size_t cap)
{
	return (size_t)(((x >> 32) * (uint64_t)cap) >> 32);
}

/*
 * Start loading the slot where key's entries begin, for a table about to
 * take or be asked for many keys spread at random: callers that know their
 * next keys early (a whole table's worth) prefetch a few ahead, so the
 * cache misses overlap instead of coming one after the other.
 */
static inline void hmap__prefetch(const struct hmap *m, uint64_t key)
{
	uint64_t x;

	if (!m->cap)
		return;
	x = hash_mix64(m->force_collisions ? 0 : key);
	if (__builtin_expect(m->frozen != NULL, 0))
		__builtin_prefetch(&m->frozen[3 * hmap_frozen_home(x, m->cap)]);
	else
		__builtin_prefetch(&m->slots[x & (m->cap - 1)]);
}
uint64_t hash_str(const char *s);
static inline uint64_t hash_combine(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

#endif
