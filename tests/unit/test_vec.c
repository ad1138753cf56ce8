// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests for vec, the growable-array helper: growth and overflow checks. */
#include <errno.h>
#include <stdint.h>

#include "base/vec.h"
#include "test.h"

/* The first reservation allocates VEC_MIN_CAP, then capacity doubles;
 * what was stored survives every move. */
static void test_growth(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, len, prev_cap = 0, grows = 0;

	CHECK_EQ(VEC_RESERVE(v, cap, 0, 1), 0);
	REQUIRE(v != NULL);
	CHECK_EQ(cap, VEC_MIN_CAP);
	for (len = 0; len < 10000; len++) {
		REQUIRE(VEC_RESERVE(v, cap, len, 1) == 0);
		CHECK(cap >= len + 1);
		if (cap != prev_cap) {
			CHECK(prev_cap == 0 || cap == prev_cap * 2);
			prev_cap = cap;
			grows++;
		}
		v[len] = (uint32_t)len * 2654435761u;
	}
	for (len = 0; len < 10000; len++)
		if (v[len] != (uint32_t)len * 2654435761u)
			break;
	CHECK_EQ(len, 10000);
	CHECK_EQ(cap, 16384);
	CHECK_EQ(grows, 11);		/* 16, 32, ..., 16384 */
	free(v);
}

/* Enough room already: nothing moves */
static void test_no_growth_needed(void)
{
	char *v = NULL, *before;
	size_t cap = 0;

	REQUIRE(VEC_RESERVE(v, cap, 0, 100) == 0);
	CHECK_EQ(cap, 128);		/* a large first request: doubled until it fits */
	before = v;
	CHECK_EQ(VEC_RESERVE(v, cap, 100, 28), 0);
	CHECK(v == before);
	CHECK_EQ(cap, 128);
	CHECK_EQ(VEC_RESERVE(v, cap, 128, 0), 0);
	CHECK_EQ(cap, 128);
	CHECK_EQ(VEC_RESERVE(v, cap, 128, 1), 0);
	CHECK_EQ(cap, 256);
	free(v);
}

/* Every overflow is -EOVERFLOW and leaves the array and its capacity as
 * they were; nothing is allocated for a size that cannot be represented. */
static void test_overflow(void)
{
	uint64_t *v = NULL;
	void *raw = NULL;
	size_t cap = 0;

	/* len + add wraps */
	CHECK_EQ(VEC_RESERVE(v, cap, SIZE_MAX, 1), -EOVERFLOW);
	CHECK_EQ(VEC_RESERVE(v, cap, 1, SIZE_MAX), -EOVERFLOW);
	CHECK(v == NULL && cap == 0);
	/* doubling the capacity would wrap */
	CHECK_EQ(vec__reserve(&raw, &cap, 0, SIZE_MAX / 2 + 2, 1), -EOVERFLOW);
	CHECK(raw == NULL && cap == 0);
	/* capacity * elem_size wraps: 2^40 elements of 2^30 bytes */
	CHECK_EQ(vec__reserve(&raw, &cap, 0, (size_t)1 << 40, (size_t)1 << 30), -EOVERFLOW);
	CHECK(raw == NULL && cap == 0);
	/* a count that fits only as bytes, not as 8-byte elements */
	CHECK_EQ(VEC_RESERVE(v, cap, 0, SIZE_MAX / 4), -EOVERFLOW);
	CHECK(v == NULL && cap == 0);

	/* a failed reservation keeps what is there */
	REQUIRE(VEC_RESERVE(v, cap, 0, 3) == 0);
	v[0] = 1;
	v[1] = 2;
	v[2] = 3;
	CHECK_EQ(VEC_RESERVE(v, cap, 3, SIZE_MAX - 2), -EOVERFLOW);
	CHECK_EQ(cap, VEC_MIN_CAP);
	CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3);
	free(v);
}

/* Zero-sized elements: capacity is counted, no byte count can overflow */
static void test_zero_size_elements(void)
{
	void *raw = NULL;
	size_t cap = 0;
	int err = vec__reserve(&raw, &cap, 0, 5, 0);

	/* realloc(NULL, 0) may return NULL (then -ENOMEM) or a pointer */
	CHECK(err == 0 || err == -ENOMEM);
	if (!err)
		CHECK_EQ(cap, VEC_MIN_CAP);
	free(raw);
}

int main(void)
{
	RUN(test_growth);
	RUN(test_no_growth_needed);
	RUN(test_overflow);
	RUN(test_zero_size_elements);
	return test_done();
}
