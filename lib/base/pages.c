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

void pages__drop(const void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p, hi = lo + len;

	if (page <= 0 || hi < lo)
		return;
	lo = (lo + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	hi &= ~((uintptr_t)page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void *pages__zalloc(size_t n, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = calloc(n, size);
	if (!p || n * size < ZALLOC_POPULATE_MIN || page <= 0)
		return p;
	lo = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	hi = ((uintptr_t)p + n * size) & ~((uintptr_t)page - 1);
	if (hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE)) {
		/* (zeros over zeros: only the write matters) */
		for (; lo < hi; lo += (uintptr_t)page)
			*(volatile char *)lo = 0;
	}
	return p;
}

void pages__prepare_write(void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p, hi = lo + len;

	if (page <= 0 || hi < lo)
		return;
	lo &= ~((uintptr_t)page - 1);
	hi = (hi + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
