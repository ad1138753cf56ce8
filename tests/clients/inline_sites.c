// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline-sites check of the loader (README: inline-sites): our BTF's
 * inline sites, traced.
 *
 * run.sh writes vmlinux's BTF with dwarf2btf --inline-sites -o: vmlinux.btf
 * and vmlinux.btf.inline (split BTF over it: LOC_PARAM, LOC_PROTO, LOCSEC),
 * and inline.meta, the link-time address of .text and of _text.  The
 * kernel need not know these kinds, nor libbpf: the files are read here,
 * by hand.  For each function of the table below, every site the LOCSEC
 * of .text lists gets a kprobe at its address (.text's, plus the site's
 * offset, plus the kernel's slide: /proc/kallsyms' _text) with the one
 * program of inline.bpf.c, and a spec made of the site's LOC_PARAMs (a
 * register by DWARF number as its pt_regs offset; a dereference at an
 * offset; a constant).  The loader then makes the system calls whose
 * arguments it knows, and each site its process hit must have read, for
 * every parameter its LOC_PROTO locates, the argument the loader passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "inline_sites.h"

void inline_sites_check(const char *obj_path, const char *btf_path, const char *meta_path,
			const char *data_path);

enum { KIND_FUNC = 12, KIND_LOC_PARAM = 20, KIND_LOC_PROTO = 21, KIND_LOCSEC = 22 };
enum { F_SIGNED = 1, F_CONST = 2, F_ADDR = 4, F_REG = 8, F_DEREF = 0x10, F_OFFSET = 0x20 };

/* One raw BTF file, little-endian (x86-64's) */
struct raw {
	uint8_t *data;
	const uint8_t *types;
	const char *strs;
	uint32_t types_len, strs_len;
	uint32_t *off;		/* each type's offset in types */
	uint32_t n;
};

struct btf_type_raw {
	uint32_t name_off, info, size;
};

static uint32_t extra_bytes(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case 1: case 14: case 17: return 4;			/* INT, VAR, DECL_TAG */
	case 3: return 12;					/* ARRAY */
	case 4: case 5: case 15: case 19: case 22: return 12 * vlen;
	case 6: case 13: return 8 * vlen;			/* ENUM, FUNC_PROTO */
	case KIND_LOC_PARAM: return 4 + 4 * vlen;
	case KIND_LOC_PROTO: return 4 * vlen;
	default: return 0;
	}
}

static int read_raw(const char *path, struct raw *r)
{
	uint32_t hdr_len, type_off, str_off, p = 0;
	FILE *f = fopen(path, "rb");
	long size;

	memset(r, 0, sizeof(*r));
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 24 || fseek(f, 0, SEEK_SET))
		return -1;
	r->data = malloc(size);
	if (!r->data || fread(r->data, 1, size, f) != (size_t)size || fclose(f))
		return -1;
	if (*(uint16_t *)r->data != 0xeb9f)
		return -1;
	memcpy(&hdr_len, r->data + 4, 4);
	memcpy(&type_off, r->data + 8, 4);
	memcpy(&r->types_len, r->data + 12, 4);
	memcpy(&str_off, r->data + 16, 4);
	memcpy(&r->strs_len, r->data + 20, 4);
	if ((uint64_t)hdr_len + type_off + r->types_len > (uint64_t)size ||
	    (uint64_t)hdr_len + str_off + r->strs_len > (uint64_t)size)
		return -1;
	r->types = r->data + hdr_len + type_off;
	r->strs = (const char *)r->data + hdr_len + str_off;
	r->off = malloc((r->types_len / 12 + 1) * sizeof(*r->off));
	if (!r->off)
		return -1;
	while (p + 12 <= r->types_len) {
		const struct btf_type_raw *t = (const void *)(r->types + p);

		r->off[r->n++] = p;
		p += 12 + extra_bytes(t->info >> 24 & 0x7f, t->info & 0xffffff);
	}
	return p == r->types_len ? 0 : -1;
}

/* vmlinux.btf and its .inline, their IDs one space */
struct pair {
	struct raw main, inl;
};

static const struct btf_type_raw *type_of(const struct pair *b, uint32_t id)
{
	if (id >= 1 && id <= b->main.n)
		return (const void *)(b->main.types + b->main.off[id - 1]);
	id -= b->main.n + 1;
	return id < b->inl.n ? (const void *)(b->inl.types + b->inl.off[id]) : NULL;
}

static const char *name_of(const struct pair *b, uint32_t off)
{
	if (off < b->main.strs_len)
		return b->main.strs + off;
	off -= b->main.strs_len;
	return off < b->inl.strs_len ? b->inl.strs + off : "";
}

/* DWARF register number (x86-64) -> offset in struct pt_regs */
static const int regs_off[16] = {
	80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0,
};

/* A LOC_PARAM as the program's argument spec: false if it cannot read it */
static bool arg_of(const struct btf_type_raw *t, struct d2b_site_arg *a)
{
	const uint32_t *v = (const uint32_t *)(t + 1) + 1;
	uint32_t flags = *(const uint32_t *)(t + 1), vlen = t->info & 0xffffff;

	memset(a, 0, sizeof(*a));
	a->size = t->size;
	if ((flags & F_CONST) && !(flags & F_ADDR)) {
		a->kind = D2B_ARG_CONST;
		a->off = vlen > 1 ? (int64_t)((uint64_t)v[1] << 32 | v[0]) :
			 (flags & F_SIGNED) ? (int32_t)v[0] : (int64_t)v[0];
		return true;
	}
	if (!(flags & F_REG) || v[0] > 15 || (flags == F_REG && vlen != 1))
		return false;
	a->regs_off = regs_off[v[0]];
	a->off = flags & F_OFFSET ? (int32_t)v[1] : 0;
	a->kind = flags & F_DEREF ? D2B_ARG_MEM : flags & F_OFFSET ? D2B_ARG_REG_OFF : D2B_ARG_REG;
	return true;
}

/* The functions traced, and the arguments the loader's calls give them */
struct target {
	const char *func;
	unsigned int nr;
	uint64_t want[D2B_SITE_PARAMS];
	unsigned int bad, hits, args, skipped;
};

/* A site attached */
struct site {
	struct target *t;
	uint64_t addr;
	struct d2b_site_spec spec;
};

static uint64_t kallsyms_text(void)
{
	char line[256], name[200], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t ret = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &type, name) == 3 && !strcmp(name, "_text")) {
			ret = a;
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

/* The sites of the targets in .text's LOCSEC: into s, *n of them */
static int find_sites(const struct pair *b, struct target *tg, size_t ntg, uint64_t base,
		      struct site *s, size_t *n)
{
	uint32_t id, i, k, end = b->main.n + b->inl.n;

	*n = 0;
	for (id = b->main.n + 1; id <= end; id++) {
		const struct btf_type_raw *t = type_of(b, id);
		const uint32_t *loc = (const uint32_t *)(t + 1);

		if ((t->info >> 24 & 0x7f) != KIND_LOCSEC || strcmp(name_of(b, t->name_off), ".text"))
			continue;
		for (i = 0; i < (t->info & 0xffffff); i++, loc += 3) {
			const struct btf_type_raw *fn = type_of(b, loc[0]), *lp = type_of(b, loc[1]);
			const uint32_t *params = (const uint32_t *)(lp + 1);
			struct site *st = &s[*n];

			for (k = 0; k < ntg && strcmp(tg[k].func, name_of(b, fn->name_off)); k++)
				;
			if (k == ntg || (lp->info & 0xffffff) != tg[k].nr || *n == D2B_SITES)
				continue;
			memset(st, 0, sizeof(*st));
			st->t = &tg[k];
			st->addr = base + loc[2];
			st->spec.slot = *n;
			st->spec.nr = tg[k].nr;
			for (k = 0; k < st->spec.nr; k++)
				if (!params[k] || !arg_of(type_of(b, params[k]), &st->spec.arg[k]))
					st->spec.arg[k].kind = D2B_ARG_NONE;
			(*n)++;
		}
	}
	return 0;
}

/* The calls whose arguments the table of inline_sites_check() says */
static void drive(int fd, char *buf)
{
	lseek(fd, 100, SEEK_SET);
	pread(fd, buf, 77, 5);
	umask(022);
	getpriority(PRIO_PROCESS, 0);
}

static void judge_site(const struct site *s, const struct d2b_site_seen *seen)
{
	struct target *t = s->t;
	uint32_t k;

	if (!seen->hits)
		return;
	t->hits++;
	for (k = 0; k < s->spec.nr; k++) {
		uint64_t got = seen->val[k], want = t->want[k];
		uint32_t size = s->spec.arg[k].size;

		if (s->spec.arg[k].kind == D2B_ARG_NONE) {
			t->skipped++;
			continue;
		}
		if (size < 8) {
			got &= (1ULL << (8 * size)) - 1;
			want &= (1ULL << (8 * size)) - 1;
		}
		t->args++;
		if (got != want) {
			printf("D2B-CLIENT inline-sites fail %s at 0x%llx: parameter %u is 0x%llx, "
			       "the call passed 0x%llx\n", t->func, (unsigned long long)s->addr, k,
			       (unsigned long long)got, (unsigned long long)want);
			t->bad++;
		}
	}
}

void inline_sites_check(const char *obj_path, const char *btf_path, const char *meta_path,
			const char *data_path)
{
	char inl_path[256], buf[128];
	static struct site sites[D2B_SITES];
	struct target tg[] = {
		{ .func = "ksys_lseek", .nr = 3, .want = { 0, 100, SEEK_SET } },
		{ .func = "__do_sys_lseek", .nr = 3, .want = { 0, 100, SEEK_SET } },
		{ .func = "ksys_pread64", .nr = 4, .want = { 0, 0, 77, 5 } },
		{ .func = "__do_sys_pread64", .nr = 4, .want = { 0, 0, 77, 5 } },
		{ .func = "__do_sys_umask", .nr = 1, .want = { 022 } },
		{ .func = "__do_sys_getpriority", .nr = 2, .want = { PRIO_PROCESS, 0 } },
	};
	size_t ntg = sizeof(tg) / sizeof(tg[0]), n = 0, i, k, attached = 0;
	struct bpf_link *links[D2B_SITES] = { 0 };
	unsigned long long text_addr, link_text;
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	struct d2b_inline res = { .tgid = getpid() };
	struct pair b;
	struct bpf_map *bss;
	unsigned int judged = 0, args = 0, skipped = 0, bad = 0;
	uint64_t slide, runtime_text;
	FILE *meta;
	int fd;

	snprintf(inl_path, sizeof(inl_path), "%s.inline", btf_path);
	meta = fopen(meta_path, "r");
	if (!meta || fscanf(meta, "%llx %llx", &text_addr, &link_text) != 2 ||
	    read_raw(btf_path, &b.main) || read_raw(inl_path, &b.inl)) {
		printf("D2B-CLIENT inline-sites fail cannot read %s, %s or %s\n", btf_path, inl_path,
		       meta_path);
		return;
	}
	fclose(meta);
	runtime_text = kallsyms_text();
	if (!runtime_text) {
		printf("D2B-CLIENT inline-sites skip no _text in /proc/kallsyms\n");
		return;
	}
	slide = runtime_text - link_text;
	find_sites(&b, tg, ntg, text_addr + slide, sites, &n);
	if (!n) {
		printf("D2B-CLIENT inline-sites skip no site of the functions traced in our BTF\n");
		return;
	}
	fd = open(data_path, O_RDONLY);
	for (i = 0; i < 4; i++)		/* lseek's and pread's fd, pread's buffer */
		tg[i].want[0] = fd;
	tg[2].want[1] = tg[3].want[1] = (uint64_t)(uintptr_t)buf;
	obj = bpf_object__open_file(obj_path, NULL);
	bss = obj ? bpf_object__find_map_by_name(obj, ".bss") : NULL;
	if (!bss || bpf_map__set_initial_value(bss, &res, sizeof(res)) || bpf_object__load(obj)) {
		printf("D2B-CLIENT inline-sites fail cannot load %s\n", obj_path);
		goto out;
	}
	prog = bpf_object__find_program_by_name(obj, "site");
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .offset = sites[i].addr);

		/* one spec per address: the first function listed there */
		for (k = 0; k < i && sites[k].addr != sites[i].addr; k++)
			;
		if (k < i)
			continue;
		if (bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(obj, "specs")),
					&sites[i].addr, &sites[i].spec, BPF_ANY))
			continue;
		links[i] = bpf_program__attach_kprobe_opts(prog, NULL, &ko);
		attached += links[i] != NULL;
	}
	if (!attached) {
		printf("D2B-CLIENT inline-sites fail no kprobe attached at any of %zu sites\n", n);
		goto out;
	}
	drive(fd, buf);
	for (i = 0; i < n; i++) {
		struct d2b_site_seen seen;
		uint32_t slot = sites[i].spec.slot;

		if (links[i] && !bpf_map_lookup_elem(bpf_map__fd(bpf_object__find_map_by_name(obj, "seen")),
						    &slot, &seen))
			judge_site(&sites[i], &seen);
	}
	for (i = 0; i < ntg; i++) {
		if (tg[i].bad)
			bad++;
		if (tg[i].hits && tg[i].args)
			judged++;
		args += tg[i].args;
		skipped += tg[i].skipped;
	}
	if (bad)
		printf("D2B-CLIENT inline-sites fail %u functions' sites read other values\n", bad);
	else if (judged < 2)
		printf("D2B-CLIENT inline-sites fail %u functions' sites hit with a located "
		       "parameter (%zu sites, %zu kprobes): at least 2 wanted\n", judged, n, attached);
	else
		printf("D2B-CLIENT inline-sites ok %u functions, %u parameters read where our "
		       "LOC_PARAMs say (%u not located), %zu kprobes\n", judged, args, skipped,
		       attached);
out:
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	close(fd);
}
