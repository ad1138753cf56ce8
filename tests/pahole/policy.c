// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel policy of dwarf2btf-pahole on one object (tests/pahole/run.sh):
 * which functions and variables get FUNC/VAR, and the features that change
 * how a type is encoded (float, enum64, flattened arrays).
 */
enum big { BIG_SMALL = 1, BIG_LARGE = 0x100000000ULL };	/* ENUM64, or ENUM */

struct point {
	int x, y;
};

int grid[5][6];				/* one ARRAY of 30 ints */
int plain_global = 3;			/* a VAR only with global_var */
double ratio = 1.5;			/* FLOAT, or INT without float */
enum big big_value = BIG_LARGE;
__attribute__((section(".data..percpu"))) int percpu_counter = 1;
__attribute__((section(".data..percpu"))) struct point percpu_point;

extern int declared_only(int);		/* called, never defined: no FUNC */

static inline __attribute__((always_inline)) int always_inlined(int v)
{
	return v * 7 + grid[1][2];	/* no code of its own: no FUNC */
}

static __attribute__((noinline)) int local_helper(int v)	/* FUNC, static */
{
	return v + plain_global;
}

int global_function(struct point *p, double scale)	/* FUNC, static too */
{
	return always_inlined(p->x) + (int)(p->y * scale) + declared_only(p->x) +
	       local_helper(p->y);
}

__attribute__((noinline)) int second_function(enum big b)
{
	return b == BIG_LARGE ? (int)ratio : percpu_counter + big_value;
}
