// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The module of the BPF client tests (tests/clients): a function with
 * known arguments that BPF programs attach to through the module's split
 * BTF.  Writing "SEQ VALUE" to /sys/module/d2b_clients/parameters/poke
 * calls d2b_clients_poke() with a request built from them; its return
 * value can then be read from .../parameters/last, so the loader knows
 * the arguments and the result without BTF.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>

struct d2b_clients_req {
	unsigned char flags;
	unsigned long long seq;
	unsigned short tag;
	int value;
};

static long last;
module_param(last, long, 0444);

static noinline long d2b_clients_poke(struct d2b_clients_req *req, int value, unsigned long long seq)
{
	barrier();
	return (long)req->tag * 1000 + value + (long)(seq & 0xffff);
}

/* called through a pointer the compiler cannot see through: no clone
 * (.isra, .constprop) takes the calls away from the function itself */
static long (*volatile d2b_clients_poke_fn)(struct d2b_clients_req *, int,
					    unsigned long long) = d2b_clients_poke;

static int d2b_clients_poke_set(const char *val, const struct kernel_param *kp)
{
	struct d2b_clients_req req = { .flags = 1, .tag = 0xd2b };

	if (sscanf(val, "%llu %d", &req.seq, &req.value) != 2)
		return -EINVAL;
	last = d2b_clients_poke_fn(&req, req.value, req.seq);
	return 0;
}

static const struct kernel_param_ops d2b_clients_poke_ops = {
	.set = d2b_clients_poke_set,
};
module_param_cb(poke, &d2b_clients_poke_ops, NULL, 0200);

MODULE_DESCRIPTION("dwarf2btf test module: a function for BPF programs to attach to");
MODULE_LICENSE("GPL");
