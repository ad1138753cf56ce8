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
	size_t cap;		/* power of two, or 0 */
	size_t len;
	bool force_collisions;
};

struct hmap_iter {
	size_t pos;
	size_t probes;
	uint64_t key;
};

void hmap__init(struct hmap *m, bool force_collisions);
/*
 * A read-only map over slots that another map's slots were (m->slots,
 * m->cap and m->len of a map, kept by a cache): for hmap__find(),
 * hmap__iter_init() and hmap__next() only, never to be added to, cleared or
 * released.  -EINVAL if cap is not a power of two above twice len.
 */
int hmap__borrow(struct hmap *m, const struct hmap_entry *slots, size_t cap, size_t len);
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

/*
 * Start loading the slot where key's entries begin, for a table about to
 * take or be asked for many keys spread at random: callers that know their
 * next keys early (a whole table's worth) prefetch a few ahead, so the
 * cache misses overlap instead of coming one after the other.
 */
static inline void hmap__prefetch(const struct hmap *m, uint64_t key)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[hash_mix64(m->force_collisions ? 0 : key) &
					     (m->cap - 1)]);
}
uint64_t hash_str(const char *s);
static inline uint64_t hash_combine(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

#endif
