/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small direct-mapped cache of one string table's lookups, by the
 * string's hash: the offset a lookup found, checked against the table's own
 * bytes on every hit, so a stale or colliding slot only costs the lookup
 * it would have cost anyway.  For a large table (a base BTF's strings)
 * searched for the same few thousand names unit after unit, whose own
 * index would miss the processor's caches on every probe.  One memo
 * belongs to one thread.
 */
#ifndef D2B_STR_MEMO_H
#define D2B_STR_MEMO_H

#include <stddef.h>
#include <stdint.h>

struct str_memo;
struct strtab;

/* A memo of 2^order slots; NULL: no memory (or order > 24). */
struct str_memo *str_memo__new(unsigned int order);
void str_memo__free(struct str_memo *m);
/*
 * As strtab__find() for s (len > 0 bytes, hash_bytes(s, len, 0) == h) in
 * st: its offset, or -ENOENT.  A memo serves one table: given another, it
 * forgets the first.
 */
int64_t str_memo__find(struct str_memo *m, const struct strtab *st, const char *s, size_t len,
		       uint64_t h);
/*
 * Bring into the caches what str_memo__find(m, st, s, len, h) reads: its
 * slot (first), then, once the slot is at hand, the table's bytes the slot
 * names or the table's index (next).  A few lookups prefetched so before
 * any is made have their cache misses overlap.  Neither changes anything.
 */
void str_memo__prefetch(const struct str_memo *m, uint64_t h);
void str_memo__prefetch_next(const struct str_memo *m, const struct strtab *st, uint64_t h);

#endif
