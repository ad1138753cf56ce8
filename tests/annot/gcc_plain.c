/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* No BTF annotations at all: --no-type-tags and --no-decl-tags must not
 * change a single byte of the output (run.sh, annot/gcc-plain). */
struct node {
	struct node *next;
	const char *name;
	int vals[4];
	unsigned int flags : 3;
};

union u {
	long l;
	void *p;
};

typedef struct node node_t;
typedef int (*cb_t)(node_t *, union u);

node_t plain_var;
volatile union u plain_u;
cb_t plain_cb;
const char *const plain_names[2] = { "a", "b" };

__attribute__((noinline)) int plain_fn(node_t *n, union u x)
{
	return n->vals[0] + (int)x.l;
}

/* declared, then defined: the defining DIE has only DW_AT_specification
 * and DW_AT_location (its name and type are the declaration's) */
extern int plain_spec;
int plain_spec = 1;
