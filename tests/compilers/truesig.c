// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * true_signature: functions whose code takes other parameters than their
 * declarations say.  clang (15 and later) marks them DW_CC_nocall and
 * pahole 1.32 rebuilds their prototypes from the parameters' locations
 * (what clang 22 gives is said at each); GCC makes clones (.isra,
 * .constprop) or, as gcc-16 does here, propagates into them.  Each is
 * called from entry() with values the compiler cannot see.
 */
struct pair { long f1; long f2; };
union big { long a; char buf[24]; };
struct trio { long x; long y; long z; };

struct pair p1, p2;
union big g;
struct trio t3;
int vi, vj, vk, vl, vm, vn, vo, vp, vq;
long sink;

/* a arrives as a.f1 alone, in one register: (a__f1, b, i) */
__attribute__((noinline)) static long agg_cut(struct pair a, struct pair b, int i)
{
	return a.f1 + b.f1 + b.f2 + i;
}

/* the same, and j, unused, dropped: (a__f1, b, i) (pahole's
 * clang_parm_aggregate_2.sh) */
__attribute__((noinline)) static long agg_keep(struct pair a, struct pair b, int i, int j)
{
	return a.f1 + b.f1 + b.f2 + i;
}

/* the second word alone: (a__f2, i) */
__attribute__((noinline)) static long agg_second(struct pair a, int i)
{
	return a.f2 + i;
}

/* an aggregate passed in memory stays, dead goes: (u, x) */
__attribute__((noinline)) static long in_memory(union big u, int dead, int x)
{
	return u.a + x;
}

/* three words, in memory: not changed, no DW_CC_nocall */
__attribute__((noinline)) static long trio_mem(int a, struct trio t, int b)
{
	return a + t.y + b;
}

/* b unused, c in b's register: (a, c) */
__attribute__((noinline)) static int drop_mid(int a, int b, int c)
{
	return a * c - a - c;
}

/* i, the ninth, comes to a register: (a, i) */
__attribute__((noinline)) static int many(int a, int b, int c, int d, int e, int f, int g2,
					   int h, int i)
{
	return a * i - a - i;
}

/* external: its ABI stays, i on the stack */
__attribute__((noinline)) int many_ext(int a, int b, int c, int d, int e, int f, int g2,
				       int h, int i)
{
	return a * i - a - i;
}

/* k is 3 at every call, a DW_AT_const_value: (v) */
__attribute__((noinline)) static long konst(long v, int k)
{
	return v * k + sink;
}

/* the pointer unused: (v, w) */
__attribute__((noinline)) static long ptr_dead(const char *unused, long v, long w)
{
	return v - w;
}

/* nothing changed */
__attribute__((noinline)) static long plain(long v, long w)
{
	return v ^ w;
}

/* the first unused, the struct in both its words: (a, w) */
__attribute__((noinline)) static long first_dead(long unused, struct pair a, long w)
{
	return a.f1 + a.f2 + w;
}

/* inlined into entry() once, and out of line (an instance of the
 * inlined DIE, whose DW_AT_calling_convention says DW_CC_nocall) where
 * OUT_OF_LINE says so: unused dropped, a whole (its out-of-line
 * parameter DIE names no member): (a, w) */
#ifdef __clang__
#define OUT_OF_LINE [[clang::noinline]]
#else
#define OUT_OF_LINE
#endif
static long half_inlined(long unused, struct pair a, int k, long w)
{
	long r = a.f1 * w + k;

	for (int i = 0; i < w; i++)
		r += sink * i;
	return r;
}

/* inlined twice and out of line once: k is 7 at every call, u passes in
 * memory, and the out-of-line code takes (a, b, c, z), z in the fourth
 * register; pahole 1.32 also judges the inlined DIE with those
 * registers, where z's slot comes after k's: unexpected, left out */
static long origin_shift(long a, char b, long c, char k, union big u, char z)
{
	return a + b + c + k + z;
}

long entry(void)
{
	long r = half_inlined(sink, p1, 3, vi);

	r += agg_cut(p1, p2, vi);
	r += agg_keep(p1, p2, vi, vi + 1);
	r += agg_second(p1, vj);
	r += in_memory(g, vk, vl);
	r += trio_mem(vm, t3, vn);
	r += drop_mid(vi, vj, vk);
	r += many(vi, vj, vk, vl, vm, vn, vo, vp, vq);
	r += many_ext(vi, vj, vk, vl, vm, vn, vo, vp, vq);
	r += konst(sink, 3) + konst(sink + 1, 3);
	r += ptr_dead("x", sink, vo);
	r += plain(sink, vp);
	r += first_dead(sink, p2, vq);
	OUT_OF_LINE r += half_inlined(sink + 1, p2, 3, vj);
	r += origin_shift(sink, (char)vi, sink + 2, 7, g, (char)vj);
	r += origin_shift(sink + 3, (char)vk, sink, 7, g, (char)vl);
	OUT_OF_LINE r += origin_shift(sink + 5, (char)vm, sink + 1, 7, g, (char)vn);
	return r;
}
