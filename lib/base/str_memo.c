// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Slots are chosen by the low bits of the hash and keep the whole hash, so
 * a slot answers only for strings of that hash; the table's bytes at the
 * offset decide.  Only strings found are remembered: a string the table
 * lacks has nothing to check a slot against.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/str_memo.h"
#include "base/pages.h"
#include "base/strtab.h"

struct memo_slot {
	uint64_t hash;
	uint32_t off;		/* 0: empty (offset 0 is "", never looked up) */
};

struct str_memo {
	const struct strtab *st;
	size_t mask;
	struct memo_slot *slots;
};

struct str_memo *str_memo__new(unsigned int order)
{
	struct str_memo *m;

	if (order > 24)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->slots = pages__zalloc((size_t)1 << order, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		return NULL;
	}
	m->mask = ((size_t)1 << order) - 1;
	return m;
}

void str_memo__free(struct str_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

/* The offset h's slot remembers for st, or 0 (a slot of another hash, or
 * of a table the memo served before). */
static uint32_t slot_off(const struct str_memo *m, const struct strtab *st, uint64_t h)
{
	const struct memo_slot *slot = &m->slots[h & m->mask];

	return m->st == st && slot->hash == h ? slot->off : 0;
}

int64_t str_memo__find(struct str_memo *m, const struct strtab *st, const char *s, size_t len,
		       uint64_t h)
{
	struct memo_slot *slot;
	int64_t off;

	if (m->st != st) {
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
		m->st = st;
	}
	off = slot_off(m, st, h);
	if (off && strtab__has_at(st, (uint64_t)off, s, len))
		return off;
	off = strtab__find_hashed(st, s, len, h);
	slot = &m->slots[h & m->mask];
	if (off > 0 && off <= UINT32_MAX) {
		slot->hash = h;
		slot->off = (uint32_t)off;
	}
	return off;
}

void str_memo__prefetch(const struct str_memo *m, uint64_t h)
{
	__builtin_prefetch(&m->slots[h & m->mask]);
}

void str_memo__prefetch_next(const struct str_memo *m, const struct strtab *st, uint64_t h)
{
	uint32_t off = slot_off(m, st, h);

	if (off)
		strtab__prefetch_at(st, off);
	else
		strtab__prefetch(st, h);
}
