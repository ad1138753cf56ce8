// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The index maps a string's hash to its offset; the buffer is the truth.
 * Keys are offsets, never pointers, because the buffer moves as it grows.
 *
 * The index is an open-addressing table of its own rather than an hmap:
 * a table holds each string once, so it needs no multimap, and a slot
 * is 8 bytes, not 16 -- the offset and 32 bits of the hash (the tag),
 * from which the slot is chosen, so the table grows without hashing a
 * string again.  For a kernel's base BTF (about 100,000 strings) that
 * halves the memory the index touches and the cache lines its probes
 * miss.  It is kept at most half full; probing is linear and stops at
 * the first empty slot (offset 0, which is "" and never indexed).  An
 * insertion probes once: the empty slot ending a failed search is where
 * the string goes.
 *
 * The frozen index
 * ----------------
 * A cache keeps a base's index for every later run, which only reads it
 * (until a module adds its first string).  Its frozen form keeps the same
 * 8-byte slots at most 3/4 full instead of half, and any number of them:
 * the home of a tag is ((u64)tag * nslots) >> 32 (multiply-shift, so the
 * count need not be a power of two), then linear probing with
 * wrap-around.  It is read in place (strtab__borrow_frozen()); the first
 * change copies the data (unshare()) and rebuilds an ordinary power-of-two
 * index, half full, from the frozen slots, after which the table is an
 * ordinary one.
 *
 * Each string is indexed once (a duplicate met by strtab__load() keeps
 * its first offset, and its later one never enters the index), so a
 * lookup meets at most one slot that matches, wherever the slots lie.
 * Moving slots between forms (index_fill()) still walks the source from
 * just past an empty slot, as hmap_grow_to() does, so that slots of one
 * tag keep their order: should the index ever hold a string twice, the
 * first offset stays the one found.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "base/pages.h"
#include "base/lazy.h"
#include "base/strtab.h"
#include "base/vec.h"

enum {
	STRTAB_INIT_CAP = 256,	/* bytes of a new table's buffer */
	INDEX_MIN_SLOTS = 64,	/* slots of the first index */
};

struct str_slot {
	uint32_t off;		/* 0: empty */
	uint32_t tag;		/* the hash's low 32 bits */
};

struct strtab {
	char *data;
	size_t len, cap;
	struct str_slot *slots;	/* the index: nslots (a power of two, or 0) */
	size_t nslots, nused;
	bool force_collisions;	/* every tag 0: all strings collide (tests) */
	bool dups;		/* strtab__load() met a string twice */
	/* data and the index are the caller's, the index frozen: any nslots
	 * (strtab__borrow_frozen()) */
	bool borrowed;
	struct lazy *lazy;	/* data is read where asked (strtab__set_lazy()), or NULL */
};

struct strtab *strtab__new(bool force_collisions)
{
	struct strtab *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->force_collisions = force_collisions;
	if (VEC_RESERVE(st->data, st->cap, 0, STRTAB_INIT_CAP)) {
		free(st);
		return NULL;
	}
	st->data[0] = '\0';
	st->len = 1;
	return st;
}

void strtab__free(struct strtab *st)
{
	if (!st)
		return;
	if (!st->borrowed) {
		free(st->slots);
		free(st->data);
	}
	free(st);
}

void strtab__index(const struct strtab *st, struct strtab_index *ix)
{
	ix->slots = st->slots;
	ix->nslots = st->nslots;
	ix->nused = st->nused;
	ix->dups = st->dups;
}

static size_t home_of(uint32_t tag, size_t nslots, bool frozen)
{
	if (frozen)
		return (size_t)(((uint64_t)tag * nslots) >> 32);
	return tag & (nslots - 1);
}

/*
 * Insert the nsrc slots of src (any form) into dst (ndst empty slots,
 * frozen or not), from just past an empty slot of src, so that slots of
 * one tag keep their order.  -EBADMSG if dst would fill up (src held more
 * than it said).
 */
static int index_fill(struct str_slot *dst, size_t ndst, bool frozen,
		      const struct str_slot *src, size_t nsrc)
{
	size_t i, n, start, pos, left = ndst;

	for (start = 0; start < nsrc && src[start].off; start++)
		;
	for (n = 0, i = start; n < nsrc; n++) {
		i = i + 1 >= nsrc ? 0 : i + 1;
		if (!src[i].off)
			continue;
		if (--left == 0)
			return -EBADMSG;
		for (pos = home_of(src[i].tag, ndst, frozen); dst[pos].off;)
			pos = pos + 1 == ndst ? 0 : pos + 1;
		dst[pos] = src[i];
	}
	return 0;
}

/* (a frozen index is sized and filled as a frozen hmap is: hmap.h) */
size_t strtab__frozen_slots(size_t nused)
{
	return hmap__frozen_cap(nused);
}

int strtab__freeze(const struct strtab *st, void *slots, size_t nslots)
{
	if (st->force_collisions || !hmap__frozen_fits(nslots, st->nused))
		return -EINVAL;
	memset(slots, 0, nslots * sizeof(struct str_slot));
	return index_fill(slots, nslots, true, st->slots, st->nslots);
}

struct strtab *strtab__borrow_frozen(const char *data, size_t len,
				     const struct strtab_index *ix)
{
	struct strtab *st;

	if (!len || data[0] || data[len - 1] || len > (size_t)INT32_MAX || !ix->nslots ||
	    !hmap__frozen_fits(ix->nslots, ix->nused))
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->data = (char *)data;
	st->len = st->cap = len;
	st->slots = (struct str_slot *)ix->slots;
	st->nslots = ix->nslots;
	st->nused = ix->nused;
	st->dups = ix->dups;
	st->borrowed = true;
	return st;
}

/*
 * Before the first change to a borrowed table: copies of its own, the
 * index an ordinary one (a frozen index rebuilt, half full).
 */
static int unshare(struct strtab *st)
{
	size_t nslots;
	struct str_slot *slots;
	char *data;
	int err;

	if (!st->borrowed)
		return 0;
	if (st->lazy && (lazy__need_all(st->lazy) || lazy__error(st->lazy)))
		return lazy__error(st->lazy);
	for (nslots = INDEX_MIN_SLOTS; st->nused * 2 > nslots;)
		nslots *= 2;
	data = malloc(st->len);
	slots = pages__zalloc(nslots, sizeof(*slots));
	if (!data || !slots) {
		free(data);
		free(slots);
		return -ENOMEM;
	}
	memcpy(data, st->data, st->len);
	err = index_fill(slots, nslots, false, st->slots, st->nslots);
	if (err) {
		free(data);
		free(slots);
		return err;
	}
	st->nslots = nslots;
	st->data = data;
	st->slots = slots;
	st->borrowed = false;
	st->lazy = NULL;	/* (the bytes are ours now) */
	return 0;
}

bool strtab__has_at(const struct strtab *st, uint64_t off, const char *s, size_t len)
{
	if (off + len >= st->len ||
	    (st->lazy && lazy__need(st->lazy, st->data + off, len + 1)))
		return false;
	return st->data[off + len] == '\0' && memcmp(st->data + off, s, len) == 0;
}

void strtab__set_lazy(struct strtab *st, struct lazy *lz)
{
	st->lazy = lz;
}

static uint32_t tag_of(const struct strtab *st, uint64_t h)
{
	return st->force_collisions ? 0 : (uint32_t)h;
}

/* Room for n more strings in an index at most half full. */
static int index_reserve(struct strtab *st, size_t n)
{
	size_t nslots = st->nslots ? st->nslots : INDEX_MIN_SLOTS, i, pos, mask;
	struct str_slot *slots;

	if (n > SIZE_MAX / 4 - st->nused)
		return -EOVERFLOW;
	while ((st->nused + n) * 2 > nslots)
		nslots *= 2;
	if (nslots == st->nslots)
		return 0;
	if (nslots > SIZE_MAX / sizeof(*slots))
		return -EOVERFLOW;
	slots = pages__zalloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	mask = nslots - 1;
	for (i = 0; i < st->nslots; i++) {
		if (!st->slots[i].off)
			continue;
		for (pos = st->slots[i].tag & mask; slots[pos].off; pos = (pos + 1) & mask)
			;
		slots[pos] = st->slots[i];
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = nslots;
	return 0;
}

/* index_probe() in a frozen index, which is never inserted into */
static int64_t frozen_probe(const struct strtab *st, const char *s, size_t len, uint32_t tag)
{
	size_t pos = home_of(tag, st->nslots, true), n;

	for (n = 0; n < st->nslots; n++) {
		const struct str_slot *e = &st->slots[pos];

		if (!e->off)
			break;
		if (e->tag == tag && strtab__has_at(st, e->off, s, len))
			return e->off;
		pos = pos + 1 == st->nslots ? 0 : pos + 1;
	}
	return -ENOENT;
}

/*
 * The offset of s (len > 0 bytes, hash h), or -ENOENT with *slot the empty
 * slot where it would go (NULL: no index yet).
 */
static int64_t index_probe(const struct strtab *st, const char *s, size_t len, uint64_t h,
			   struct str_slot **slot)
{
	uint32_t tag = tag_of(st, h);
	size_t mask = st->nslots - 1, pos;

	*slot = NULL;
	if (!st->nslots)
		return -ENOENT;
	if (__builtin_expect(st->borrowed, 0))
		return frozen_probe(st, s, len, tag);
	for (pos = tag & mask;; pos = (pos + 1) & mask) {
		struct str_slot *e = &st->slots[pos];

		if (!e->off) {
			*slot = e;
			return -ENOENT;
		}
		if (e->tag == tag && strtab__has_at(st, e->off, s, len))
			return e->off;
	}
}

void strtab__prefetch(const struct strtab *st, uint64_t h)
{
	if (st->nslots)
		__builtin_prefetch(&st->slots[home_of(tag_of(st, h), st->nslots, st->borrowed)]);
}

void strtab__prefetch_at(const struct strtab *st, uint64_t off)
{
	if (off < st->len)
		__builtin_prefetch(st->data + off);
}

int64_t strtab__find_hashed(const struct strtab *st, const char *s, size_t len, uint64_t h)
{
	struct str_slot *slot;

	return len ? index_probe(st, s, len, h, &slot) : 0;
}

int64_t strtab__add_len(struct strtab *st, const char *s, size_t len)
{
	return len ? strtab__add_hashed(st, s, len, hash_bytes(s, len, 0)) : 0;
}

int64_t strtab__add_hashed(struct strtab *st, const char *s, size_t len, uint64_t h)
{
	struct str_slot *slot;
	int64_t off;
	int err;

	if (len == 0)
		return 0;
	err = unshare(st);
	if (err)
		return err;
	/* grown first, so that the slot the probe ends at stays the one */
	err = index_reserve(st, 1);
	if (err)
		return err;
	off = index_probe(st, s, len, h, &slot);
	if (off >= 0)
		return off;
	if (st->len + len + 1 > (size_t)INT32_MAX)
		return -E2BIG;
	err = VEC_RESERVE(st->data, st->cap, st->len, len + 1);
	if (err)
		return err;
	off = st->len;
	memcpy(st->data + off, s, len);
	st->data[off + len] = '\0';
	slot->off = (uint32_t)off;
	slot->tag = tag_of(st, h);
	st->nused++;
	st->len += len + 1;
	return off;
}

int64_t strtab__add(struct strtab *st, const char *s)
{
	return s ? strtab__add_len(st, s, strlen(s)) : 0;
}

int64_t strtab__find(const struct strtab *st, const char *s)
{
	size_t len = strlen(s);

	if (len == 0)
		return 0;
	return strtab__find_hashed(st, s, len, hash_bytes(s, len, 0));
}

/* strtab__load() indexes each string this many strings after hashing it
 * and prefetching its slot */
enum { LOAD_AHEAD = 16 };

struct load_pending {
	size_t start, n;
	uint64_t h;
};

/* the first offset of a duplicate stays the indexed one */
static void load_index(struct strtab *st, const struct load_pending *p)
{
	struct str_slot *slot;

	if (index_probe(st, st->data + p->start, p->n, p->h, &slot) >= 0) {
		st->dups = true;
		return;
	}
	slot->off = (uint32_t)p->start;
	slot->tag = tag_of(st, p->h);
	st->nused++;
}

/* Index every string of the table just filled (st->len bytes, ending with a NUL). */
static int load_all(struct strtab *st)
{
	struct load_pending ring[LOAD_AHEAD];
	size_t i, start, n, head = 0, queued = 0, len = st->len;
	const char *p, *data = st->data;
	int err;

	/* one table for them all: as many entries as NULs, at most */
	for (n = 0, p = data; (p = memchr(p, '\0', (size_t)(data + len - p))); p++)
		n++;
	err = index_reserve(st, n);
	if (err)
		return err;
	/* in order, each string LOAD_AHEAD strings after its slot was
	 * prefetched: the index does not move (reserved), and the first
	 * offset of a duplicate is the one indexed, as without the delay */
	for (start = 0; start < len; start = i + 1) {
		struct load_pending *q;

		/* (data ends with a NUL) */
		i = (size_t)((const char *)memchr(data + start, '\0', len - start) - data);
		n = i - start;
		if (n) {
			if (queued == LOAD_AHEAD) {
				load_index(st, &ring[head]);
				queued--;
				head = (head + 1) % LOAD_AHEAD;
			}
			q = &ring[(head + queued++) % LOAD_AHEAD];
			q->start = start;
			q->n = n;
			q->h = hash_bytes(data + start, n, 0);
			strtab__prefetch(st, q->h);
		}
	}
	for (; queued; queued--, head = (head + 1) % LOAD_AHEAD)
		load_index(st, &ring[head]);
	return 0;
}

/* Fill a new table with data (len bytes), with a NUL before and after
 * them if nuls, and index it. */
static int load(struct strtab *st, const char *data, size_t len, bool nuls)
{
	size_t total = len + (nuls ? 2 : 0);
	int err;

	if (st->len != 1 || st->nused || st->borrowed)
		return -EBUSY;
	if (total > (size_t)INT32_MAX)
		return -E2BIG;
	err = VEC_RESERVE(st->data, st->cap, 0, total);
	if (err)
		return err;
	pages__prepare_write(st->data, total);
	memcpy(st->data + nuls, data, len);
	if (nuls)
		st->data[0] = st->data[total - 1] = '\0';
	st->len = total;
	return load_all(st);
}

int strtab__load(struct strtab *st, const char *data, size_t len)
{
	if (len && data[len - 1] != '\0')
		return -EINVAL;
	if (!len)	/* (busy or not: a new table is left as it is) */
		return st->len != 1 || st->nused || st->borrowed ? -EBUSY : 0;
	return load(st, data, len, false);
}

int strtab__load_section(struct strtab *st, const char *data, size_t len)
{
	return load(st, data, len, true);
}

bool strtab__loaded_dups(const struct strtab *st)
{
	return st->dups;
}

const char *strtab__str(const struct strtab *st, uint32_t off)
{
	if (off >= st->len || (st->lazy && lazy__need_str(st->lazy, st->data + off)))
		return NULL;
	return st->data + off;
}

const char *strtab__data(const struct strtab *st)
{
	if (st->lazy && lazy__need_all(st->lazy))
		return NULL;
	return st->data;
}

size_t strtab__size(const struct strtab *st)
{
	return st->len;
}
