// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF programs on the kernel's own functions, tracepoints, types and
 * variables, compiled against vmlinux.h (bpftool's C dump of the BTF under
 * test).  They only record what they see in `res` (clients.h); the loader
 * (loader.c) holds it against what it knows without BTF: the arguments it
 * chose, the results it got, and the BPF helpers' answers recorded beside
 * the BTF-typed reads.  Every program acts only for the loader's process.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "clients.h"

char LICENSE[] SEC("license") = "GPL";

struct d2b_vmlinux res;

/* a member and an enum value no kernel has: CO-RE must say so */
struct task_struct___d2b_fake {
	int d2b_no_such_member;
};
enum bpf_map_type___d2b_fake {
	D2B_NO_SUCH_MAP_TYPE = 12345,
};

extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern const struct rq runqueues __ksym;

static __always_inline bool mine(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == res.tgid;
}

/* the loader's read(fd, buf, read_count) of a file it wrote */
static __always_inline bool my_read(size_t count)
{
	return mine() && count == res.read_count;
}

SEC("fentry/vfs_read")
int BPF_PROG(vfs_read_entry, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct task_struct___d2b_fake *fake = (void *)task;
	loff_t at = -1;

	if (!my_read(count))
		return 0;
	res.rd_hits++;
	res.rd_buf = (unsigned long)buf;
	res.rd_count = count;
	bpf_probe_read_kernel(&at, sizeof(at), pos);
	res.rd_pos = at;
	/* BTF-typed pointers: the verifier checks these loads by the BTF */
	res.rd_isize = file->f_inode->i_size;

	res.helper_pid_tgid = bpf_get_current_pid_tgid();
	res.core_pid = BPF_CORE_READ(task, pid);
	res.core_tgid = BPF_CORE_READ(task, tgid);
	bpf_get_current_comm(res.helper_comm, sizeof(res.helper_comm));
	BPF_CORE_READ_STR_INTO(&res.core_comm, task, comm);
	res.comm_size = bpf_core_field_size(task->comm);
	res.pid_exists = bpf_core_field_exists(task->pid);
	res.fake_exists = bpf_core_field_exists(fake->d2b_no_such_member);
	res.pt_regs_size = bpf_core_type_size(struct pt_regs);
	res.map_array = bpf_core_enum_value(enum bpf_map_type, BPF_MAP_TYPE_ARRAY);
	res.fake_enum_exists = bpf_core_enum_value_exists(enum bpf_map_type___d2b_fake,
							  D2B_NO_SUCH_MAP_TYPE);
	return 0;
}

SEC("fexit/vfs_read")
int BPF_PROG(vfs_read_exit, struct file *file, char *buf, size_t count, loff_t *pos, ssize_t ret)
{
	if (!my_read(count))
		return 0;
	res.rx_hits++;
	res.rx_count = count;
	res.rx_ret = ret;
	return 0;
}

/* the loader's openat(dirfd, name, flags): 6.x calls do_filp_open(),
 * 7.x do_file_open() (the loader loads the one the kernel has) */
static __always_inline int opened(int dfd, struct filename *name, const struct open_flags *op)
{
	if (!mine())
		return 0;
	res.op_hits++;
	res.op_dfd = dfd;
	res.op_flags = op->open_flag;
	bpf_probe_read_kernel_str(res.op_name, sizeof(res.op_name), name->name);
	return 0;
}

SEC("fentry/do_filp_open")
int BPF_PROG(do_filp_open_entry, int dfd, struct filename *name, const struct open_flags *op)
{
	return opened(dfd, name, op);
}

SEC("fentry/do_file_open")
int BPF_PROG(do_file_open_entry, int dfd, struct filename *name, const struct open_flags *op)
{
	return opened(dfd, name, op);
}

/* the loader's nanosleep(): it gives up the CPU of its own accord (the
 * first switch away from it in a sleeping state) */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	if (prev->tgid != res.tgid || !prev_state || res.sw_hits)
		return 0;
	res.sw_hits++;
	res.sw_preempt = preempt;
	res.sw_state = prev_state;
	res.sw_prev_current = prev == bpf_get_current_task_btf();
	res.sw_prev_pid = prev->pid;
	res.sw_helper_pid = (__u32)bpf_get_current_pid_tgid();
	res.sw_next_other = next != prev;
	return 0;
}

/* an acquire/release kfunc pair, on the same read() */
SEC("fentry/vfs_read")
int BPF_PROG(task_kfunc, struct file *file, char *buf, size_t count)
{
	struct task_struct *t;

	if (!my_read(count))
		return 0;
	t = bpf_task_from_pid(res.tgid);
	if (!t)
		return 0;
	res.kf_hits++;
	res.kf_same = t == bpf_get_current_task_btf();
	res.kf_tgid = t->tgid;
	bpf_task_release(t);
	return 0;
}

/* a per-CPU variable of the kernel, typed by its BTF VAR */
SEC("fentry/vfs_read")
int BPF_PROG(percpu_ksym, struct file *file, char *buf, size_t count)
{
	struct rq *rq, *rq0;

	if (!my_read(count))
		return 0;
	rq = bpf_this_cpu_ptr(&runqueues);
	res.pc_hits++;
	res.pc_cpu = rq->cpu;
	res.pc_helper_cpu = bpf_get_smp_processor_id();
	res.pc_curr_current = rq->curr == bpf_get_current_task_btf();
	rq0 = bpf_per_cpu_ptr(&runqueues, 0);
	res.pc_cpu0 = rq0 ? rq0->cpu : 0xffffffff;
	return 0;
}

SEC("iter/task")
int task_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;

	if (!task)
		return 0;
	res.it_tasks++;
	if (task->pid == res.tgid) {
		res.it_self++;
		__builtin_memcpy(res.it_comm, task->comm, sizeof(res.it_comm));
	}
	BPF_SEQ_PRINTF(ctx->meta->seq, "%d\n", task->pid);
	return 0;
}
