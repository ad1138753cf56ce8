// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The "vmlinux" of tests/pahole/run.sh: an executable whose BTF is the base
 * that kmodule.c is encoded over (split BTF, distilled base). */
#include "kshared.h"

struct kobj root_kobj = { .refcount = 1, .name = "root" };
__attribute__((section(".data..percpu"))) struct kstats cpu_stats;

__attribute__((noinline)) int kobj_get(struct kobj *k)
{
	return ++k->refcount;
}

__attribute__((noinline)) ksize_t kobj_size(struct kobj *k, enum kstate s, union kval v)
{
	return sizeof(*k) + s + (ksize_t)v.f + (ksize_t)k->ops.open(k);
}

static int root_open(struct kobj *k)
{
	return k->refcount;
}

int main(int argc, char **argv)
{
	union kval v = { .i = argc };

	(void)argv;
	root_kobj.ops.open = root_open;
	cpu_stats.hits[0] = (unsigned long)argc;
	return kobj_get(&root_kobj) + (int)kobj_size(&root_kobj, KSTATE_LIVE, v) > 1000;
}
