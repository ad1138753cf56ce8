// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * decl_tag / type_tag (tests/pahole/run.sh, clang only): DECL_TAG 'x' on a
 * struct, one of its members, a function and a per-CPU variable; TYPE_TAG
 * 'user' on what two pointers point to.
 */
#define __tag(s) __attribute__((btf_decl_tag(s)))
#define __user __attribute__((btf_type_tag("user")))

struct __tag("x") tagged {
	int a __tag("x");
	int __user *uptr;
};

__attribute__((section(".data..percpu"))) struct tagged tagged_var __tag("x");

__attribute__((noinline)) __tag("x") int tagged_function(struct tagged *t, int __user *p)
{
	return t->a + (p != 0);
}
