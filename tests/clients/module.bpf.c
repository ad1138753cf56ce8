// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF programs on the test module's function (mod/d2b_clients.c),
 * compiled against bpftool's C dump of the module's split BTF over
 * vmlinux's: fentry sees the arguments and reads the request through the
 * module's own type; fexit sees the result.  The loader knows both
 * (loader.c), from what it wrote to the module's parameters.
 */
/* the dump of a split BTF over its distilled base holds only the types
 * the module uses: the UAPI integer types libbpf's headers want may be
 * missing (C11 allows a typedef to be repeated) */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "clients.h"

char LICENSE[] SEC("license") = "GPL";

struct d2b_module res;

SEC("fentry/d2b_clients_poke")
int BPF_PROG(poke_entry, struct d2b_clients_req *req, int value, unsigned long long seq)
{
	if (seq != res.seq)
		return 0;
	res.en_hits++;
	res.en_value = value;
	res.en_seq = seq;
	res.req_flags = req->flags;
	res.req_tag = req->tag;
	res.req_value = req->value;
	res.req_seq = BPF_CORE_READ(req, seq);
	return 0;
}

SEC("fexit/d2b_clients_poke")
int BPF_PROG(poke_exit, struct d2b_clients_req *req, int value, unsigned long long seq, long ret)
{
	if (seq != res.seq)
		return 0;
	res.ex_hits++;
	res.ex_ret = ret;
	return 0;
}
