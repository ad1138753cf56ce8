// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Slots are indexed by a mix of the pointer's offset in the region; the
 * slot keeps the offset + 1 (0: empty) and the value.  Nothing is ever
 * evicted on purpose: a later pointer of the same slot replaces it.
 */
#include <stdlib.h>

#include "base/hmap.h"
#include "base/ptr_cache.h"
#include "base/pages.h"

/* 8 bytes, so that a cache of 2^16 slots fits half a MiB: offsets past
 * 32 bits are not cached (a region that large gets its first 4 GiB). */
struct ptr_slot {
	uint32_t key;		/* offset in the region + 1; 0: empty */
	uint32_t val;
};

struct ptr_cache {
	const char *lo;
	size_t len;
	size_t mask;
	struct ptr_slot *slots;
};

struct ptr_cache *ptr_cache__new(const void *lo, size_t len, unsigned int order)
{
	struct ptr_cache *c;

	if (order > 24)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->slots = pages__zalloc((size_t)1 << order, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	c->lo = lo;
	c->len = len;
	c->mask = ((size_t)1 << order) - 1;
	return c;
}

void ptr_cache__free(struct ptr_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

const void *ptr_cache__lo(const struct ptr_cache *c)
{
	return c->lo;
}

size_t ptr_cache__size(const struct ptr_cache *c)
{
	return c->len;
}

bool ptr_cache__covers(const struct ptr_cache *c, const void *p)
{
	const char *q = p;

	return q >= c->lo && (size_t)(q - c->lo) < c->len;
}

static struct ptr_slot *slot_of(const struct ptr_cache *c, uint32_t key)
{
	return &c->slots[hash_mix64(key) & c->mask];
}

/* p's key, or 0 if p is not cached */
static uint32_t key_of(const struct ptr_cache *c, const void *p)
{
	const char *q = p;

	if (q < c->lo || (size_t)(q - c->lo) >= c->len || (size_t)(q - c->lo) >= UINT32_MAX)
		return 0;
	return (uint32_t)(q - c->lo) + 1;
}

bool ptr_cache__get(const struct ptr_cache *c, const void *p, uint32_t *ret)
{
	const struct ptr_slot *s;
	uint32_t key = key_of(c, p);

	if (!key)
		return false;
	s = slot_of(c, key);
	if (s->key != key)
		return false;
	*ret = s->val;
	return true;
}

void ptr_cache__put(struct ptr_cache *c, const void *p, uint32_t v)
{
	struct ptr_slot *s;
	uint32_t key = key_of(c, p);

	if (!key)
		return;
	s = slot_of(c, key);
	s->key = key;
	s->val = v;
}
