// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * consistent_func (tests/pahole/run.sh): compiled twice, once plain and
 * once with -DSECOND, and linked with a third unit (-DMAIN).  Functions of
 * one name defined in both units:
 *   same_static  static, int (int, int) in both: two addresses
 *   diff_static  static, int (int) here, long (long, long) there
 *   same_weak    weak here, strong there, int (int): one address
 *   diff_weak    weak here, strong there, int (int) vs long (long)
 * noipa keeps gcc from cloning them (.constprop would add addresses).
 */
#define NOCLONE __attribute__((noipa))

#if defined(MAIN)
int entry_first(int);
int entry_second(int);

int main(int argc, char **argv)
{
	(void)argv;
	return entry_first(argc) + entry_second(argc) > 1000;
}

/* sorts after every fixture name in the symbol table: pahole 1.31 does not
 * look for several addresses on the last name (a bug of its own) */
int zz_after_all(int v)
{
	return v;
}
#else

#ifdef SECOND
#define ENTRY entry_second
#define WEAK
#define K 3
#else
#define ENTRY entry_first
#define WEAK __attribute__((weak))
#define K 5
#endif

static volatile int sink;

static NOCLONE int same_static(int a, int b)
{
	sink = a * K + b;
	return sink;
}

#ifdef SECOND
static NOCLONE long diff_static(long a, long b)
{
	sink = (int)(a - b);
	return sink;
}

WEAK NOCLONE long diff_weak(long a)
{
	return a * K;
}
#define CALL_DIFF(v) ((int)diff_static(v, 9) + (int)diff_weak(v))
#else
static NOCLONE int diff_static(int a)
{
	sink = a * K;
	return sink;
}

WEAK NOCLONE int diff_weak(int a)
{
	return a * K;
}
#define CALL_DIFF(v) (diff_static(v) + diff_weak(v))
#endif

WEAK NOCLONE int same_weak(int a)
{
	return a + K;
}

int ENTRY(int v)
{
	return same_static(v, v) + CALL_DIFF(v) + same_weak(v);
}
#endif
