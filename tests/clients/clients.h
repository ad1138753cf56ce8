/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF programs of tests/clients saw, shared by the programs
 * (compiled against a vmlinux.h that bpftool dumped from the BTF under
 * test) and the loader (compiled against the system's UAPI headers).
 * Each object has one global of its struct, alone in its .bss: the loader
 * writes the inputs into it after loading, attaches, drives the work and
 * reads it back.
 */
#ifndef D2B_CLIENTS_H
#define D2B_CLIENTS_H

#define D2B_COMM_LEN 16

/* clients.bpf.c: the kernel's own functions, types and variables */
struct d2b_vmlinux {
	/* in: the loader's process and the read() it makes */
	__u32 tgid;
	__u32 read_count;
	/* fentry/vfs_read: its arguments and what CO-RE reads through them */
	__u32 rd_hits;
	__u32 core_pid, core_tgid, comm_size;
	__u64 rd_buf, rd_count, rd_pos, rd_isize;
	__u64 helper_pid_tgid;
	char core_comm[D2B_COMM_LEN], helper_comm[D2B_COMM_LEN];
	__u32 pt_regs_size, pid_exists, fake_exists, map_array, fake_enum_exists;
	/* fexit/vfs_read */
	__u32 rx_hits;
	__s64 rx_ret;
	__u64 rx_count;
	/* fentry/do_filp_open (6.x) or do_file_open (7.x) */
	__u32 op_hits;
	__s32 op_dfd;
	__u32 op_flags;
	char op_name[32];
	/* tp_btf/sched_switch, the loader's task going to sleep */
	__u32 sw_hits, sw_preempt, sw_state, sw_prev_current, sw_prev_pid, sw_helper_pid, sw_next_other;
	/* kfunc: bpf_task_from_pid() of the loader's pid */
	__u32 kf_hits, kf_same, kf_tgid;
	/* __ksym runqueues through bpf_this_cpu_ptr / bpf_per_cpu_ptr */
	__u32 pc_hits, pc_cpu, pc_helper_cpu, pc_curr_current, pc_cpu0;
	/* iter/task */
	__u32 it_tasks, it_self;
	char it_comm[D2B_COMM_LEN];
};

/* module.bpf.c: the test module's function and type (split BTF) */
struct d2b_module {
	__u64 seq;			/* in: the request the loader pokes */
	__u32 en_hits;
	__s32 en_value;
	__u64 en_seq;
	__u32 req_flags, req_tag;
	__s32 req_value;
	__u64 req_seq;
	__u32 ex_hits;
	__s64 ex_ret;
};

#endif
