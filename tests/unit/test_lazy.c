// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for struct lazy (lib/base/lazy.c), a file's bytes read where
 * asked: the bytes asked for are the file's, whatever the ranges (across
 * blocks, at an offset not on a block, the last short block); only the
 * blocks asked for are in memory (mincore()); a file cut short after the
 * open gives an error that stays; threads asking at once see whole
 * blocks (under TSan too); and the digest is digest64()'s.
 */
#include <errno.h>
#include <pthread.h>

#include "base/digest.h"
#include "base/lazy.h"
#include "test.h"

enum { BLK = 4096, FILE_LEN = 5 * BLK + 123 };

static char path[64];
static unsigned char bytes[FILE_LEN];

/* bytes[] with NULs here and there (strings to find), written to path */
static int make_file(void)
{
	size_t i;
	int fd;

	for (i = 0; i < FILE_LEN; i++)
		bytes[i] = (unsigned char)(i * 131 + 7) | 1;
	for (i = 100; i < FILE_LEN; i += 997)
		bytes[i] = 0;
	bytes[BLK + 50] = 0;	/* a string ends just past the first block */
	snprintf(path, sizeof(path), "/tmp/d2b-test-lazy-XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		CHECK_EQ(write(fd, bytes, FILE_LEN), FILE_LEN);
	return fd;
}

/* Pages of [p, p + len) in memory (mincore()). */
static size_t resident(const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(BLK - 1);
	size_t n = ((uintptr_t)p + len - lo + BLK - 1) / BLK, i, r = 0;
	unsigned char v[64];

	if (n > sizeof(v) || mincore((void *)lo, n * BLK, v))
		return SIZE_MAX;
	for (i = 0; i < n; i++)
		r += v[i] & 1;
	return r;
}

static void test_lazy_ranges(void)
{
	/* offsets into the file where the range starts */
	static const size_t starts[] = { 0, 1, 100, BLK - 1, BLK, BLK + 17 };
	size_t s;
	int fd = make_file();

	for (s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		size_t off = starts[s], size = FILE_LEN - off;
		struct lazy *lz;
		const char *d;

		CHECK_EQ(lazy__open(fd, off, size, &lz), 0);
		REQUIRE(lz);
		d = lazy__data(lz);
		CHECK_EQ(lazy__size(lz), size);
		CHECK_EQ(resident(d, size), 0);
		/* one byte: one block */
		CHECK_EQ(lazy__need(lz, d + 10, 1), 0);
		CHECK_EQ(d[10], (char)bytes[off + 10]);
		CHECK_EQ(resident(d, size), 1);
		/* across a block's end */
		CHECK_EQ(lazy__need(lz, d + 2 * BLK - 8, 16), 0);
		CHECK(!memcmp(d + 2 * BLK - 8, bytes + off + 2 * BLK - 8, 16));
		/* the last byte (the short last block) */
		CHECK_EQ(lazy__need(lz, d + size - 1, 1), 0);
		CHECK_EQ(d[size - 1], (char)bytes[FILE_LEN - 1]);
		/* a string that runs into the next block (its NUL at 13061) */
		CHECK_EQ(lazy__need_str(lz, d + 3 * BLK - 20 - off), 0);
		CHECK_EQ(strlen(d + 3 * BLK - 20 - off), 13061 - (3 * BLK - 20));
		/* past the end, and the empty range */
		CHECK_EQ(lazy__need(lz, d + size - 1, 2), -ERANGE);
		CHECK_EQ(lazy__need(lz, d + size, 0), 0);
		CHECK_EQ(lazy__need(lz, d - 1, 1), -ERANGE);
		CHECK_EQ(lazy__need_str(lz, d + size), -ERANGE);
		CHECK_EQ(lazy__error(lz), 0);
		/* all of it */
		CHECK_EQ(lazy__need_all(lz), 0);
		CHECK(!memcmp(d, bytes + off, size));
		lazy__free(lz);
	}
	{
		struct lazy *none;

		CHECK_EQ(lazy__open(fd, 0, 0, &none), -EINVAL);
		CHECK(!none);
	}
	close(fd);
	unlink(path);
}

/* The last string has no NUL before the end of the range. */
static void test_lazy_unterminated(void)
{
	int fd = make_file();
	struct lazy *lz;
	const char *d;
	size_t size = FILE_LEN - 1;

	bytes[FILE_LEN - 2] = 'x';
	CHECK_EQ(pwrite(fd, bytes + FILE_LEN - 2, 1, FILE_LEN - 2), 1);
	CHECK_EQ(lazy__open(fd, 0, size, &lz), 0);
	REQUIRE(lz);
	d = lazy__data(lz);
	CHECK_EQ(lazy__need_str(lz, d + size - 20), -ERANGE);
	CHECK_EQ(lazy__error(lz), 0);	/* (not a read error) */
	lazy__free(lz);
	close(fd);
	unlink(path);
}

/* A file cut short after the open: the blocks gone cannot be read, and
 * the error stays; blocks read before stay good. */
static void test_lazy_cut(void)
{
	int fd = make_file();
	struct lazy *lz;
	const char *d;

	CHECK_EQ(lazy__open(fd, 0, FILE_LEN, &lz), 0);
	REQUIRE(lz);
	d = lazy__data(lz);
	CHECK_EQ(lazy__need(lz, d, 8), 0);
	CHECK_EQ(ftruncate(fd, 2 * BLK), 0);
	close(fd);		/* (lz keeps its own) */
	CHECK_EQ(lazy__need(lz, d + 3 * BLK, 8), -EIO);
	CHECK_EQ(lazy__error(lz), -EIO);
	CHECK_EQ(lazy__need(lz, d + BLK, 8), 0);
	CHECK(!memcmp(d, bytes, 8));
	CHECK_EQ(lazy__need_all(lz), -EIO);
	CHECK_EQ(lazy__error(lz), -EIO);
	lazy__free(lz);
	unlink(path);
}

static void test_lazy_digest(void)
{
	int fd = make_file();
	struct lazy *lz;
	uint64_t dg = 0;

	CHECK_EQ(lazy__open(fd, 77, FILE_LEN - 77, &lz), 0);
	REQUIRE(lz);
	CHECK_EQ(lazy__digest(lz, &dg), 0);
	CHECK_EQ(dg, digest64(bytes + 77, FILE_LEN - 77, 0));
	/* it kept none of the bytes */
	CHECK_EQ(resident(lazy__data(lz), FILE_LEN - 77), 0);
	lazy__free(lz);
	close(fd);
	unlink(path);
}

enum { THREADS = 4, ASKS = 2000 };

struct asker {
	struct lazy *lz;
	unsigned int seed;
	int bad;
};

static void *ask(void *arg)
{
	struct asker *a = arg;
	const unsigned char *d = lazy__data(a->lz);
	int i;

	for (i = 0; i < ASKS; i++) {
		size_t at = (size_t)rand_r(&a->seed) % (FILE_LEN - 64);
		size_t len = 1 + (size_t)rand_r(&a->seed) % 64;

		if (lazy__need(a->lz, d + at, len) || memcmp(d + at, bytes + at, len))
			a->bad++;
	}
	return NULL;
}

static void test_lazy_threads(void)
{
	struct asker a[THREADS];
	pthread_t t[THREADS];
	int fd = make_file(), i;
	struct lazy *lz;

	CHECK_EQ(lazy__open(fd, 0, FILE_LEN, &lz), 0);
	REQUIRE(lz);
	for (i = 0; i < THREADS; i++) {
		a[i].lz = lz;
		a[i].seed = (unsigned int)i + 1;
		a[i].bad = 0;
		CHECK_EQ(pthread_create(&t[i], NULL, ask, &a[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(a[i].bad, 0);
	}
	lazy__free(lz);
	close(fd);
	unlink(path);
}

int main(void)
{
	RUN(test_lazy_ranges);
	RUN(test_lazy_unterminated);
	RUN(test_lazy_cut);
	RUN(test_lazy_digest);
	RUN(test_lazy_threads);
	return test_done();
}
