// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LLVM's GlobalMerge (on by default for RISC-V since LLVM 20) makes a and b
 * one symbol: b's DW_AT_location is DW_OP_addrx 0, DW_OP_plus_uconst 16.
 * tests/targets/merged-riscv64.o is this file built in Debian sid by
 *	clang-22 --target=riscv64-linux-gnu -O2 -g -fdebug-compilation-dir=. -c merged.c
 */
static int a[4], b[4];

int f(int i)
{
	return a[i] + b[i];
}

void g(int i, int x)
{
	a[i] = x;
	b[i] = x + 1;
}
