/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types of today's C: GCC 16 compiles C23 (gnu23) by default, clang 22
 * C17; -std=gnu23 here for both.  Bitfields, bool and nullptr_t as
 * keywords, _BitInt, enums with a fixed underlying type, typeof,
 * constexpr, and DWARF 5.  (_Atomic is in atomic.c: pahole 1.32 refuses
 * DW_TAG_atomic_type.)
 */
#include <stddef.h>

enum small : unsigned char { S_ZERO, S_ONE, S_MAX = 255 };
enum big : long long { B_NEG = -1, B_BIG = 1LL << 40 };

struct bits {
	unsigned int a : 3;
	signed int b : 5;
	bool flag : 1;
	unsigned long long wide : 40;
	enum small kind : 8;
	unsigned int : 0;
	unsigned int after_gap;
};

struct c23 {
	bool b;
	nullptr_t np;
	_BitInt(7) i7;
	unsigned _BitInt(37) u37;
	typeof(int[4]) arr;
	enum small s;
	enum big g;
	char flex[];
};

constexpr int answer = 42;
struct bits g_bits;
struct c23 *g_c23;
typeof_unqual(const int) g_unqual;

int sum(struct bits *b, struct c23 *c)
{
	return b->a + b->b + c->b + answer + (c->np == nullptr) + (int)c->i7;
}
