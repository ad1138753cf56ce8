// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * MADV_DONTNEED on a private file mapping drops the process's copies of the
 * pages; pages it never wrote are then read again from the file (the page
 * cache) if touched, so the data is unchanged.  On anonymous or written
 * pages it would lose data: hence pages__in_file_mapping(), which callers
 * ask once for a whole region before dropping any of it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/pages.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

enum {
	ZALLOC_POPULATE_MIN = 256 * 1024,	/* bytes: smaller blocks are left as they are */
};

bool pages__in_file_mapping(const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	char line[4096];
	bool ok = false;
	FILE *f;

	if (!p || !len || hi < lo)
		return false;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, inode;
		char perms[8], dev[32];
		unsigned long long off;
		int path = 0;

		if (sscanf(line, "%lx-%lx %7s %llx %31s %lu %n", &start, &end, perms, &off, dev,
			   &inode, &path) < 6)
			continue;
		if (lo < start || lo >= end)
			continue;
		/* private ('p'), readable, of a file (an inode and a path) */
		ok = hi <= end && perms[0] == 'r' && perms[3] == 'p' && inode != 0 && path > 0 &&
		     line[path] == '/';
		break;
	}
	fclose(f);
	return ok;
}

/* The whole pages inside [p, p + len): false if there are none. */
static bool whole_pages(const void *p, size_t len, uintptr_t *lo, uintptr_t *hi,
			uintptr_t *page)
{
	long sz = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p, end = start + len;

	if (sz <= 0 || end < start)
		return false;
	*page = (uintptr_t)sz;
	*lo = (start + *page - 1) & ~(*page - 1);
	*hi = end & ~(*page - 1);
	return *hi > *lo;
}

void pages__drop(const void *p, size_t len)
{
	uintptr_t lo, hi, page;

	if (whole_pages(p, len, &lo, &hi, &page))
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void pages_behind__init(struct pages_behind *pb, const void *base, size_t size, size_t batch)
{
	pb->base = base;
	pb->size = base ? size : 0;
	pb->batch = batch;
	pb->done = 0;
}

/* The next PAGES_AHEAD_BATCHES batches from pos made present at once: one
 * call where the reader would take a fault every 16 pages (fault-around);
 * a hint, so failure changes nothing. */
static void pages_ahead(const struct pages_behind *pb, size_t pos)
{
	uintptr_t lo, hi, page;
	size_t n = pb->size - pos;

	if (n > PAGES_AHEAD_BATCHES * pb->batch)
		n = PAGES_AHEAD_BATCHES * pb->batch;
	if (whole_pages(pb->base + pos, n, &lo, &hi, &page))
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
}

void pages_behind__reach(struct pages_behind *pb, size_t pos)
{
	if (!pb->base || pos > pb->size || pos <= pb->done || pos - pb->done < pb->batch)
		return;
	pages__drop(pb->base + pb->done, pos - pb->done);
	pb->done = pos;
	pages_ahead(pb, pos);
}

void pages_behind__all(const struct pages_behind *pb)
{
	if (pb->base)
		pages__drop(pb->base, pb->size);
}

void *pages__zalloc(size_t n, size_t size)
{
	uintptr_t lo, hi, page;
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = calloc(n, size);
	if (!p || n * size < ZALLOC_POPULATE_MIN || !whole_pages(p, n * size, &lo, &hi, &page))
		return p;
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE)) {
		/* (zeros over zeros: only the write matters) */
		for (; lo < hi; lo += page)
			*(volatile char *)lo = 0;
	}
	return p;
}

void pages__prepare_write(void *p, size_t len)
{
	uintptr_t lo, hi, page;

	/* (the pages at the ends, shared with other data, fault when written) */
	if (whole_pages(p, len, &lo, &hi, &page))
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
