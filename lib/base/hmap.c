// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Linear probing over a power-of-two table kept at most 3/4 full.  There
 * is no deletion (nothing in dwarf2btf needs it), so probing stops at the
 * first empty slot.  The order in which entries sharing a key are met is
 * a function of the insertion sequence only, so it is deterministic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"

enum {
	HMAP_MIN_CAP = 64,	/* slots of the first table */
	HMAP_LOAD_NUM = 3,	/* grow past HMAP_LOAD_NUM / HMAP_LOAD_DEN full */
	HMAP_LOAD_DEN = 4,
};

/* FNV-1a's parameters (64-bit; too wide for an enum) */
static const uint64_t FNV_OFFSET_BASIS = 0xcbf29ce484222325ULL;
static const uint64_t FNV_PRIME = 0x100000001b3ULL;

void hmap__init(struct hmap *m, bool force_collisions)
{
	memset(m, 0, sizeof(*m));
	m->force_collisions = force_collisions;
}

void hmap__release(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

void hmap__clear(struct hmap *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->len = 0;
}

static int hmap_grow(struct hmap *m)
{
	size_t new_cap = m->cap ? m->cap * 2 : HMAP_MIN_CAP, i;
	struct hmap_entry *old = m->slots, *slots;

	if (new_cap > SIZE_MAX / sizeof(*slots))
		return -EOVERFLOW;
	slots = calloc(new_cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		size_t pos;

		if (!old[i].used)
			continue;
		pos = hash_mix64(old[i].key) & (new_cap - 1);
		while (slots[pos].used)
			pos = (pos + 1) & (new_cap - 1);
		slots[pos] = old[i];
	}
	free(old);
	m->slots = slots;
	m->cap = new_cap;
	return 0;
}

int hmap__add(struct hmap *m, uint64_t key, uint64_t val)
{
	size_t pos;
	int err;

	if (m->force_collisions)
		key = 0;
	if ((m->len + 1) * HMAP_LOAD_DEN > m->cap * HMAP_LOAD_NUM) {
		err = hmap_grow(m);
		if (err)
			return err;
	}
	pos = hash_mix64(key) & (m->cap - 1);
	while (m->slots[pos].used)
		pos = (pos + 1) & (m->cap - 1);
	m->slots[pos].key = key;
	m->slots[pos].val = val;
	m->slots[pos].used = true;
	m->len++;
	return 0;
}

void hmap__iter_init(const struct hmap *m, uint64_t key, struct hmap_iter *it)
{
	if (m->force_collisions)
		key = 0;
	it->key = key;
	it->probes = 0;
	it->pos = m->cap ? hash_mix64(key) & (m->cap - 1) : 0;
}

bool hmap__next(const struct hmap *m, struct hmap_iter *it, uint64_t *val)
{
	while (m->cap && it->probes < m->cap) {
		const struct hmap_entry *e = &m->slots[it->pos];

		if (!e->used)
			return false;
		it->pos = (it->pos + 1) & (m->cap - 1);
		it->probes++;
		if (e->key == it->key) {
			*val = e->val;
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

	hmap__iter_init(m, key, &it);
	while (m->cap && it.probes < m->cap) {
		struct hmap_entry *e = &m->slots[it.pos];

		if (!e->used)
			break;
		if (e->key == k) {
			e->val = val;
			return 0;
		}
		it.pos = (it.pos + 1) & (m->cap - 1);
		it.probes++;
	}
	return hmap__add(m, key, val);
}

/* FNV-1a, 64-bit, with a final avalanche */
uint64_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = FNV_OFFSET_BASIS ^ seed;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= FNV_PRIME;
	}
	return hash_mix64(h);
}

uint64_t hash_str(const char *s)
{
	uint64_t h = FNV_OFFSET_BASIS;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= FNV_PRIME;
	}
	return hash_mix64(h);
}
