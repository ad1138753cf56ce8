// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * clang (since 15) drops drop_arg's unused parameter from its code and
 * marks it DW_CC_nocall: pahole 1.32 leaves it out (tests/pahole/run.sh),
 * 1.31 kept it.
 */
int base_value;
static __attribute__((noinline)) int drop_arg(int v, int unused)
{
	return v + base_value;
}
int entry(int x)
{
	return drop_arg(x, 7) + drop_arg(x + 1, 8);
}
