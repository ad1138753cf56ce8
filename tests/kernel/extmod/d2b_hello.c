// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A tiny out-of-tree module for the kernel tests (tests/kernel/run.sh).
 *
 * Its split BTF has a struct of its own that embeds a kernel type
 * (struct list_head, matched by name and size when the kernel relocates
 * the module's BTF against its own vmlinux) and points to others (struct
 * module, struct task_struct).  Built against one kernel with
 * --btf_features=distilled_base, it must load into another kernel whose
 * vmlinux BTF numbers those types differently, and the host then checks
 * that the members point at the right types.
 */
#include <linux/module.h>
#include <linux/list.h>
#include <linux/sched.h>

struct d2b_hello_item {
	struct list_head node;
	struct module *owner;
	struct task_struct *task;
	unsigned int magic;
};

static struct d2b_hello_item d2b_hello_item;
static LIST_HEAD(d2b_hello_list);

static int __init d2b_hello_init(void)
{
	d2b_hello_item.owner = THIS_MODULE;
	d2b_hello_item.task = current;
	d2b_hello_item.magic = 0xd2b;
	list_add(&d2b_hello_item.node, &d2b_hello_list);
	pr_info("d2b_hello: loaded, magic %#x\n", d2b_hello_item.magic);
	return 0;
}

static void __exit d2b_hello_exit(void)
{
	list_del(&d2b_hello_item.node);
}

module_init(d2b_hello_init);
module_exit(d2b_hello_exit);
MODULE_DESCRIPTION("dwarf2btf test module: split BTF with a distilled base");
MODULE_LICENSE("GPL");
