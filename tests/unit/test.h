/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The unit-test harness.  Protocol shared with every test in tests/ (C or
 * shell): one line per test case, "PASS name", "FAIL name: why" or
 * "SKIP name: why"; tests/run.sh counts them.  A program that exits
 * non-zero without printing FAIL is counted as one failure.
 *
 *	static void test_foo(void) { CHECK(1 + 1 == 2); CHECK_EQ(x, 3); }
 *	int main(void) { RUN(test_foo); return test_done(); }
 */
#ifndef D2B_TEST_H
#define D2B_TEST_H

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int test_failed_now;
static int test_nfail;

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		test_failed_now = 1;						\
	}									\
} while (0)

#define CHECK_EQ(a, b) do {							\
	long long _a = (long long)(a), _b = (long long)(b);			\
	if (_a != _b) {								\
		printf("#   %s:%d: %s == %lld, expected %s == %lld\n",		\
		       __FILE__, __LINE__, #a, _a, #b, _b);			\
		test_failed_now = 1;						\
	}									\
} while (0)

#define CHECK_STR(a, b) do {							\
	const char *_a = (a), *_b = (b);					\
	if (!_a || !_b || strcmp(_a, _b)) {					\
		printf("#   %s:%d: %s == \"%s\", expected \"%s\"\n",		\
		       __FILE__, __LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)"); \
		test_failed_now = 1;						\
	}									\
} while (0)

/* Abort the current test case early (after a failed CHECK on which the rest depends). */
#define REQUIRE(cond) do { CHECK(cond); if (test_failed_now) return; } while (0)

static inline void test_run(void (*fn)(void), const char *name)
{
	test_failed_now = 0;
	fflush(stdout);
	fn();
	if (test_failed_now) {
		printf("FAIL %s: see above\n", name);
		test_nfail++;
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

#define RUN(fn) test_run(fn, #fn)

/*
 * How many of the whole pages in [p, p + len) this process has mapped
 * (/proc/self/pagemap's present bit), or -1 if that cannot be read.
 */
static inline long test_mapped_pages(const void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE), n = 0;
	uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) / (uintptr_t)page;
	uintptr_t hi = ((uintptr_t)p + len) / (uintptr_t)page, i;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (i = lo; i < hi; i++) {
		uint64_t e;

		if (pread(fd, &e, sizeof(e), (off_t)(i * sizeof(e))) != (ssize_t)sizeof(e)) {
			n = -1;
			break;
		}
		n += (long)(e >> 63);
	}
	close(fd);
	return n;
}

/*
 * A temporary file holding the len bytes at bytes, mapped MAP_PRIVATE
 * with prot: path is a mkstemp() template, filled in; *fd is the file.
 * MAP_FAILED if a step fails.  The caller unmaps, closes and unlinks.
 */
static inline void *test_map_file(char *path, const void *bytes, size_t len, int prot, int *fd)
{
	*fd = mkstemp(path);
	if (*fd < 0 || write(*fd, bytes, len) != (ssize_t)len)
		return MAP_FAILED;
	return mmap(NULL, len, prot, MAP_PRIVATE, *fd, 0);
}

static inline int test_done(void)
{
	return test_nfail ? 1 : 0;
}

#endif
