// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading a file's bytes only where they are used
 * ===============================================
 *
 * The range gets an anonymous private mapping of its size: pages never
 * written cost nothing, so the process holds only the blocks read.  Block
 * i is the page-aligned piece [lo + i * BLOCK, lo + (i + 1) * BLOCK) of
 * the file (lo: the range's start rounded down to a block), read by
 * pread() in place, so that the bytes keep the file's layout and a record
 * that spans two blocks is contiguous once both are read.
 *
 * Each block has a state byte: UNREAD, or READ once its bytes are there.
 * A reader that finds READ (acquire order) uses the bytes; else it takes
 * the lock, looks again, reads the block and publishes READ (release
 * order).  So a block is read once, and no thread sees a block half read.
 *
 * Against a mapping of the file: one pread() (a system call, about 1 us
 * for a block in the page cache) per block used, against a page fault per
 * 64 KiB or more; what the process holds is the blocks used, against the
 * whole neighbourhood of each.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/lazy.h"

enum {
	BLOCK = 4096,		/* bytes read at once (a page) */
	DIGEST_BUF = 64 << 10,	/* lazy__digest()'s buffer */
	UNREAD = 0,
	READ = 1,
};

struct lazy {
	int fd;
	uint64_t lo;		/* the file offset of the region's first byte */
	uint64_t end;		/* ... and of the range's end */
	char *region;		/* the mapping: lo .. end rounded up to blocks */
	size_t region_len;
	const char *data;	/* the range's first byte, inside region */
	size_t size;
	uint8_t *state;		/* per block: UNREAD or READ */
	size_t nblocks;
	int err;		/* the first read's error, or 0 */
	pthread_mutex_t lock;
};

int lazy__open(int fd, uint64_t off, size_t size, struct lazy **ret)
{
	struct lazy *lz;
	uint64_t lo = off & ~(uint64_t)(BLOCK - 1);
	int err;

	*ret = NULL;
	if (!size || off > UINT64_MAX - size || size > SIZE_MAX - BLOCK - (off - lo))
		return -EINVAL;
	lz = calloc(1, sizeof(*lz));
	if (!lz)
		return -ENOMEM;
	lz->fd = -1;
	lz->lo = lo;
	lz->end = off + size;
	lz->size = size;
	lz->nblocks = (size + (off - lo) + BLOCK - 1) / BLOCK;
	lz->region_len = lz->nblocks * BLOCK;
	lz->state = calloc(lz->nblocks, 1);
	if (!lz->state) {
		free(lz);
		return -ENOMEM;
	}
	lz->region = mmap(NULL, lz->region_len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (lz->region == MAP_FAILED) {
		err = -errno;
		free(lz->state);
		free(lz);
		return err;
	}
	/* a page at a time: a huge page would bring 2 MiB in for one block */
	madvise(lz->region, lz->region_len, MADV_NOHUGEPAGE);
	lz->data = lz->region + (off - lo);
	lz->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (lz->fd < 0) {
		err = -errno;
		munmap(lz->region, lz->region_len);
		free(lz->state);
		free(lz);
		return err;
	}
	pthread_mutex_init(&lz->lock, NULL);
	*ret = lz;
	return 0;
}

void lazy__free(struct lazy *lz)
{
	if (!lz)
		return;
	pthread_mutex_destroy(&lz->lock);
	close(lz->fd);
	munmap(lz->region, lz->region_len);
	free(lz->state);
	free(lz);
}

const void *lazy__data(const struct lazy *lz)
{
	return lz->data;
}

size_t lazy__size(const struct lazy *lz)
{
	return lz->size;
}

int lazy__error(const struct lazy *lz)
{
	return __atomic_load_n(&lz->err, __ATOMIC_ACQUIRE);
}

/* pread() all of n bytes at off into p; -EIO if the file ends first. */
static int read_full(int fd, char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t r = pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;	/* cut short since it was opened */
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* Blocks first .. last read (the lock taken for those not yet). */
static int need_blocks(struct lazy *lz, size_t first, size_t last)
{
	size_t i;
	int err = 0;

	for (i = first; i <= last; i++)
		if (__atomic_load_n(&lz->state[i], __ATOMIC_ACQUIRE) != READ)
			break;
	if (i > last)
		return 0;
	pthread_mutex_lock(&lz->lock);
	for (; i <= last && !err; i++) {
		uint64_t at = lz->lo + (uint64_t)i * BLOCK;
		size_t n = lz->end - at < BLOCK ? (size_t)(lz->end - at) : BLOCK;

		if (__atomic_load_n(&lz->state[i], __ATOMIC_RELAXED) == READ)
			continue;
		err = read_full(lz->fd, lz->region + (size_t)i * BLOCK, n, at);
		if (err) {
			if (!lz->err)
				__atomic_store_n(&lz->err, err, __ATOMIC_RELEASE);
			break;
		}
		__atomic_store_n(&lz->state[i], READ, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lz->lock);
	return err;
}

int lazy__need(struct lazy *lz, const void *p, size_t len)
{
	size_t at = (size_t)((const char *)p - lz->data);

	if ((const char *)p < lz->data || at > lz->size || len > lz->size - at)
		return -ERANGE;
	if (!len)
		return 0;
	at += (size_t)(lz->data - lz->region);
	return need_blocks(lz, at / BLOCK, (at + len - 1) / BLOCK);
}

int lazy__need_str(struct lazy *lz, const char *p)
{
	size_t at = (size_t)(p - lz->data), skip = (size_t)(lz->data - lz->region);
	int err;

	if (p < lz->data || at >= lz->size)
		return -ERANGE;
	for (;;) {
		size_t b = (at + skip) / BLOCK;
		size_t stop = (b + 1) * BLOCK - skip;	/* the block's end, in the range */

		if (stop > lz->size)
			stop = lz->size;
		err = need_blocks(lz, b, b);
		if (err)
			return err;
		if (memchr(lz->data + at, '\0', stop - at))
			return 0;
		if (stop == lz->size)
			return -ERANGE;
		at = stop;
	}
}

int lazy__need_all(struct lazy *lz)
{
	return need_blocks(lz, 0, lz->nblocks - 1);
}

int lazy__digest(struct lazy *lz, uint64_t *ret)
{
	struct digest d;
	uint64_t at;
	char *buf = malloc(DIGEST_BUF);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	digest__init(&d, 0);
	for (at = lz->end - lz->size; at < lz->end && !err; at += DIGEST_BUF) {
		size_t n = lz->end - at < DIGEST_BUF ? (size_t)(lz->end - at) : DIGEST_BUF;

		err = read_full(lz->fd, buf, n, at);
		if (!err)
			digest__add(&d, buf, n);
	}
	free(buf);
	if (!err)
		*ret = digest__final(&d);
	return err;
}
