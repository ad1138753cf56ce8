/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The inline-sites check of tests/clients: what the loader tells the
 * kprobe program (inline.bpf.c) of each site, and what the program saw.
 * A site's spec says where each parameter is, as our LOC_PARAM says it
 * (a pt_regs offset for a register; then maybe a dereference at an
 * offset): the program reads it there, as libbpf's USDT argument specs are
 * read.
 */
#ifndef D2B_INLINE_SITES_H
#define D2B_INLINE_SITES_H

#define D2B_SITE_PARAMS 6
#define D2B_SITES 64

enum d2b_arg_kind {
	D2B_ARG_NONE,		/* not located: not read */
	D2B_ARG_REG,		/* the register's value */
	D2B_ARG_REG_OFF,	/* the register's value + off */
	D2B_ARG_MEM,		/* size bytes at register + off */
	D2B_ARG_CONST,		/* the constant value */
};

struct d2b_site_arg {
	__u32 kind;
	__u32 regs_off;		/* the register's offset in struct pt_regs */
	__s64 off;		/* or the constant */
	__u32 size;
	__u32 pad;
};

struct d2b_site_spec {
	__u32 slot;		/* its index in seen */
	__u32 nr;
	struct d2b_site_arg arg[D2B_SITE_PARAMS];
};

struct d2b_site_seen {
	__u64 hits;
	__u64 val[D2B_SITE_PARAMS];
};

/* the .bss of inline.bpf.c */
struct d2b_inline {
	__u32 tgid;		/* in: the loader's */
	__u32 pad;
};

#endif
