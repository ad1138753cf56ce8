/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Type tags on the type under a typedef ("typedef struct s __tag(a) s_t"),
 * which clang 23 writes (llvm-project #203089: btf_type_tag children on
 * the DW_TAG_typedef; clang 22 ignores the attribute there).  GCC 16
 * writes the int's as the typedef's own tags and ignores the struct's
 * (a struct's attributes after its definition: a warning).  pahole 1.32
 * drops them; dwarf2btf
 * keeps them above the typedef, TYPE_TAG a -> TYPEDEF s_t -> STRUCT s
 * (typedef_tags.known lists what pahole drops).
 */
#define __tag(x) __attribute__((btf_type_tag(#x)))
#define __dtag(x) __attribute__((btf_decl_tag(#x)))

struct node {
	int key;
	struct node *next;
};

typedef struct node __tag(owned) node_t;		/* one tag */
typedef struct node __tag(a) __tag(b) node2_t;		/* two, in source order */
typedef int __tag(cnt) __dtag(counter_decl) counter_t;	/* and a decl tag */
typedef struct node __tag(rcu) *node_ptr_t;		/* on the pointer: the pointee's */
typedef node_t plain_t;					/* a typedef of a tagged typedef */

struct holder {
	node_t head;
	node_t *cursor;
	const node_t *ro;
	node2_t pair;
	counter_t hits;
	node_ptr_t link;
	plain_t copy;
};

struct holder g_holder;
node_t g_node;

__attribute__((noinline)) int walk(node_t *n, counter_t limit)
{
	int i = 0;

	for (; n && i < limit; n = n->next)
		i += n->key;
	return i;
}

counter_t count(struct holder *h)
{
	return walk(h->cursor, h->hits) + walk((node_t *)h->link, 1);
}
