// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Golden input: one of every kind clang's BPF backend emits. */
#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __ttag(x) __attribute__((btf_type_tag(x)))

struct bf {
	int a : 3;
	unsigned int b : 5;
	long c;
	unsigned char d : 1;
} __tag("s_tag");

union u {
	int x;
	float f;
	double d;
	struct { short lo, hi; } half;
};

struct fw;
union fu;
typedef struct fw fw_t;
typedef union fu fu_t;
typedef int (*cb_t)(void *ctx, unsigned long flags);

struct with_flex {
	unsigned int n;
	const volatile char *restrict name __tag("m_tag");
	cb_t cb;
	struct bf arr[2][3];
	int tail[];
};

int glob __tag("v_tag") = 3;
static volatile int counter;
extern int ext_var;
int __ttag("user") *user_ptr;
int __ttag("a") __ttag("b") **double_tagged;
const char *const cstr = "x";
_Bool flag;
__int128 wide;
unsigned __int128 uwide;
struct with_flex *wf;
union u uu;
fw_t *fwp;
fu_t *fup;

__attribute__((noinline)) int f(int a __tag("p_tag"), struct bf *b, fw_t *c, fu_t *d)
{
	return a + b->a + counter + (c != 0) + (d != 0);
}

static __attribute__((noinline)) long sf(struct with_flex *w)
{
	return w->n + w->cb(w, 1);
}

int g(void)
{
	return f(1, 0, 0, 0) + ext_var + glob + *user_ptr + flag + (int)wide + (int)uwide +
	       (int)sf(wf) + uu.x + **double_tagged + cstr[0];
}
