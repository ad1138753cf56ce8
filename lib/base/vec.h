/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one growable-array helper: grow *data so that it holds at least
 * len + add elements of elem_size bytes, doubling capacity, with every
 * multiplication checked for overflow.  Returns 0 or -ENOMEM/-EOVERFLOW.
 */
#ifndef D2B_VEC_H
#define D2B_VEC_H

#include <stddef.h>

enum {
	VEC_MIN_CAP = 16,	/* elements of a first allocation */
};

int vec__reserve(void **data, size_t *cap, size_t len, size_t add, size_t elem_size);

/* Whether len + add elements fit in cap already (no overflow either) */
static inline int vec__fits(size_t cap, size_t len, size_t add)
{
	return len <= cap && add <= cap - len;
}

/* VEC_RESERVE(ptr, cap, len, add) for a typed pointer; no call when it fits.
 * A macro: its arguments are evaluated more than once (no side effects). */
#define VEC_RESERVE(ptr, cap, len, add) \
	(vec__fits((cap), (len), (add)) ? 0 : \
	 vec__reserve((void **)&(ptr), &(cap), (len), (add), sizeof(*(ptr))))

#endif
