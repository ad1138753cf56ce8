// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Golden input: enums of every size and sign, ENUM64 on clang >= 15. */
enum e_neg { A = -1, B = 2 } v_neg;
enum e_u32 { C = 1, D = 0xffffffffu } v_u32;
enum e_big { E = 0x1ffffffffULL, F = 3 } v_big;
enum e_sneg { G = -0x1ffffffffLL, H = 0x7fffffffffffffffLL } v_sneg;
enum e_umax { I = 0xffffffffffffffffULL } v_umax;
enum { J = -2147483647 - 1 } v_anon;
enum e_char { K = 'k' } __attribute__((packed)) v_packed;
enum e_empty_like { L } v_one;
float fl;
double dd;
long double ld;
struct { int a; } anon_s;
union { int a; char b; } anon_u;
struct big { char x[100]; int y : 4; int z : 28; } __attribute__((packed)) bigv;
