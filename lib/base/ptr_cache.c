// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Slots are indexed by a mix of the pointer's offset in the region; the
 * slot keeps the offset + 1 (0: empty) and the value.  Nothing is ever
 * evicted on purpose: a later pointer of the same slot replaces it.
 */
#include <stdlib.h>

#include "base/hmap.h"
#include "base/ptr_cache.h"

struct ptr_slot {
	uint64_t key;		/* offset in the region + 1; 0: empty */
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
	c->slots = calloc((size_t)1 << order, sizeof(*c->slots));
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

size_t ptr_cache__offset(const struct ptr_cache *c, const void *p)
{
	return (size_t)((const char *)p - c->lo);
}

bool ptr_cache__covers(const struct ptr_cache *c, const void *p)
{
	const char *q = p;

	return q >= c->lo && (size_t)(q - c->lo) < c->len;
}

static struct ptr_slot *slot_of(const struct ptr_cache *c, uint64_t key)
{
	return &c->slots[hash_mix64(key) & c->mask];
}

bool ptr_cache__get(const struct ptr_cache *c, const void *p, uint32_t *ret)
{
	const struct ptr_slot *s;
	uint64_t key;

	if (!ptr_cache__covers(c, p))
		return false;
	key = (uint64_t)((const char *)p - c->lo) + 1;
	s = slot_of(c, key);
	if (s->key != key)
		return false;
	*ret = s->val;
	return true;
}

void ptr_cache__put(struct ptr_cache *c, const void *p, uint32_t v)
{
	struct ptr_slot *s;
	uint64_t key;

	if (!ptr_cache__covers(c, p))
		return;
	key = (uint64_t)((const char *)p - c->lo) + 1;
	s = slot_of(c, key);
	s->key = key;
	s->val = v;
}
