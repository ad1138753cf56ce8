// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Cross-checks of dedup.c against libbpf and the kernel, on synthetic
 * kernel-like units: a universe of structs with pointers between them
 * (cycles), embedded structs, arrays, enums, function pointers and
 * typedefs; each unit defines some structs and only declares (FWD) others,
 * lists its types in a random order, repeats a few, and a few structs
 * change layout between groups of units (same name, different layout).
 *
 *  - libbpf's btf__dedup() finds nothing left to merge in our output;
 *  - our output has, per kind, no more types than libbpf's dedup of all
 *    the units concatenated (our append_only mode), the way pahole does it;
 *  - the kernel accepts our output (BPF_BTF_LOAD).
 * The same for every case of dedup_cases.h (test_dedup.c's table), whose
 * units' types must also keep their meaning.
 *
 * D2B_DEDUP_BENCH=N (with optionally D2B_DEDUP_BENCH_STRUCTS=S, and
 * D2B_DEDUP_BENCH_VERSIONS=1 for structs whose layout changes between
 * groups of units) instead times the merge of N units and prints the
 * result as comments; D2B_DEDUP_TRACE=1 prints what each unit adds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "btf/btf.h"
#include "merge/dedup.h"
#include "base/hmap.h"
#include "dedup_cases.h"
#include "test.h"
#include "base/vec.h"

/*
 * The libbpf functions used here, declared rather than taken from
 * <bpf/btf.h>: its inline helpers (btf_members(), ...) share names with
 * lib/btf.h's, which the equivalence checker below needs.
 */
struct btf;
struct btf_dedup_opts;
struct btf *btf__new(const void *data, uint32_t size);
void btf__free(struct btf *btf);
uint32_t btf__type_cnt(const struct btf *btf);
int btf__dedup(struct btf *btf, const struct btf_dedup_opts *opts);
const void *btf__raw_data(const struct btf *btf, uint32_t *size);

/* ---- deterministic pseudo-random numbers ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s += 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rng_next(s) % n);
}

/* ---- the universe ---- */

enum mkind { M_INT, M_LONG, M_PTR, M_EMBED, M_ARRAY, M_FUNCPTR, M_ENUM, M_TYPEDEF_PTR };

struct gmember {
	enum mkind kind;
	uint32_t arg;
};

struct gstruct {
	struct gmember m[8];
	unsigned int nm;
	bool versioned;		/* an extra member in odd unit groups */
	bool is_union;
};

struct universe {
	struct gstruct *s;
	uint32_t ns, nenums;
};

static void universe_init(struct universe *u, uint32_t ns, uint64_t seed, bool versions)
{
	uint32_t j, k;

	u->ns = ns;
	u->nenums = ns / 20 + 1;
	u->s = calloc(ns, sizeof(*u->s));
	for (j = 0; j < ns; j++) {
		struct gstruct *s = &u->s[j];

		s->nm = 1 + rng_below(&seed, 7);
		s->versioned = versions && j % 97 == 13;
		s->is_union = j % 31 == 5;
		for (k = 0; k < s->nm; k++) {
			struct gmember *m = &s->m[k];
			uint32_t r = rng_below(&seed, 100);

			if (r < 15) {
				m->kind = M_INT;
			} else if (r < 25) {
				m->kind = M_LONG;
			} else if (r < 60) {
				m->kind = M_PTR;
				m->arg = rng_below(&seed, ns);
			} else if (r < 68 && j + 1 < ns) {
				m->kind = M_EMBED;	/* later struct only: no embedding cycle */
				m->arg = j + 1 + rng_below(&seed, ns - j - 1 < 50 ? ns - j - 1 : 50);
			} else if (r < 78) {
				m->kind = M_ARRAY;
				m->arg = rng_below(&seed, 4);
			} else if (r < 86) {
				m->kind = M_FUNCPTR;
				m->arg = rng_below(&seed, ns);
			} else if (r < 93) {
				m->kind = M_ENUM;
				m->arg = rng_below(&seed, u->nenums);
			} else {
				m->kind = M_TYPEDEF_PTR;
				m->arg = rng_below(&seed, ns);
			}
		}
	}
}

/* ---- one unit ---- */

/* type nodes of a unit, each given a random ID */
enum {
	N_INT, N_LONG, N_ARR0 = 2, N_FIXED = N_ARR0 + 4,
	/* then per enum: 1; per struct: STRUCT, PTR, TYPEDEF, PTR-to-typedef, PROTO, PTR-to-proto, dup PTR */
	PER_STRUCT = 7,
};

struct gunit {
	const struct universe *u;
	uint32_t *id;		/* node -> unit ID */
	bool *defined;
	uint32_t *size;		/* struct sizes in bytes, this unit's group */
	bool odd;
};

static uint32_t node_enum(uint32_t e)
{
	return N_FIXED + e;
}

static uint32_t node_struct(const struct gunit *g, uint32_t j, uint32_t which)
{
	return N_FIXED + g->u->nenums + j * PER_STRUCT + which;
}

static uint32_t member_size(const struct gunit *g, const struct gmember *m)
{
	switch (m->kind) {
	case M_INT:
	case M_ENUM:
		return 4;
	case M_ARRAY:
		return 4 * (m->arg + 1);
	case M_EMBED:
		return g->size[m->arg];
	default:
		return 8;
	}
}

static unsigned int struct_members(const struct gunit *g, uint32_t j)
{
	const struct gstruct *s = &g->u->s[j];

	return s->nm + (s->versioned && g->odd);
}

static const struct gmember extra_member = { M_LONG, 0 };

static const struct gmember *struct_member(const struct gunit *g, uint32_t j, unsigned int k)
{
	return k < g->u->s[j].nm ? &g->u->s[j].m[k] : &extra_member;
}

static void compute_sizes(struct gunit *g)
{
	uint32_t j = g->u->ns;

	while (j--) {
		uint32_t off = 0, k, n = struct_members(g, j), max = 0;

		for (k = 0; k < n; k++) {
			uint32_t sz = (member_size(g, struct_member(g, j, k)) + 7) & ~7u;

			off += sz;
			if (sz > max)
				max = sz;
		}
		g->size[j] = g->u->s[j].is_union ? max : off;
	}
}

static int emit_node(struct gunit *g, struct d2b_btf *b, uint32_t node)
{
	const struct universe *u = g->u;
	char name[32];
	uint32_t j, which, k, off = 0;
	int r;

	if (node == N_INT)
		return d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	if (node == N_LONG)
		return d2b_btf__add_int(b, "long", 8, D2B_INT_SIGNED);
	if (node < N_FIXED)
		return d2b_btf__add_array(b, g->id[N_INT], g->id[N_INT], node - N_ARR0 + 1);
	if (node < N_FIXED + u->nenums) {
		snprintf(name, sizeof(name), "e%u", node - N_FIXED);
		r = d2b_btf__add_enum(b, name, 4, false);
		for (k = 0; r > 0 && k < 3; k++) {
			char v[40];

			snprintf(v, sizeof(v), "E%u_%u", node - N_FIXED, k);
			if (d2b_btf__add_enum_value(b, v, k) < 0)
				return -EINVAL;
		}
		return r;
	}
	j = (node - N_FIXED - u->nenums) / PER_STRUCT;
	which = (node - N_FIXED - u->nenums) % PER_STRUCT;
	snprintf(name, sizeof(name), "s%u", j);
	switch (which) {
	case 0:
		if (!g->defined[j])
			return d2b_btf__add_fwd(b, name, u->s[j].is_union);
		r = d2b_btf__add_composite(b, u->s[j].is_union ? D2B_KIND_UNION : D2B_KIND_STRUCT,
					   name, g->size[j]);
		for (k = 0; r > 0 && k < struct_members(g, j); k++) {
			const struct gmember *m = struct_member(g, j, k);
			uint32_t t = 0;
			char mn[16];

			switch (m->kind) {
			case M_INT: t = g->id[N_INT]; break;
			case M_LONG: t = g->id[N_LONG]; break;
			/* every other pointer member uses the unit's duplicate PTR */
			case M_PTR: t = g->id[node_struct(g, m->arg, k % 2 ? 6 : 1)]; break;
			case M_EMBED: t = g->id[node_struct(g, m->arg, 0)]; break;
			case M_ARRAY: t = g->id[N_ARR0 + m->arg]; break;
			case M_FUNCPTR: t = g->id[node_struct(g, m->arg, 5)]; break;
			case M_ENUM: t = g->id[node_enum(m->arg)]; break;
			case M_TYPEDEF_PTR: t = g->id[node_struct(g, m->arg, 3)]; break;
			}
			snprintf(mn, sizeof(mn), "m%u", k);
			if (d2b_btf__add_member(b, mn, t, u->s[j].is_union ? 0 : off * 8, 0) < 0)
				return -EINVAL;
			off += (member_size(g, m) + 7) & ~7u;
		}
		return r;
	case 1:
	case 6:
		return d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, g->id[node_struct(g, j, 0)]);
	case 2:
		snprintf(name, sizeof(name), "s%u_t", j);
		return d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, name, g->id[node_struct(g, j, 0)]);
	case 3:
		return d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, g->id[node_struct(g, j, 2)]);
	case 4:
		r = d2b_btf__add_func_proto(b, g->id[N_INT]);
		if (r > 0 && (d2b_btf__add_param(b, "p", g->id[node_struct(g, j, 1)]) < 0 ||
			      d2b_btf__add_param(b, "n", g->id[N_LONG]) < 0))
			return -EINVAL;
		return r;
	default:
		return d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, g->id[node_struct(g, j, 4)]);
	}
}

/* Unit k of a universe: its own random order and choice of declarations. */
static struct d2b_btf *make_unit(const struct universe *u, uint32_t k)
{
	uint64_t seed = 0x5eed0000ULL + k;
	uint32_t nn = N_FIXED + u->nenums + u->ns * PER_STRUCT, i, j, *order;
	struct gunit g = { .u = u, .odd = (k / 3) % 2 };
	struct d2b_btf *b = d2b_btf__new(NULL);

	g.id = calloc(nn, sizeof(*g.id));
	g.defined = calloc(u->ns, sizeof(*g.defined));
	g.size = calloc(u->ns, sizeof(*g.size));
	order = calloc(nn, sizeof(*order));
	if (!b || !g.id || !g.defined || !g.size || !order)
		goto fail;
	compute_sizes(&g);
	/* about one struct in five only declared, unless something defined embeds it */
	for (j = 0; j < u->ns; j++)
		g.defined[j] = rng_below(&seed, 5) != 0;
	for (j = 0; j < u->ns; j++) {
		for (i = 0; g.defined[j] && i < u->s[j].nm; i++) {
			if (u->s[j].m[i].kind == M_EMBED)
				g.defined[u->s[j].m[i].arg] = true;
		}
	}
	for (i = 0; i < nn; i++)
		order[i] = i;
	for (i = nn - 1; i > 0; i--) {
		uint32_t r = rng_below(&seed, i + 1), t = order[i];

		order[i] = order[r];
		order[r] = t;
	}
	for (i = 0; i < nn; i++)
		g.id[order[i]] = i + 1;
	for (i = 0; i < nn; i++) {
		if (emit_node(&g, b, order[i]) != (int)(i + 1))
			goto fail;
	}
	free(g.id);
	free(g.defined);
	free(g.size);
	free(order);
	return b;
fail:
	free(g.id);
	free(g.defined);
	free(g.size);
	free(order);
	d2b_btf__free(b);
	return NULL;
}

/* ---- an independent check that merging kept every type's meaning ---- */

struct checker {
	const struct d2b_btf *unit, *out;
	struct hmap seen;	/* (unit ID, out ID) pairs already checked */
	uint64_t *stack;
	size_t nr, cap;
	unsigned long pairs;
};

static bool same_name(const struct checker *c, const struct d2b_type *a, const struct d2b_type *b)
{
	const char *na = d2b_btf__str(c->unit, a->name_off), *nb = d2b_btf__str(c->out, b->name_off);

	return na && nb && !strcmp(na, nb);
}

static int check_push(struct checker *c, uint32_t u, uint32_t o)
{
	uint64_t key = (uint64_t)u << 32 | o, v;

	if (hmap__find(&c->seen, key, &v))
		return 0;
	if (hmap__add(&c->seen, key, 1) || VEC_RESERVE(c->stack, c->cap, c->nr, 1))
		return -ENOMEM;
	c->stack[c->nr++] = key;
	return 0;
}

/*
 * Is unit type u equivalent to out type o, all the way down?  The relation
 * is checked coinductively (a pair met again holds), FWD matching a struct
 * or union of its name and kind, a forward enum any enum of its name.
 */
static int check_pair(struct checker *c, uint32_t u, uint32_t o)
{
	const struct d2b_type *tu = d2b_btf__type(c->unit, u), *to = d2b_btf__type(c->out, o);
	struct d2b_type *cu, *co;
	struct btf_field_iter iu, io, su, so;
	unsigned int ku, ko;
	uint32_t *pu, *po;
	size_t n, i;
	int err = 0;

	if (!tu || !to)
		return -EINVAL;
	ku = d2b_kind(tu);
	ko = d2b_kind(to);
	if (ku == D2B_KIND_FWD || ko == D2B_KIND_FWD) {
		const struct d2b_type *f = ku == D2B_KIND_FWD ? tu : to, *x = ku == D2B_KIND_FWD ? to : tu;
		unsigned int fk = d2b_kflag(f) ? D2B_KIND_UNION : D2B_KIND_STRUCT;

		if (!same_name(c, tu, to))
			return 1;
		if (d2b_kind(x) == D2B_KIND_FWD)
			return d2b_kflag(x) != d2b_kflag(f);
		return d2b_kind(x) != fk;
	}
	if ((ku == D2B_KIND_ENUM || ku == D2B_KIND_ENUM64) && (ko == D2B_KIND_ENUM || ko == D2B_KIND_ENUM64) &&
	    (!d2b_vlen(tu) || !d2b_vlen(to)))
		return !same_name(c, tu, to);
	n = btf_type_words(tu);
	if (ku != ko || n != btf_type_words(to))
		return 1;
	/* compare copies with string and ID fields blanked; strings by content */
	cu = malloc(n * 4);
	co = malloc(n * 4);
	if (!cu || !co) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(cu, tu, n * 4);
	memcpy(co, to, n * 4);
	btf_field_iter__init(&su, cu, BTF_FIELD_STRS);
	btf_field_iter__init(&so, co, BTF_FIELD_STRS);
	while ((pu = btf_field_iter__next(&su)) && (po = btf_field_iter__next(&so))) {
		const char *a = d2b_btf__str(c->unit, *pu), *b = d2b_btf__str(c->out, *po);

		if (!a || !b || strcmp(a, b)) {
			err = 1;
			goto out;
		}
		*pu = *po = 0;
	}
	btf_field_iter__init(&iu, cu, BTF_FIELD_IDS);
	btf_field_iter__init(&io, co, BTF_FIELD_IDS);
	while (!err && (pu = btf_field_iter__next(&iu)) && (po = btf_field_iter__next(&io))) {
		if (!*pu != !*po)
			err = 1;	/* void against a type */
		else if (*pu)
			err = check_push(c, *pu, *po);
		*pu = *po = 0;
	}
	for (i = 0; !err && i < n; i++) {
		if (((uint32_t *)cu)[i] != ((uint32_t *)co)[i])
			err = 1;
	}
out:
	free(cu);
	free(co);
	return err;
}

/* Every unit type equivalent to the out type it was mapped to; 0 or the first bad unit ID. */
static int check_unit_map(const struct d2b_btf *unit, const struct d2b_btf *out, const uint32_t *map,
			  unsigned long *pairs)
{
	struct checker c = { .unit = unit, .out = out };
	uint32_t u;
	int ret = 0;

	hmap__init(&c.seen, false);
	for (u = 1; u < d2b_btf__end_id(unit) && !ret; u++) {
		ret = check_push(&c, u, map[u]);
		while (!ret && c.nr) {
			uint64_t key = c.stack[--c.nr];

			ret = check_pair(&c, key >> 32, (uint32_t)key);
			if (ret > 0) {
				printf("#   unit type %u is not out type %u (pair %u ~ %u)\n", u, map[u],
				       (uint32_t)(key >> 32), (uint32_t)key);
				ret = u;
			}
		}
	}
	*pairs += c.pairs + c.seen.len;
	hmap__release(&c.seen);
	free(c.stack);
	return ret;
}

/* Merge nunits units; with verify, check each unit's map against the result. */
static int merge_units(const struct universe *u, uint32_t nunits, bool append_only,
		       struct d2b_btf **ret, double *secs, bool verify)
{
	struct dedup_opts opts = { .append_only = append_only };
	const uint32_t *final_map = NULL;
	uint32_t **maps = verify ? calloc(nunits, sizeof(*maps)) : NULL;
	unsigned long verified = 0;
	struct d2b_btf *out = d2b_btf__new(NULL);
	struct dedup *d = NULL;
	struct timespec t0, t1;
	double total = 0;
	uint32_t k;
	int err;

	*ret = NULL;
	if (!out || (verify && !maps)) {
		d2b_btf__free(out);
		free(maps);
		return -ENOMEM;
	}
	err = dedup__new(out, &opts, &d);
	for (k = 0; !err && k < nunits; k++) {
		struct d2b_btf *unit = make_unit(u, k);

		if (!unit) {
			err = -ENOMEM;
			break;
		}
		if (verify) {
			maps[k] = calloc(d2b_btf__end_id(unit), sizeof(**maps));
			if (!maps[k]) {
				d2b_btf__free(unit);
				err = -ENOMEM;
				break;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = dedup__add_unit(d, unit, verify ? maps[k] : NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		total += (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		d2b_btf__free(unit);
		if (getenv("D2B_DEDUP_TRACE")) {
			const struct d2b_btf *w = dedup__btf(d);
			static uint32_t last = 1;
			unsigned int cnt[32] = { 0 }, i;

			for (; last < d2b_btf__end_id(w); last++)
				cnt[d2b_kind(d2b_btf__type(w, last))]++;
			printf("# unit %u: work %u types, %.3f s:", k, d2b_btf__nr_types(w), total);
			for (i = 0; i < 32; i++)
				if (cnt[i])
					printf(" %s=%u", d2b_kind_name(i), cnt[i]);
			printf("\n");
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!err)
		err = dedup__finish(d, &final_map);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	total += (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (k = 0; verify && !err && k < nunits; k++) {
		struct d2b_btf *unit = make_unit(u, k);	/* the same unit again */
		uint32_t i;

		if (!unit) {
			err = -ENOMEM;
			break;
		}
		for (i = 1; i < d2b_btf__end_id(unit); i++)
			maps[k][i] = final_map[maps[k][i]];
		if (check_unit_map(unit, out, maps[k], &verified))
			err = -EDOM;
		d2b_btf__free(unit);
	}
	if (verify)
		printf("# checked %lu (unit type, out type) pairs\n", verified);
	for (k = 0; maps && k < nunits; k++)
		free(maps[k]);
	free(maps);
	dedup__free(d);
	if (err) {
		d2b_btf__free(out);
		return err;
	}
	if (secs)
		*secs = total;
	*ret = out;
	return 0;
}

struct kind_counts {
	unsigned long n[D2B_KIND_MAX + 1];
};

static void count_kinds(const struct d2b_btf *b, struct kind_counts *ret)
{
	uint32_t id;

	memset(ret, 0, sizeof(*ret));
	for (id = d2b_btf__start_id(b); id < d2b_btf__end_id(b); id++)
		ret->n[d2b_kind(d2b_btf__type(b, id))]++;
}

/* Every kind of a no more frequent than in b; else print the kinds and fail. */
static bool counts_le(const struct kind_counts *a, const struct kind_counts *b, const char *what)
{
	bool le = true;
	unsigned int k;

	for (k = 0; k <= D2B_KIND_MAX; k++) {
		if (a->n[k] <= b->n[k])
			continue;
		printf("#   %s: %s %lu > %lu\n", what, d2b_kind_name(k), a->n[k], b->n[k]);
		le = false;
	}
	return le;
}

/*
 * Encode b, load it with libbpf and run btf__dedup(); numbers of types
 * before and after, and (if kinds is not NULL) libbpf's result per kind.
 */
static int libbpf_dedup_kinds(const struct d2b_btf *b, int *before, int *after,
			      struct kind_counts *kinds)
{
	struct d2b_btf *back = NULL;
	const void *raw;
	void *data = NULL;
	size_t size = 0;
	uint32_t raw_size;
	struct btf *lb;
	int err;

	err = d2b_btf__encode(b, &data, &size);
	if (err)
		return err;
	lb = btf__new(data, size);
	free(data);
	if (!lb)
		return -errno;
	*before = btf__type_cnt(lb) - 1;
	err = btf__dedup(lb, NULL);
	*after = btf__type_cnt(lb) - 1;
	if (!err && kinds) {
		raw = btf__raw_data(lb, &raw_size);
		err = raw ? d2b_btf__parse_raw(raw, raw_size, NULL, &back, NULL, 0) : -ENOMEM;
		if (!err)
			count_kinds(back, kinds);
		d2b_btf__free(back);
	}
	btf__free(lb);
	return err;
}

static int libbpf_dedup_count(const struct d2b_btf *b, int *before, int *after)
{
	return libbpf_dedup_kinds(b, before, after, NULL);
}

static const uint32_t NSTRUCTS = 300, NUNITS = 24;

static void test_libbpf_finds_nothing(void)
{
	struct universe u;
	struct d2b_btf *ours = NULL;
	int before = 0, after = 0;

	universe_init(&u, NSTRUCTS, 42, true);
	REQUIRE(merge_units(&u, NUNITS, false, &ours, NULL, false) == 0);
	CHECK_EQ(libbpf_dedup_count(ours, &before, &after), 0);
	printf("# ours: %d types; libbpf dedup of ours: %d\n", before, after);
	CHECK_EQ(after, before);
	CHECK_EQ((uint32_t)before, d2b_btf__nr_types(ours));
	d2b_btf__free(ours);
	free(u.s);
}

static void test_not_more_than_libbpf(void)
{
	struct universe u;
	struct d2b_btf *ours = NULL, *all = NULL;
	int ob = 0, oa = 0, ab = 0, aa = 0;
	struct kind_counts ours_k, lk;

	universe_init(&u, NSTRUCTS, 42, true);
	REQUIRE(merge_units(&u, NUNITS, false, &ours, NULL, false) == 0);
	REQUIRE(merge_units(&u, NUNITS, true, &all, NULL, false) == 0);
	CHECK_EQ(libbpf_dedup_count(ours, &ob, &oa), 0);
	CHECK_EQ(libbpf_dedup_kinds(all, &ab, &aa, &lk), 0);
	printf("# all units: %d types; libbpf dedup: %d; ours: %d\n", ab, aa, ob);
	count_kinds(ours, &ours_k);
	CHECK(counts_le(&ours_k, &lk, "ours vs libbpf"));
	CHECK(ab > ob);
	d2b_btf__free(ours);
	d2b_btf__free(all);
	free(u.s);
}

static void test_kernel_loads(void)
{
	struct universe u;
	struct d2b_btf *ours = NULL;
	union bpf_attr attr;
	void *data = NULL;
	size_t size = 0;
	long fd;

	universe_init(&u, NSTRUCTS, 42, true);
	REQUIRE(merge_units(&u, NUNITS, false, &ours, NULL, false) == 0);
	REQUIRE(d2b_btf__encode(ours, &data, &size) == 0);
	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)data;
	attr.btf_size = size;
	fd = syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
	if (fd < 0 && (errno == EPERM || errno == ENOSYS)) {
		printf("SKIP test_kernel_loads: BPF_BTF_LOAD not permitted (%s)\n", strerror(errno));
		free(data);
		d2b_btf__free(ours);
		free(u.s);
		exit(test_done());
	}
	if (fd < 0) {
		static char log[1 << 16];

		attr.btf_log_buf = (uintptr_t)log;
		attr.btf_log_size = sizeof(log);
		attr.btf_log_level = 1;
		syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
		printf("# kernel log (tail): %s\n", log + (strlen(log) > 400 ? strlen(log) - 400 : 0));
	}
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	free(data);
	d2b_btf__free(ours);
	free(u.s);
}

static int bench(const char *units_s)
{
	const char *ns_s = getenv("D2B_DEDUP_BENCH_STRUCTS");
	const char *vers = getenv("D2B_DEDUP_BENCH_VERSIONS");
	uint32_t nunits = strtoul(units_s, NULL, 0), ns = ns_s ? strtoul(ns_s, NULL, 0) : 430;
	struct universe u;
	struct d2b_btf *ours = NULL, *one;
	double secs = 0;
	int err;

	universe_init(&u, ns, 42, vers && *vers == '1');
	one = make_unit(&u, 0);
	printf("# bench: %u units of %u types (%u structs)\n", nunits,
	       one ? d2b_btf__nr_types(one) : 0, ns);
	d2b_btf__free(one);
	err = merge_units(&u, nunits, false, &ours, &secs, false);
	if (err) {
		printf("FAIL dedup_bench: %s\n", strerror(-err));
		return 1;
	}
	printf("# bench: %u types out, %.3f s in dedup (unit generation not counted)\n",
	       d2b_btf__nr_types(ours), secs);
	printf("PASS dedup_bench\n");
	d2b_btf__free(ours);
	free(u.s);
	return 0;
}

/* Each unit's types mean the same after merging: nothing was over-merged. */
static void test_meaning_kept(void)
{
	struct universe u;
	struct d2b_btf *ours = NULL;
	int versions;

	for (versions = 0; versions < 2; versions++) {
		universe_init(&u, NSTRUCTS, 7 + versions, versions);
		CHECK_EQ(merge_units(&u, NUNITS, false, &ours, NULL, true), 0);
		d2b_btf__free(ours);
		free(u.s);
	}
}

/* The checker itself: a map with one struct pointed at another fails. */
static void test_checker_catches(void)
{
	struct universe u;
	struct d2b_btf *unit, *out = d2b_btf__new(NULL);
	const uint32_t *final_map = NULL;
	struct dedup *d = NULL;
	uint32_t *map, i, a = 0, b = 0;
	unsigned long pairs = 0;

	universe_init(&u, 50, 3, false);
	unit = make_unit(&u, 0);
	REQUIRE(unit && out);
	map = calloc(d2b_btf__end_id(unit), sizeof(*map));
	REQUIRE(map);
	REQUIRE(dedup__new(out, NULL, &d) == 0);
	CHECK_EQ(dedup__add_unit(d, unit, map), 0);
	CHECK_EQ(dedup__finish(d, &final_map), 0);
	for (i = 1; i < d2b_btf__end_id(unit); i++) {
		map[i] = final_map[map[i]];
		if (d2b_kind(d2b_btf__type(unit, i)) == D2B_KIND_STRUCT)
			*(a ? &b : &a) = i;
	}
	CHECK_EQ(check_unit_map(unit, out, map, &pairs), 0);
	REQUIRE(a && b);
	map[a] = map[b];
	CHECK(check_unit_map(unit, out, map, &pairs) != 0);
	dedup__free(d);
	free(map);
	d2b_btf__free(unit);
	d2b_btf__free(out);
	free(u.s);
}

/* ---- the table of test_dedup.c against libbpf ---- */

/*
 * Merge a case's units (all appended with append_only); maps (NULL if
 * unwanted): maps[k] as dedup__add_unit's, made final.
 */
static int merge_case(const struct dcase *c, bool append_only, struct d2b_btf **units,
		      uint32_t **maps, struct d2b_btf **ret)
{
	struct dedup_opts opts = { .append_only = append_only };
	struct d2b_btf *out = d2b_btf__new(NULL);
	const uint32_t *final_map = NULL;
	struct dedup *d = NULL;
	uint32_t i;
	int k, err;

	*ret = NULL;
	if (!out)
		return -ENOMEM;
	err = dedup__new(out, &opts, &d);
	for (k = 0; !err && k < c->nunits; k++)
		err = dedup__add_unit(d, units[k], maps ? maps[k] : NULL);
	if (!err)
		err = dedup__finish(d, &final_map);
	for (k = 0; !err && maps && k < c->nunits; k++) {
		for (i = 1; i < d2b_btf__end_id(units[k]); i++)
			maps[k][i] = final_map[maps[k][i]];
	}
	dedup__free(d);
	if (err) {
		d2b_btf__free(out);
		return err;
	}
	*ret = out;
	return 0;
}

static void table_case(const struct dcase *c)
{
	struct d2b_btf *units[MAX_UNITS] = { 0 }, *ours = NULL, *all = NULL;
	uint32_t *maps[MAX_UNITS] = { 0 };
	struct kind_counts ours_k, lk;
	unsigned long pairs = 0;
	int k, err, ob = 0, oa = 0, ab = 0, aa = 0;

	build_err = 0;
	for (k = 0; k < c->nunits; k++) {
		units[k] = d2b_btf__new(NULL);
		if (!units[k])
			goto out;
		c->build(units[k], k);
		maps[k] = calloc(d2b_btf__end_id(units[k]), sizeof(**maps));
		if (!maps[k])
			goto out;
	}
	CHECK_EQ(build_err, 0);
	if (merge_case(c, false, units, maps, &ours) || merge_case(c, true, units, NULL, &all)) {
		printf("#   %s: dedup failed\n", c->name);
		test_failed_now = 1;
		goto out;
	}
	for (k = 0; k < c->nunits; k++) {
		if (check_unit_map(units[k], ours, maps[k], &pairs)) {
			printf("#   %s: unit %d lost a type's meaning\n", c->name, k);
			test_failed_now = 1;
		}
	}
	err = libbpf_dedup_kinds(all, &ab, &aa, &lk);
	if (err) {
		/* reference_cycle_terminates: malformed on purpose */
		printf("#   %s: libbpf refuses the units (%s): not compared\n", c->name, strerror(-err));
		goto out;
	}
	CHECK_EQ(libbpf_dedup_count(ours, &ob, &oa), 0);
	count_kinds(ours, &ours_k);
	if (!counts_le(&ours_k, &lk, c->name) || oa != ob) {
		printf("#   %s: ours %d types (libbpf's dedup of ours: %d), libbpf %d\n", c->name,
		       ob, oa, aa);
		test_failed_now = 1;
	}
out:
	for (k = 0; k < MAX_UNITS; k++) {
		d2b_btf__free(units[k]);
		free(maps[k]);
	}
	d2b_btf__free(ours);
	d2b_btf__free(all);
}

static void test_table_not_more_than_libbpf(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!cases[i].append_only)
			table_case(&cases[i]);
	}
}

int main(void)
{
	const char *b = getenv("D2B_DEDUP_BENCH");

	if (b)
		return bench(b);
	RUN(test_checker_catches);
	RUN(test_meaning_kept);
	RUN(test_libbpf_finds_nothing);
	RUN(test_not_more_than_libbpf);
	RUN(test_table_not_more_than_libbpf);
	RUN(test_kernel_loads);
	return test_done();
}
