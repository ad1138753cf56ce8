/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * BTF annotations where GCC 16 and clang 22 mean the same thing: type tags
 * on pointers (the pointee's), decl tags on functions, parameters, members
 * and variables.  The kernel's spellings, and pahole's btf_type_tag_order.sh.
 */
#define __tag(x) __attribute__((btf_type_tag(#x)))
#define __dtag(x) __attribute__((btf_decl_tag(#x)))
#define __rcu __tag(rcu)
#define __user __tag(user)
#define __percpu __tag(percpu)

struct sample {
	int value;
};

/* pahole's tests/btf_type_tag_order.sh: PTR -> inner -> outer -> STRUCT */
struct sample __tag(outer) __tag(inner) *global_ptr;

struct task {
	int pid;
	struct task __rcu *parent;		/* PTR -> TYPE_TAG rcu -> STRUCT */
	const char __user *comm;		/* PTR -> TYPE_TAG user -> CONST */
	unsigned long __percpu *counters;
	struct task __tag(a) __tag(b) __tag(c) **kids;
	int flags __dtag(member_tag);
	void (*handler)(struct task __rcu *t);
};

struct task *current_task __dtag(var_tag1) __dtag(var_tag2);

__attribute__((noinline)) long __dtag(func_tag)
copy_from(struct task *t, const char __user *ubuf, int n __dtag(param_tag))
{
	return t->pid + ubuf[n];
}

int use(struct task *t)
{
	return (int)copy_from(t, t->comm, t->flags);
}
