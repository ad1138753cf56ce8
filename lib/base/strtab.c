// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The index maps a string's hash to its offset; the buffer is the truth.
 * Keys are offsets, never pointers, because the buffer moves as it grows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "base/strtab.h"
#include "base/vec.h"

enum {
	STRTAB_INIT_CAP = 256,	/* bytes of a new table's buffer */
};

struct strtab {
	char *data;
	size_t len, cap;
	struct hmap index;	/* hash -> offset */
	bool dups;		/* strtab__load() met a string twice */
};

struct strtab *strtab__new(bool force_collisions)
{
	struct strtab *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	hmap__init(&st->index, force_collisions);
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
	hmap__release(&st->index);
	free(st->data);
	free(st);
}

bool strtab__has_at(const struct strtab *st, uint64_t off, const char *s, size_t len)
{
	return off + len < st->len && st->data[off + len] == '\0' &&
	       memcmp(st->data + off, s, len) == 0;
}

static int64_t strtab_lookup(const struct strtab *st, const char *s, size_t len, uint64_t h)
{
	struct hmap_iter it;
	uint64_t off;

	hmap__iter_init(&st->index, h, &it);
	while (hmap__next(&st->index, &it, &off)) {
		if (strtab__has_at(st, off, s, len))
			return off;
	}
	return -ENOENT;
}

int64_t strtab__find_hashed(const struct strtab *st, const char *s, size_t len, uint64_t h)
{
	return len ? strtab_lookup(st, s, len, h) : 0;
}

int64_t strtab__add_len(struct strtab *st, const char *s, size_t len)
{
	return len ? strtab__add_hashed(st, s, len, hash_bytes(s, len, 0)) : 0;
}

int64_t strtab__add_hashed(struct strtab *st, const char *s, size_t len, uint64_t h)
{
	int64_t off;
	int err;

	if (len == 0)
		return 0;
	off = strtab_lookup(st, s, len, h);
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
	err = hmap__add(&st->index, h, off);
	if (err)
		return err;
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
	return strtab_lookup(st, s, len, hash_bytes(s, len, 0));
}

/* strtab__load() indexes each string this many strings after hashing it
 * and prefetching its slot (hmap__prefetch()) */
enum { LOAD_AHEAD = 16 };

struct load_pending {
	size_t start, n;
	uint64_t h;
};

static int load_index(struct strtab *st, const struct load_pending *p)
{
	if (strtab_lookup(st, st->data + p->start, p->n, p->h) >= 0) {
		st->dups = true;
		return 0;
	}
	return hmap__add(&st->index, p->h, p->start);
}

int strtab__load(struct strtab *st, const char *data, size_t len)
{
	struct load_pending ring[LOAD_AHEAD];
	size_t i, start, n, head = 0, queued = 0;
	const char *p;
	int err;

	if (st->len != 1 || st->index.len)
		return -EBUSY;
	if (len == 0)
		return 0;
	if (data[len - 1] != '\0')
		return -EINVAL;
	err = VEC_RESERVE(st->data, st->cap, 0, len);
	if (err)
		return err;
	memcpy(st->data, data, len);
	st->len = len;
	/* one table for them all: as many entries as NULs, at most */
	for (n = 0, p = data; (p = memchr(p, '\0', (size_t)(data + len - p))); p++)
		n++;
	err = hmap__reserve(&st->index, n);
	if (err)
		return err;
	/* in order, each string LOAD_AHEAD strings after its slot was
	 * prefetched: the table does not move (reserved), and the first
	 * offset of a duplicate is the one indexed, as without the delay */
	for (start = 0; start < len; start = i + 1) {
		struct load_pending *q;

		/* (data ends with a NUL) */
		i = (size_t)((const char *)memchr(data + start, '\0', len - start) - data);
		n = i - start;
		if (n) {
			if (queued == LOAD_AHEAD) {
				err = load_index(st, &ring[head]);
				if (err)
					return err;
				queued--;
				head = (head + 1) % LOAD_AHEAD;
			}
			q = &ring[(head + queued++) % LOAD_AHEAD];
			q->start = start;
			q->n = n;
			q->h = hash_bytes(data + start, n, 0);
			hmap__prefetch(&st->index, q->h);
		}
	}
	for (; queued; queued--, head = (head + 1) % LOAD_AHEAD) {
		err = load_index(st, &ring[head]);
		if (err)
			return err;
	}
	return 0;
}

bool strtab__loaded_dups(const struct strtab *st)
{
	return st->dups;
}

const char *strtab__str(const struct strtab *st, uint32_t off)
{
	return off < st->len ? st->data + off : NULL;
}

const char *strtab__data(const struct strtab *st)
{
	return st->data;
}

size_t strtab__size(const struct strtab *st)
{
	return st->len;
}
