/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Asking the running kernel to load a BTF blob (BPF_BTF_LOAD), for the
 * tests that hold our output or our verifier against the kernel: the
 * command line tool tests/tools/btf_load.c and tests/unit/test_verify_kernel.c.
 * The attribute struct is spelled out so that neither depends on the
 * installed kernel headers.
 */
#ifndef D2B_BPF_BTF_LOAD_H
#define D2B_BPF_BTF_LOAD_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { BPF_CMD_BTF_LOAD = 18 };

/* The BPF_BTF_LOAD part of union bpf_attr (include/uapi/linux/bpf.h) */
struct btf_load_attr {
	uint64_t btf;
	uint64_t btf_log_buf;
	uint32_t btf_size;
	uint32_t btf_log_size;
	uint32_t btf_log_level;
	uint32_t btf_log_true_size;
};

/* A BTF object's fd, or -1 with errno set; log may be NULL (then log_size
 * and level 0) */
static inline int bpf_btf_load(const void *data, size_t size, char *log, uint32_t log_size,
			       uint32_t level)
{
	struct btf_load_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uint64_t)(uintptr_t)data;
	attr.btf_size = (uint32_t)size;
	attr.btf_log_buf = (uint64_t)(uintptr_t)log;
	attr.btf_log_size = log ? log_size : 0;
	attr.btf_log_level = log ? level : 0;
	return (int)syscall(__NR_bpf, BPF_CMD_BTF_LOAD, &attr, sizeof(attr));
}

#endif
