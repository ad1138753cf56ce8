// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One kprobe program for every inline site the loader attaches it to
 * (inline_sites.c): the site's spec, found by the probe's address, says
 * where each parameter of the function inlined there is (our LOC_PARAMs,
 * read by the loader); the program reads them there and records them.
 * No BTF is read: pt_regs is read by offset.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include "inline_sites.h"

char LICENSE[] SEC("license") = "GPL";

#define PT_REGS_IP_OFF 128	/* x86-64's struct pt_regs: ip */

struct d2b_inline res;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, D2B_SITES);
	__type(key, __u64);
	__type(value, struct d2b_site_spec);
} specs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, D2B_SITES);
	__type(key, __u32);
	__type(value, struct d2b_site_seen);
} seen SEC(".maps");

/* size bytes at p (the low ones of the value: x86-64 is little-endian) */
static __always_inline __u64 read_mem(__u64 p, __u32 size)
{
	__u64 v = 0;

	switch (size) {
	case 1:
		bpf_probe_read_kernel(&v, 1, (void *)p);
		break;
	case 2:
		bpf_probe_read_kernel(&v, 2, (void *)p);
		break;
	case 4:
		bpf_probe_read_kernel(&v, 4, (void *)p);
		break;
	case 8:
		bpf_probe_read_kernel(&v, 8, (void *)p);
		break;
	}
	return v;
}

static __always_inline __u64 read_arg(__u64 regs, const struct d2b_site_arg *a)
{
	__u64 reg;

	if (a->kind == D2B_ARG_CONST)
		return a->off;
	/* (pt_regs by address: the context's offset is not a constant) */
	reg = read_mem(regs + (a->regs_off & 0xff), 8);
	if (a->kind == D2B_ARG_REG)
		return reg;
	if (a->kind == D2B_ARG_REG_OFF)
		return reg + a->off;
	if (a->kind == D2B_ARG_MEM)
		return read_mem(reg + a->off, a->size);
	return 0;
}

SEC("kprobe")
int site(void *ctx)
{
	struct d2b_site_spec *spec;
	struct d2b_site_seen *out;
	__u64 ip;
	int i;

	if ((bpf_get_current_pid_tgid() >> 32) != res.tgid)
		return 0;
	/* the probe's address: bpf_get_func_ip() says it only at a function's
	 * entry, so from pt_regs->ip, which an int3 kprobe (and an optimized
	 * one) leaves one byte past it, an ftrace-based one the call's 5 */
	ip = read_mem((__u64)ctx + PT_REGS_IP_OFF, 8);
	ip -= 1;
	spec = bpf_map_lookup_elem(&specs, &ip);
	if (!spec) {
		ip -= 4;
		spec = bpf_map_lookup_elem(&specs, &ip);
	}
	if (!spec)
		return 0;
	out = bpf_map_lookup_elem(&seen, &spec->slot);
	if (!out)
		return 0;
	for (i = 0; i < D2B_SITE_PARAMS; i++) {
		if (i >= spec->nr)
			break;
		out->val[i] = read_arg((__u64)ctx, &spec->arg[i]);
	}
	__sync_fetch_and_add(&out->hits, 1);
	return 0;
}
