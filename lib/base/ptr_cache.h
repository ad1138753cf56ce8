/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A direct-mapped cache from pointers into one stable region of memory (a
 * mapped section that does not change while the cache lives) to 32-bit
 * values: a lookup that hashes an address instead of the bytes behind it.
 * A slot holds the last pointer stored into it; a miss costs nothing but
 * the caller's slow path.  One cache belongs to one thread.
 */
#ifndef D2B_PTR_CACHE_H
#define D2B_PTR_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptr_cache;

/* A cache of 2^order slots for pointers into [lo, lo + len); NULL: no memory. */
struct ptr_cache *ptr_cache__new(const void *lo, size_t len, unsigned int order);
void ptr_cache__free(struct ptr_cache *c);
/* The region's start and size */
const void *ptr_cache__lo(const struct ptr_cache *c);
size_t ptr_cache__size(const struct ptr_cache *c);
/* Whether p lies in the region: only such pointers are cached. */
bool ptr_cache__covers(const struct ptr_cache *c, const void *p);
bool ptr_cache__get(const struct ptr_cache *c, const void *p, uint32_t *ret);
/* Remember p -> v (p outside the region: nothing happens). */
void ptr_cache__put(struct ptr_cache *c, const void *p, uint32_t v);

#endif
