// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One name, three static functions in three units (-DUNIT=1, 2, 3): one
 * with code, two inlined away with other prototypes, as a kernel's
 * static hash() in kernel/bpf beside inline ones in fs/.  pahole 1.32
 * leaves the name out (its prototypes differ), but with true_signature
 * compares only the definitions with code, and keeps it
 * (tests/pahole/run.sh).
 */
#if UNIT == 1
int g1;
__attribute__((noinline)) static int hash(int *p, int v, int s, int i)
{
	return p[v] * s + i + g1;
}
int use1(int *p)
{
	return hash(p, g1, 3, g1 + 1) + hash(p, g1 + 2, 5, g1);
}
#elif UNIT == 2
int g2;
static inline int hash(int major, int minor, int ino)
{
	return major * 31 + minor * 7 + ino;
}
int use2(int x)
{
	return hash(x, g2, x + 1);
}
#else
long g3;
static inline unsigned long hash(void *sb, unsigned long v)
{
	return (unsigned long)sb ^ v;
}
long use3(void *p)
{
	return hash(p, g3);
}
int main(void)
{
	return 0;
}
#endif
