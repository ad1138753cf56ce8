/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What btf_meaning.c (the meaning of each type: pass 1) and btf_compare.c
 * (the keys merged, differences explained: passes 2 and 3, the API) share:
 * the comparison's state.  Theory in btf_compare.c.  Not part of the
 * library's interface.
 */
#ifndef D2B_COMPARE_INTERNAL_H
#define D2B_COMPARE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf2btf.h"

enum {
	MAX_ANON_DEPTH = 512,	/* nesting of anonymous types, then -ELOOP */
	MAX_RENDER_DEPTH = 6,	/* in messages: deeper is "..." */
	MAX_ARRAY_CHAIN = 64,
	DETAIL_LEN = 1024,
	TYPE_STR_LEN = 384,
	/* anonymous expansions allowed: this many per type of both sides, plus a floor */
	BUDGET_PER_TYPE = 64,
	BUDGET_MIN = 1 << 20,
};

/* Tokens fed into a meaning hash, so that different shapes never line up. */
enum cmp_token {
	TOK_VOID = 1,
	TOK_INVALID,
	TOK_REF,
	TOK_CYCLE,
	TOK_BODY,
	TOK_MEMBER,
	TOK_PARAM,
	TOK_VALUE,
	TOK_SECINFO,
	TOK_LOC,
	TOK_FWD_STRUCT = 0x100,	/* ref classes of FWD when they stay apart */
	TOK_FWD_UNION,
};

enum memo_state {
	MEMO_NONE = 0,
	MEMO_BUSY,	/* on the anonymous stack */
	MEMO_DONE,
};

struct named_ent {
	const char *name;
	uint64_t hash;
	uint32_t cls;
	uint32_t kind;
	uint32_t id;
};

struct anon_ent {
	uint64_t hash;
	uint32_t kind;
	uint32_t id;
};

struct cmp_side {
	const struct d2b_btf *btf;
	uint32_t start, end;	/* own types */
	bool fwd_as_struct;	/* render FWD as struct/union */
	uint64_t *memo;		/* anonymous meanings, indexed by any ID < end */
	uint8_t *state;
	uint32_t *depth;	/* stack depth of MEMO_BUSY types */
	uint8_t *elem_only;	/* flatten: ARRAY used only as another ARRAY's element */
	struct named_ent *named;
	size_t nnamed, named_cap;
	struct anon_ent *anon;
	size_t nanon, anon_cap;
};

struct cmp {
	struct d2b_compare_opts opts;
	struct cmp_side side[2];
	d2b_compare_fn cb;
	void *arg;
	struct d2b_compare_summary sum;
	uint64_t budget;	/* anonymous expansions left */
	unsigned int ndetail;	/* details emitted for the current key */
	int err;		/* first error of a callback, sticky */
	char detail[DETAIL_LEN];
};

/* btf_meaning.c */
/* Pass 1 for side s: hash every own type, fill s->named and s->anon. */
int cmp_side_hash(struct cmp *c, struct cmp_side *s);
void cmp_side_release(struct cmp_side *s);
/* Meaning of a reference from outside any walk (pass 3). */
uint64_t cmp_ref_meaning(struct cmp *c, struct cmp_side *s, uint32_t id);
const char *cmp_type_name(const struct cmp_side *s, const struct d2b_type *t);
/* Is t identified by its key (a named kind, with a name)? */
bool cmp_type_is_named(const struct cmp_side *s, const struct d2b_type *t);
/* The order of keys (class, then name), and of anonymous entries (kind,
 * then hash); the qsort() orders of the entry lists, ties broken by ID. */
int cmp_key_order(const struct named_ent *a, const struct named_ent *b);
int cmp_anon_key_order(const struct anon_ent *a, const struct anon_ent *b);
int cmp_named_sort(const void *pa, const void *pb);
int cmp_anon_sort(const void *pa, const void *pb);

#endif
