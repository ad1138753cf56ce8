// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pahole 1.32's function policy on one program (tests/pahole/run.sh), built
 * from this file twice: with -DWEAK_UNIT (first on the link line), and
 * without.
 *
 *   hook	a __weak definition in the first unit, the strong one in the
 *		second: 1.32 describes the strong one (parameter 'value'),
 *		1.31 the first met ('unused')
 *   apply	its function-pointer parameter takes an int in one unit and a
 *		long in the other (an inline-only copy): 1.32 leaves it out
 *		with consistent_func, 1.31 compared only the pointers' arity
 *   sra	GCC's IPA-SRA turns it into sra.constprop.0, which takes
 *		no parameter: both leave it out (its prototypes differ)
 *   scale	GCC's scale.constprop.0 takes v alone (factor is always 3),
 *		but its DWARF lists both: 1.32 leaves it out (the ABI
 *		changed), 1.31 kept it
 *   pick	GCC's pick.isra.0 takes k, then p->b: its DWARF lists k
 *		before p, reordered: 1.32 leaves it out, 1.31 kept it
 */
struct big {
	long a, b, c, d;
};

#ifdef WEAK_UNIT
__attribute__((weak, noinline)) int hook(int unused)
{
	return 0;
}

static inline __attribute__((always_inline)) int apply(void (*cb)(long), int x)
{
	cb(x);
	return x + 1;
}

static void take_long(long v)
{
	(void)v;
}

int weak_unit_entry(int x)
{
	return apply(take_long, x) + hook(x);
}
#else
__attribute__((noinline)) int hook(int value)
{
	return value * 3;
}

__attribute__((noinline)) int apply(void (*cb)(int), int x)
{
	cb(x);
	return x;
}

static __attribute__((noinline)) long sra(struct big *p, int unused)
{
	return p->b;
}

static void take_int(int v)
{
	(void)v;
}

int scale_base;

static __attribute__((noinline)) int scale(int v, int factor)
{
	return v * factor + scale_base;
}

static __attribute__((noinline)) long pick(struct big *p, long k)
{
	return p->b * k;
}

int weak_unit_entry(int x);

int main(int argc, char **argv)
{
	static struct big g = { 1, 2, 3, 4 };

	(void)argv;
	return hook(argc) + apply(take_int, argc) + (int)sra(&g, argc) + weak_unit_entry(argc) +
	       scale(argc, 3) + scale(argc + 1, 3) + (int)pick(&g, argc) +
	       (int)pick((struct big *)argv, argc + 1);
}
#endif
