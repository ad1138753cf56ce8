/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inline sites of known arguments (tests/inline/run.sh): each use_*()
 * function, never inlined itself, inlines one helper at its entry, with
 * its own parameters (in the registers of the calling convention),
 * constants or the address of a variable.
 */
struct pair {
	long lo, hi;
};

#define INLINE static inline __attribute__((always_inline))
#define OUTLINE __attribute__((noinline, used))

extern long sink;

INLINE long lit_sum(int x, long y)
{
	return (x * 3L + y) ^ sink;
}

INLINE long reg_xor(long v, long w)
{
	return v ^ w;
}

INLINE long deref(const long *p)
{
	return *p + 1;
}

INLINE long peek(const long *p)
{
	return *p * 2;
}

INLINE long pair_mul(struct pair p)
{
	return p.lo * p.hi;
}

INLINE long unused_arg(long used, long unused)
{
	(void)unused;
	return used + 1;
}

OUTLINE long use_lit(void)
{
	return lit_sum(7, -5);
}

OUTLINE long use_regs(long a, long b)
{
	return reg_xor(a, b);
}

OUTLINE long use_ptr(const long *q)
{
	return deref(q);
}

OUTLINE long use_pair(struct pair p)
{
	return pair_mul(p);
}

OUTLINE long use_unused(long a, long b)
{
	return unused_arg(a, b);
}

/* the address of a variable */
OUTLINE long use_addr(void)
{
	return peek(&sink);
}

/* reg_xor twice more (dedup of its LOC_PARAMs, LOC_PROTOs and FUNC) */
OUTLINE long use_regs2(long a, long b)
{
	return reg_xor(a, b) + reg_xor(b, a);
}

long sink;

int main(void)
{
	struct pair p = { 3, 4 };
	long v = 5;

	sink = use_lit() + use_regs(1, 2) + use_ptr(&v) + use_pair(p) + use_unused(1, 2) +
	       use_regs2(3, 4) + use_addr();
	return 0;
}
