// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The loader of tests/clients, run in the guest (static, on libbpf):
 *
 *	loader CLIENTS.bpf.o [MODULE.bpf.o]
 *
 * Each group of BPF programs is opened, loaded and attached on its own (a
 * program the verifier refuses fails its group only), its inputs written
 * into its .bss first.  The loader then does known work (a read() and an
 * openat() with chosen arguments, a sleep, a task iterator, a write to the
 * test module's parameter) and holds what the programs recorded against
 * what it knows without BTF; then, where run.sh wrote our BTF's inline
 * sites, the kprobes of inline_sites.c.  One line per check on stdout:
 *	D2B-CLIENT NAME ok|fail|skip [detail]
 * and libbpf's messages as "D2B-LIBBPF ..." lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <asm/ptrace.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "clients.h"

#define COMM "d2b-loader"
#define DATA "/tmp/d2b-clients.dat"
#define DATA_NAME "d2b-clients.dat"
#define DATA_SIZE 1234
#define READ_AT 100
#define READ_COUNT 4321
#define POKE_SEQ 0x1234567890ULL
#define POKE_VALUE (-77)
#define POKE_TAG 0xd2b		/* mod/d2b_clients.c */
#define POKE_FLAGS 1
#define INLINE_OBJ "/files/inline.bpf.o"
#define INLINE_BTF "/files/vmlinux.btf"	/* and vmlinux.btf.inline */
#define INLINE_META "/files/inline.meta"

void inline_sites_check(const char *obj_path, const char *btf_path, const char *meta_path,
			const char *data_path);

/* since the last libbpf_reset(): libbpf's first message that says
 * "failed", and the verifier's last word (the line before the end of the
 * program load log) */
static char libbpf_failed[256], verifier_said[256];

static void libbpf_reset(void)
{
	libbpf_failed[0] = verifier_said[0] = '\0';
}

static int on_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static char text[16384];
	char *line, *next, *prev = NULL;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(text, sizeof(text), fmt, ap);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		printf("D2B-LIBBPF %s\n", line);
		if (!libbpf_failed[0] && strstr(line, "failed"))
			snprintf(libbpf_failed, sizeof(libbpf_failed), "%.255s", line);
		if (strstr(line, "-- END PROG LOAD LOG --") && prev)
			snprintf(verifier_said, sizeof(verifier_said), "%.255s", prev);
		prev = line;
	}
	return 0;
}

static int nfail;

static void report(const char *name, const char *verdict, const char *fmt, ...)
{
	va_list ap;

	printf("D2B-CLIENT %s %s", name, verdict);
	if (fmt && *fmt) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
	if (!strcmp(verdict, "fail"))
		nfail++;
}

/* check NAME: ok when COND, else fail with the printf detail */
#define check(name, cond, ...) \
	report(name, (cond) ? "ok" : "fail", __VA_ARGS__)

/* A group: the programs it loads, its work and its checks */
struct group {
	const char *const *progs;	/* NULL-terminated; first found of each "a|b" */
	const char *const *checks;	/* its check names, failed together */
	int (*drive)(struct bpf_object *obj);
	void (*judge)(const void *res);
	void *res;			/* inputs in, results out: .bss */
	size_t res_size;
};

static void fail_all(const struct group *g, const char *why)
{
	const char *const *c;

	for (c = g->checks; *c; c++)
		report(*c, "fail", "%s", why);
}

static void skip_all(const struct group *g, const char *why)
{
	const char *const *c;

	for (c = g->checks; *c; c++)
		report(*c, "skip", "%s", why);
}

static struct btf *vmlinux_btf;

/* the program of ALTS ("a|b|..."): the first whose attach target the
 * kernel's BTF has as a FUNC; NULL when none has (SKIP) */
static struct bpf_program *pick_prog(struct bpf_object *obj, const char *alts)
{
	char buf[128], *save, *tok;
	struct bpf_program *p;
	const char *target;

	snprintf(buf, sizeof(buf), "%s", alts);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		p = bpf_object__find_program_by_name(obj, tok);
		if (!p || !strchr(alts, '|'))
			return p;
		target = strchr(bpf_program__section_name(p), '/');
		if (target && btf__find_by_name_kind(vmlinux_btf, target + 1, BTF_KIND_FUNC) > 0)
			return p;
	}
	return NULL;
}

static void run_group(const char *path, const struct group *g)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_link *links[8] = { 0 };
	struct bpf_map *bss;
	const char *const *pn;
	char why[400];
	int n = 0, key = 0, err;

	libbpf_reset();
	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		snprintf(why, sizeof(why), "cannot open %s: %s", path, libbpf_failed);
		fail_all(g, why);
		return;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, false);
	for (pn = g->progs; *pn; pn++) {
		p = pick_prog(obj, *pn);
		if (!p && strchr(*pn, '|')) {
			snprintf(why, sizeof(why), "the kernel's BTF has the target of none of %s", *pn);
			skip_all(g, why);
			goto out;
		}
		if (!p) {
			snprintf(why, sizeof(why), "no program %s in %s", *pn, path);
			fail_all(g, why);
			goto out;
		}
		bpf_program__set_autoload(p, true);
	}
	bss = bpf_object__find_map_by_name(obj, ".bss");
	if (!bss || bpf_map__value_size(bss) != g->res_size) {
		fail_all(g, "the object's .bss is not the results struct");
		goto out;
	}
	bpf_map__set_initial_value(bss, g->res, g->res_size);
	err = bpf_object__load(obj);
	if (err) {
		snprintf(why, sizeof(why), "load: %s (%s%s%s)", strerror(-err), libbpf_failed,
			 verifier_said[0] ? "; the verifier: " : "", verifier_said);
		fail_all(g, why);
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p) ||
		    bpf_program__expected_attach_type(p) == BPF_TRACE_ITER)
			continue;
		links[n] = bpf_program__attach(p);
		if (!links[n]) {
			snprintf(why, sizeof(why), "attach %s: %s (%s)", bpf_program__name(p),
				 strerror(errno), libbpf_failed);
			fail_all(g, why);
			goto out;
		}
		n++;
	}
	if (g->drive(obj) < 0) {
		snprintf(why, sizeof(why), "the work failed: %s", strerror(errno));
		fail_all(g, why);
		goto out;
	}
	while (n > 0)
		bpf_link__destroy(links[--n]);
	if (bpf_map_lookup_elem(bpf_map__fd(bss), &key, g->res)) {
		snprintf(why, sizeof(why), "reading .bss: %s", strerror(errno));
		fail_all(g, why);
		goto out;
	}
	g->judge(g->res);
out:
	while (n > 0)
		bpf_link__destroy(links[--n]);
	bpf_object__close(obj);
}

/* ---- the kernel's functions: vfs_read ----------------------------------- */

static struct d2b_vmlinux vm;
static char read_buf[READ_COUNT];
static ssize_t read_ret;

static int drive_read(struct bpf_object *obj)
{
	int fd;

	(void)obj;
	fd = open(DATA, O_RDONLY);
	if (fd < 0 || lseek(fd, READ_AT, SEEK_SET) != READ_AT)
		return -1;
	read_ret = read(fd, read_buf, READ_COUNT);
	close(fd);
	return read_ret < 0 ? -1 : 0;
}

static void judge_read(const void *r)
{
	const struct d2b_vmlinux *v = r;
	__u32 pid = getpid();

	check("fentry-args", v->rd_hits == 1 && v->rd_buf == (unsigned long)read_buf &&
	      v->rd_count == READ_COUNT && v->rd_pos == READ_AT,
	      "hits %u buf %#llx (%p) count %llu (%d) pos %llu (%d)", v->rd_hits,
	      (unsigned long long)v->rd_buf, (void *)read_buf,
	      (unsigned long long)v->rd_count, READ_COUNT,
	      (unsigned long long)v->rd_pos, READ_AT);
	check("fentry-deref", v->rd_hits == 1 && v->rd_isize == DATA_SIZE,
	      "file->f_inode->i_size %llu (the file has %d bytes)",
	      (unsigned long long)v->rd_isize, DATA_SIZE);
	check("fexit-ret", v->rx_hits == 1 && v->rx_ret == read_ret && v->rx_count == READ_COUNT,
	      "hits %u ret %lld count %llu (read() returned %zd)", v->rx_hits,
	      (long long)v->rx_ret, (unsigned long long)v->rx_count, read_ret);
	check("core-pid", v->rd_hits == 1 && v->core_pid == (__u32)v->helper_pid_tgid &&
	      v->core_tgid == v->helper_pid_tgid >> 32 && v->core_tgid == pid,
	      "task->pid %u tgid %u; bpf_get_current_pid_tgid %u/%u; getpid %u",
	      v->core_pid, v->core_tgid, (__u32)v->helper_pid_tgid,
	      (__u32)(v->helper_pid_tgid >> 32), pid);
	check("core-comm", v->rd_hits == 1 &&
	      !memcmp(v->core_comm, v->helper_comm, D2B_COMM_LEN) && !strcmp(v->core_comm, COMM),
	      "task->comm '%.16s', bpf_get_current_comm '%.16s', prctl '%s'",
	      v->core_comm, v->helper_comm, COMM);
	check("core-relocs", v->rd_hits == 1 && v->comm_size == D2B_COMM_LEN &&
	      v->pid_exists == 1 && v->fake_exists == 0 &&
	      v->pt_regs_size == sizeof(struct pt_regs) &&
	      v->map_array == BPF_MAP_TYPE_ARRAY && v->fake_enum_exists == 0,
	      "field_size(comm) %u (%d), field_exists(pid) %u, of a fake member %u, "
	      "type_size(pt_regs) %u (%zu), enum_value(BPF_MAP_TYPE_ARRAY) %u (%d), "
	      "of a fake value %u", v->comm_size, D2B_COMM_LEN, v->pid_exists,
	      v->fake_exists, v->pt_regs_size, sizeof(struct pt_regs), v->map_array,
	      BPF_MAP_TYPE_ARRAY, v->fake_enum_exists);
}

/* ---- do_filp_open / do_file_open ---------------------------------------- */

static int open_dir;
#define OPEN_FLAGS (O_RDONLY | O_NOFOLLOW)

static int drive_open(struct bpf_object *obj)
{
	int fd;

	(void)obj;
	fd = openat(open_dir, DATA_NAME, OPEN_FLAGS);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void judge_open(const void *r)
{
	const struct d2b_vmlinux *v = r;

	check("fentry-open", v->op_hits >= 1 && v->op_dfd == open_dir &&
	      (v->op_flags & (O_ACCMODE | O_NOFOLLOW | O_DIRECTORY)) == OPEN_FLAGS &&
	      !strcmp(v->op_name, DATA_NAME),
	      "hits %u dfd %d (%d) open_flag %#x (%#x) name->name '%.32s' ('%s')",
	      v->op_hits, v->op_dfd, open_dir, v->op_flags, OPEN_FLAGS, v->op_name, DATA_NAME);
}

/* ---- sched_switch ----------------------------------------------------- */

static int drive_sleep(struct bpf_object *obj)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	(void)obj;
	return nanosleep(&ts, NULL);
}

static void judge_switch(const void *r)
{
	const struct d2b_vmlinux *v = r;
	__u32 pid = getpid();

	check("tp_btf-sched_switch", v->sw_hits == 1 && v->sw_preempt == 0 &&
	      (v->sw_state & 1) && v->sw_prev_current == 1 && v->sw_prev_pid == pid &&
	      v->sw_helper_pid == pid && v->sw_next_other == 1,
	      "hits %u preempt %u prev_state %#x (TASK_INTERRUPTIBLE) prev==current %u "
	      "prev->pid %u helper %u getpid %u next!=prev %u", v->sw_hits, v->sw_preempt,
	      v->sw_state, v->sw_prev_current, v->sw_prev_pid, v->sw_helper_pid, pid,
	      v->sw_next_other);
}

/* ---- kfunc, per-CPU __ksym ---------------------------------------------- */

static void judge_kfunc(const void *r)
{
	const struct d2b_vmlinux *v = r;

	check("kfunc-task", v->kf_hits == 1 && v->kf_same == 1 && v->kf_tgid == (__u32)getpid(),
	      "hits %u bpf_task_from_pid(getpid()) == current %u, its tgid %u (%u)",
	      v->kf_hits, v->kf_same, v->kf_tgid, (__u32)getpid());
}

static int cpu;

static int drive_read_cpu(struct bpf_object *obj)
{
	cpu = sched_getcpu();
	return drive_read(obj);
}

static void judge_percpu(const void *r)
{
	const struct d2b_vmlinux *v = r;

	check("ksym-percpu", v->pc_hits == 1 && v->pc_cpu == v->pc_helper_cpu &&
	      v->pc_helper_cpu == (__u32)cpu && v->pc_curr_current == 1 && v->pc_cpu0 == 0,
	      "this_cpu runqueues.cpu %u, bpf_get_smp_processor_id %u, sched_getcpu %d, "
	      "rq->curr == current %u, CPU 0's runqueues.cpu %u", v->pc_cpu,
	      v->pc_helper_cpu, cpu, v->pc_curr_current, v->pc_cpu0);
}

/* ---- iter/task -------------------------------------------------------- */

static unsigned int iter_lines, iter_self;

static int drive_iter(struct bpf_object *obj)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, "task_iter");
	struct bpf_link *link;
	char buf[4096], line[32];
	size_t used = 0;
	ssize_t n;
	int fd, rc = -1;

	link = bpf_program__attach_iter(p, NULL);
	if (!link)
		return -1;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		goto out;
	snprintf(line, sizeof(line), "%d", getpid());
	while ((n = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0) {
		char *s, *nl;

		used += n;
		buf[used] = '\0';
		for (s = buf; (nl = strchr(s, '\n')); s = nl + 1) {
			*nl = '\0';
			iter_lines++;
			iter_self += !strcmp(s, line);
		}
		used = strlen(s);
		memmove(buf, s, used);
	}
	rc = n < 0 ? -1 : 0;
	close(fd);
out:
	bpf_link__destroy(link);
	return rc;
}

static void judge_iter(const void *r)
{
	const struct d2b_vmlinux *v = r;

	check("iter-task", v->it_tasks > 1 && v->it_tasks == iter_lines && v->it_self == 1 &&
	      iter_self == 1 && !strcmp(v->it_comm, COMM),
	      "tasks %u (lines read %u), the loader seen %u times (%u in the output), "
	      "its comm '%.16s' ('%s')", v->it_tasks, iter_lines, v->it_self, iter_self,
	      v->it_comm, COMM);
}

/* ---- the test module ---------------------------------------------------- */

static struct d2b_module mo;
static long poke_last;

static int drive_poke(struct bpf_object *obj)
{
	char buf[64];
	FILE *f;
	int ok;

	(void)obj;
	f = fopen("/sys/module/d2b_clients/parameters/poke", "w");
	if (!f)
		return -1;
	ok = fprintf(f, "%llu %d", POKE_SEQ, POKE_VALUE) > 0;
	if (fclose(f) || !ok)
		return -1;
	f = fopen("/sys/module/d2b_clients/parameters/last", "r");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	poke_last = strtol(buf, NULL, 10);
	return 0;
}

static void judge_poke(const void *r)
{
	const struct d2b_module *m = r;
	long want = (long)POKE_TAG * 1000 + POKE_VALUE + (long)(POKE_SEQ & 0xffff);

	check("module-fentry-args", m->en_hits == 1 && m->en_seq == POKE_SEQ &&
	      m->en_value == POKE_VALUE,
	      "hits %u seq %#llx (%#llx) value %d (%d)", m->en_hits,
	      (unsigned long long)m->en_seq, POKE_SEQ, m->en_value, POKE_VALUE);
	check("module-core", m->en_hits == 1 && m->req_seq == POKE_SEQ &&
	      m->req_value == POKE_VALUE && m->req_tag == POKE_TAG && m->req_flags == POKE_FLAGS,
	      "req->seq %#llx req->value %d req->tag %#x req->flags %u (%#llx %d %#x %d)",
	      (unsigned long long)m->req_seq, m->req_value, m->req_tag, m->req_flags,
	      POKE_SEQ, POKE_VALUE, POKE_TAG, POKE_FLAGS);
	check("module-fexit-ret", m->ex_hits == 1 && m->ex_ret == poke_last && poke_last == want,
	      "hits %u ret %lld, parameters/last %ld, computed %ld", m->ex_hits,
	      (long long)m->ex_ret, poke_last, want);
}

/* ---- main --------------------------------------------------------------- */

#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int write_data(void)
{
	char data[DATA_SIZE];
	int fd, ok;

	memset(data, 'd', sizeof(data));
	fd = open(DATA, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	ok = write(fd, data, sizeof(data)) == (ssize_t)sizeof(data);
	return close(fd) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct group vm_groups[] = {
		{ LIST("vfs_read_entry", "vfs_read_exit"),
		  LIST("fentry-args", "fentry-deref", "fexit-ret", "core-pid", "core-comm",
		       "core-relocs"), drive_read, judge_read, &vm, sizeof(vm) },
		{ LIST("do_filp_open_entry|do_file_open_entry"), LIST("fentry-open"),
		  drive_open, judge_open, &vm, sizeof(vm) },
		{ LIST("sched_switch"), LIST("tp_btf-sched_switch"), drive_sleep, judge_switch, &vm, sizeof(vm) },
		{ LIST("task_kfunc"), LIST("kfunc-task"), drive_read, judge_kfunc, &vm, sizeof(vm) },
		{ LIST("percpu_ksym"), LIST("ksym-percpu"), drive_read_cpu, judge_percpu, &vm, sizeof(vm) },
		{ LIST("task_iter"), LIST("iter-task"), drive_iter, judge_iter, &vm, sizeof(vm) },
	};
	struct group mod_group = {
		LIST("poke_entry", "poke_exit"), LIST("module-fentry-args", "module-core", "module-fexit-ret"),
		drive_poke, judge_poke, &mo, sizeof(mo),
	};
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CLIENTS.bpf.o [MODULE.bpf.o]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(on_libbpf);
	prctl(PR_SET_NAME, COMM);
	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf) {
		printf("D2B-CLIENT vmlinux-btf fail libbpf cannot read /sys/kernel/btf/vmlinux: %s\n",
		       libbpf_failed);
		return 1;
	}
	open_dir = open("/tmp", O_RDONLY | O_DIRECTORY);
	if (write_data() || open_dir < 0) {
		printf("D2B-CLIENT setup fail cannot write %s\n", DATA);
		return 1;
	}
	for (i = 0; i < sizeof(vm_groups) / sizeof(vm_groups[0]); i++) {
		memset(&vm, 0, sizeof(vm));
		vm.tgid = getpid();
		vm.read_count = READ_COUNT;
		run_group(argv[1], &vm_groups[i]);
	}
	if (argc > 2) {
		memset(&mo, 0, sizeof(mo));
		mo.seq = POKE_SEQ;
		run_group(argv[2], &mod_group);
	}
	/* our BTF's inline sites, traced (inline_sites.c), where run.sh made them */
	if (access(INLINE_OBJ, R_OK) == 0)
		inline_sites_check(INLINE_OBJ, INLINE_BTF, INLINE_META, DATA);
	btf__free(vmlinux_btf);
	return nfail ? 1 : 0;
}
