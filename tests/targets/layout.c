// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What depends on the target's data model: pointer and long sizes, the
 * alignment of long long, double and long double, char signedness, bit
 * fields in either byte order, and variables of those types side by side
 * in .data/.bss (an int right after an int * is where 8-byte pointers on a
 * 32-bit target went wrong).  No headers: the cross targets have none.
 * Expectations: layout.expect (grammar: tests/tools/btf_check.c).
 */
typedef __SIZE_TYPE__ size_t;
typedef __INTPTR_TYPE__ intptr_t;

struct node {
	struct node *next;
	char tag;
	long count;
	void (*fn)(struct node *, int);
	int vals[3];
	const char *name;
};

struct align {
	char c;
	long long ll;	/* 4-aligned on i386 only */
	char d;
	double dbl;	/* likewise */
	short s;
};

struct bits {
	unsigned int a:3;
	unsigned int b:9;
	signed int c:5;
	unsigned long long wide:40;
	unsigned char tail;
};

union word {
	long l;
	void *p;
	char c[3];
};

enum sign { NEG = -1, POS = 1 };

struct holder {
	char c;
	union word w;
	size_t n;
	intptr_t ip;
	void *ptrs[2];
	long double ld;	/* 12, 8 or 16 bytes */
	_Bool flag;
	enum sign s;
};

int *p;
int after = 5;
int *q = &after;
long l;
size_t sz = 1;
char ch = 'x';
struct node head;
struct align al;
struct bits bi;
union word uw;
struct holder h;
void *ptrs[4];
long double ld;
static const int table[4] = { 1, 2, 3, 4 };
static int counter;

int fn(struct node *n, size_t k)
{
	counter++;
	return n->vals[k] + table[k] + counter;
}
