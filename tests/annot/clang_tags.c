/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Real clang output for BTF annotations (clang's form: btf_type_tag
 * children on pointers, btf_decl_tag children on declarations).  run.sh
 * builds it with clang-14 and clang-19, for x86_64 and for bpf, converts
 * the DWARF and compares the result by meaning with the .BTF LLVM's BPF
 * backend writes into the bpf object.
 */
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))
#define __percpu __attribute__((btf_type_tag("percpu")))
#define __tag(x) __attribute__((btf_decl_tag(x)))

struct task {
	int pid __tag("member_pid");
	char __user *name __tag("member_name") __tag("member_name2");
	struct task __rcu *parent;
	const int __user *cuser;
	void __user __percpu *both;
	int __user *__user *pp;
	int __user *arr[3];
} __tag("struct_task");

union val {
	long l;
	int __user *p __tag("union_member");
} __tag("union_val");

typedef int __user *user_int_ptr __tag("typedef_tag");
typedef struct task task_t;

struct task global_task __tag("var_task");
union val global_val;
user_int_ptr global_up;
task_t *global_tp __tag("var_a") __tag("var_b");
int __user *__rcu *global_chain;
void (__user *global_fp)(int);
const volatile int __user *global_cv;

__attribute__((noinline)) __tag("func_tag") __tag("func_tag2")
int __user *fn(int a, char __user *b __tag("param_b"), struct task *t __tag("param_t"))
{
	return (int __user *)(b + a + t->pid);
}

__attribute__((noinline)) long fn2(union val *v, user_int_ptr up __tag("param_up"))
{
	return v->l + (long)up;
}
