// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Table-driven tests of dedup.c: each case builds a list of units with the
 * builder API and gives the expected output in a compact dump format:
 *
 *	[2] STRUCT 'foo' size=8 'next':3@0
 *
 * Every case runs twice, normally and with force_collisions (all hashes
 * equal: the equality checks alone must decide), and is checked for
 * determinism (a second run gives a byte-identical encoding), for strings
 * (out holds only referenced strings) and for the unit -> out maps (every
 * unit type maps to an out type of its kind, or FWD -> its definition).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "merge/dedup.h"
#include "base/strtab.h"
#include "dedup_cases.h"
#include "test.h"

/* ---- compact dump ---- */

static void dump_type(const struct d2b_btf *b, uint32_t id, FILE *f)
{
	const struct d2b_type *t = d2b_btf__type(b, id);
	unsigned int i, vlen = d2b_vlen(t), kind = d2b_kind(t);

	fprintf(f, "[%u] %s", id, d2b_kind_name(kind));
	if (t->name_off || kind == D2B_KIND_STRUCT || kind == D2B_KIND_UNION ||
	    kind == D2B_KIND_ENUM || kind == D2B_KIND_ENUM64)
		fprintf(f, " '%s'", d2b_btf__str(b, t->name_off));
	switch (kind) {
	case D2B_KIND_INT:
		fprintf(f, " size=%u enc=%u", t->size, d2b_int_encoding(btf_int_word(t)));
		break;
	case D2B_KIND_FLOAT:
		fprintf(f, " size=%u", t->size);
		break;
	case D2B_KIND_PTR:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_CONST:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_TYPE_TAG:
		fprintf(f, " type=%u", t->type);
		break;
	case D2B_KIND_FUNC:
		fprintf(f, " type=%u linkage=%u", t->type, vlen);
		break;
	case D2B_KIND_DECL_TAG:
		fprintf(f, " type=%u idx=%d", t->type, btf_decl_tag_idx(t));
		break;
	case D2B_KIND_ARRAY:
		fprintf(f, " elem=%u idx=%u n=%u", btf_array(t)->type, btf_array(t)->index_type,
			btf_array(t)->nelems);
		break;
	case D2B_KIND_FWD:
		fprintf(f, " %s", d2b_kflag(t) ? "union" : "struct");
		break;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		fprintf(f, " size=%u", t->size);
		for (i = 0; i < vlen; i++) {
			const struct d2b_member *m = &btf_members(t)[i];

			fprintf(f, " '%s':%u@%u", d2b_btf__str(b, m->name_off), m->type,
				d2b_member_bit_offset(t, m));
			if (d2b_member_bitfield_size(t, m))
				fprintf(f, ":%u", d2b_member_bitfield_size(t, m));
		}
		break;
	case D2B_KIND_ENUM:
		fprintf(f, " size=%u", t->size);
		for (i = 0; i < vlen; i++)
			fprintf(f, " '%s'=%d", d2b_btf__str(b, btf_enums(t)[i].name_off),
				btf_enums(t)[i].val);
		break;
	case D2B_KIND_ENUM64:
		fprintf(f, " size=%u", t->size);
		for (i = 0; i < vlen; i++)
			fprintf(f, " '%s'=%llu", d2b_btf__str(b, btf_enums64(t)[i].name_off),
				(unsigned long long)btf_enum64_val(&btf_enums64(t)[i]));
		break;
	case D2B_KIND_FUNC_PROTO:
		fprintf(f, " ret=%u", t->type);
		for (i = 0; i < vlen; i++)
			fprintf(f, " '%s':%u", d2b_btf__str(b, btf_params(t)[i].name_off),
				btf_params(t)[i].type);
		break;
	default:
		break;
	}
	fputc('\n', f);
}

static char *dump_btf(const struct d2b_btf *b)
{
	uint32_t id, end = d2b_btf__end_id(b);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (id = d2b_btf__start_id(b); id < end; id++)
		dump_type(b, id, f);
	fclose(f);
	return buf;
}

/* ---- generic checks ---- */

/* Every string of btf's own table is referenced by one of its own types. */
static void check_strings(const struct d2b_btf *b)
{
	uint32_t start = btf_start_str(b), size = btf_end_str(b) - start, id, off;
	const char *data = strtab__data(btf_strtab(b));
	unsigned char *used = calloc(size + 1, 1);

	REQUIRE(used);
	for (id = d2b_btf__start_id(b); id < d2b_btf__end_id(b); id++) {
		struct d2b_type *t = (struct d2b_type *)d2b_btf__type(b, id);
		struct btf_field_iter it;
		uint32_t *p;

		btf_field_iter__init(&it, t, BTF_FIELD_STRS);
		while ((p = btf_field_iter__next(&it))) {
			if (*p >= start && *p - start < size)
				used[*p - start] = 1;
		}
	}
	for (off = 1; off < size; off += strlen(data + off) + 1) {
		if (!used[off])
			printf("#   unreferenced string '%s'\n", data + off);
		CHECK(used[off]);
	}
	free(used);
}

/* The unit type u maps to an out type of the same kind (or a FWD to its definition). */
static void check_map(const struct d2b_btf *unit, uint32_t u, const struct d2b_btf *out, uint32_t o)
{
	const struct d2b_type *a = d2b_btf__type(unit, u), *b = d2b_btf__type(out, o);
	unsigned int ka, kb;

	REQUIRE(b);
	ka = d2b_kind(a);
	kb = d2b_kind(b);
	if (ka == kb || (ka == D2B_KIND_FWD && (kb == D2B_KIND_STRUCT || kb == D2B_KIND_UNION)))
		return;
	printf("#   unit type %u (%s) mapped to %u (%s)\n", u, d2b_kind_name(ka), o, d2b_kind_name(kb));
	CHECK(ka == kb);
}

/* run_dedup()'s base index: 0 made by dedup__new(); 1 deferred and made
 * by the first unit's merge; 2 deferred and made by dedup__index_base() */
static int run_defer;

/* run_dedup()'s units, and the work BTF, are over this names base, or not */
static const struct d2b_btf *run_names;

/* c's units, over names or nothing, and a zeroed map for each: 0, the
 * builders' error, or -ENOMEM; the caller frees them (free_units()). */
static int build_units(const struct dcase *c, const struct d2b_btf *names,
		       struct d2b_btf **units, uint32_t **maps)
{
	int k;

	build_err = 0;
	for (k = 0; k < c->nunits; k++) {
		units[k] = d2b_btf__new(names);
		if (!units[k])
			return -ENOMEM;
		c->build(units[k], k);
		maps[k] = calloc(d2b_btf__end_id(units[k]), sizeof(uint32_t));
		if (!maps[k])
			return -ENOMEM;
	}
	return build_err;
}

static void free_units(struct d2b_btf **units, uint32_t **maps)
{
	int k;

	for (k = 0; k < MAX_UNITS; k++) {
		d2b_btf__free(units[k]);
		free(maps[k]);
	}
}

/*
 * Each unit type's ID in the output, per unit (fin[k][u], for unit k's type
 * u; fin[k][0]: the unit's end ID), where fin is not NULL: through the
 * merge's map and the final one.  The caller frees fin's arrays
 * (free_fin()).
 */
static int keep_fin(const struct dcase *c, struct d2b_btf **units, uint32_t **maps,
		    const uint32_t *final_map, uint32_t **fin)
{
	uint32_t u;
	int k;

	for (k = 0; fin && k < c->nunits; k++) {
		fin[k] = calloc(d2b_btf__end_id(units[k]), sizeof(uint32_t));
		if (!fin[k])
			return -ENOMEM;
		fin[k][0] = d2b_btf__end_id(units[k]);
		for (u = 1; u < d2b_btf__end_id(units[k]); u++)
			fin[k][u] = final_map[maps[k][u]];
	}
	return 0;
}

static void free_fin(uint32_t **fin)
{
	int k;

	for (k = 0; k < MAX_UNITS; k++) {
		free(fin[k]);
		fin[k] = NULL;
	}
}

static int run_dedup(const struct dcase *c, bool force, const struct d2b_btf *base,
		     struct d2b_btf **ret, bool check, uint32_t **fin)
{
	struct dedup_opts opts = { .force_collisions = force, .append_only = c->append_only,
				   .defer_base_index = run_defer != 0,
				   .names = base ? NULL : run_names };
	struct d2b_btf *units[MAX_UNITS] = { 0 }, *out = d2b_btf__new(base);
	uint32_t *maps[MAX_UNITS] = { 0 };
	const uint32_t *final_map;
	struct dedup *d = NULL;
	int k, err = -ENOMEM;
	uint32_t u;

	*ret = NULL;
	if (!out)
		return -ENOMEM;
	err = build_units(c, opts.names, units, maps);
	if (err)
		goto out;
	err = dedup__new(out, &opts, &d);
	if (!err && run_defer == 2)
		err = dedup__index_base(d);
	for (k = 0; !err && k < c->nunits; k++)
		err = dedup__add_unit(d, units[k], maps[k]);
	if (!err)
		err = dedup__finish(d, &final_map);
	if (err)
		goto out;
	for (k = 0; check && k < c->nunits; k++) {
		for (u = 1; u < d2b_btf__end_id(units[k]); u++)
			check_map(units[k], u, out, final_map[maps[k][u]]);
	}
	err = keep_fin(c, units, maps, final_map, fin);
	if (err)
		goto out;
	*ret = out;
	out = NULL;
out:
	dedup__free(d);
	d2b_btf__free(out);
	free_units(units, maps);
	return err;
}

/*
 * run_dedup() with the units in groups of gsize (dedup__new_group()),
 * merged into the dedup in order, over run_names; the units' maps go
 * through the group's.  A group the dedup does not take (-EAGAIN) has its
 * units merged into it one by one, as a conversion does; *conflicts
 * counts those groups.
 */
static int run_dedup_groups(const struct dcase *c, bool force, int gsize, struct d2b_btf **ret,
			    int *conflicts, uint32_t **fin)
{
	struct dedup_opts opts = { .force_collisions = force, .append_only = c->append_only,
				   .names = run_names };
	struct d2b_btf *units[MAX_UNITS] = { 0 }, *out = d2b_btf__new(NULL);
	uint32_t *maps[MAX_UNITS] = { 0 }, *gmap = NULL;
	struct dedup *d = NULL, *g = NULL;
	const uint32_t *final_map;
	int k, j, first = 0, err = -ENOMEM;
	uint32_t u;

	*ret = NULL;
	if (!out)
		return -ENOMEM;
	err = build_units(c, opts.names, units, maps) ?: dedup__new(out, &opts, &d);
	for (k = 0; !err && k < c->nunits; k++) {
		if (!g)
			err = dedup__new_group(d, &g);
		if (!err)
			err = dedup__add_unit(g, units[k], maps[k]);
		if (err || (k + 1 - first < gsize && k + 1 < c->nunits))
			continue;
		/* the group is whole: into d, and its units' maps through it */
		free(gmap);
		gmap = calloc(d2b_btf__end_id(dedup__btf(g)), sizeof(*gmap));
		err = gmap ? dedup__add_group(d, g, gmap) : -ENOMEM;
		for (j = first; !err && j <= k; j++) {
			for (u = 1; u < d2b_btf__end_id(units[j]); u++)
				maps[j][u] = gmap[maps[j][u]];
		}
		if (err == -EAGAIN) {
			++*conflicts;
			for (err = 0, j = first; !err && j <= k; j++)
				err = dedup__add_unit(d, units[j], maps[j]);
		}
		dedup__free(g);
		g = NULL;
		first = k + 1;
	}
	if (!err)
		err = dedup__finish(d, &final_map);
	for (k = 0; !err && k < c->nunits; k++) {
		for (u = 1; u < d2b_btf__end_id(units[k]); u++)
			check_map(units[k], u, out, final_map[maps[k][u]]);
	}
	if (!err)
		err = keep_fin(c, units, maps, final_map, fin);
	if (!err) {
		*ret = out;
		out = NULL;
	}
	dedup__free(g);
	dedup__free(d);
	free(gmap);
	d2b_btf__free(out);
	free_units(units, maps);
	return err;
}

static bool same_encoding(const struct d2b_btf *a, const struct d2b_btf *b)
{
	void *da = NULL, *db = NULL;
	size_t la = 0, lb = 0;
	bool same;

	if (d2b_btf__encode(a, &da, &la) || d2b_btf__encode(b, &db, &lb))
		same = false;
	else
		same = la == lb && memcmp(da, db, la) == 0;
	free(da);
	free(db);
	return same;
}

/*
 * A names base holding some of the cases' names (the others stay the
 * units' own), then pad bytes of filler names.
 */
static struct d2b_btf *make_names(size_t pad)
{
	static const char names[] = "int\0foo\0bar\0next\0s1\0long\0char\0e\0";
	struct d2b_btf *b;
	size_t i, len;
	char *buf;

	len = sizeof(names) + pad;
	buf = malloc(len);
	if (!buf)
		return NULL;
	memcpy(buf, names, sizeof(names));
	for (i = sizeof(names); i < len; i++)
		buf[i] = i % 8 == 7 ? '\0' : (char)('a' + i % 23);
	b = btf_new_names(buf, len);
	free(buf);
	return b;
}

static void run_case(const struct dcase *c, bool force)
{
	struct d2b_btf *out = NULL, *again = NULL;
	uint32_t *fin1[MAX_UNITS] = { 0 }, *fin[MAX_UNITS] = { 0 };
	char *dump = NULL;
	int err, n, gs, k;
	int conflicts;

	test_failed_now = 0;
	err = run_dedup(c, force, NULL, &out, true, NULL);
	if (err) {
		printf("#   dedup failed: %s\n", strerror(-err));
		test_failed_now = 1;
		goto out;
	}
	dump = dump_btf(out);
	if (!dump || strcmp(dump, c->expect)) {
		printf("#   got:\n%s#   expected:\n%s", dump ? dump : "(null)\n", c->expect);
		test_failed_now = 1;
	}
	check_strings(out);
	err = run_dedup(c, force, NULL, &again, false, NULL);
	if (err || !same_encoding(out, again)) {
		printf("#   second run differs\n");
		test_failed_now = 1;
	}
	d2b_btf__free(again);
	again = NULL;
	/* units over a names base, as a conversion makes them, give the same
	 * output: over a small one, and over one so large that the final
	 * merge maps its strings sparsely */
	for (n = 0; n < 2; n++) {
		run_names = make_names(n ? 1 << 17 : 0);
		err = run_names ? run_dedup(c, force, NULL, &again, true, n ? NULL : fin1) :
				  -ENOMEM;
		if (err || !same_encoding(out, again)) {
			printf("#   over a names base of %s: %s\n", n ? "128 KiB" : "a few names",
			       err ? strerror(-err) : "the output differs");
			test_failed_now = 1;
		}
		d2b_btf__free(again);
		again = NULL;
		/* in groups of every size: the same bytes, and every unit
		 * type mapped to the same output type, a group that
		 * conflicts (-EAGAIN) being merged one by one after those
		 * before it; only a case marked group_conflict conflicts, for
		 * some size at least (the mark is still needed) */
		conflicts = 0;
		for (gs = 1; n == 0 && gs < c->nunits; gs++) {
			int had = conflicts;

			err = run_dedup_groups(c, force, gs, &again, &conflicts, fin);
			if (conflicts > had && !c->group_conflict) {
				printf("#   in groups of %d: a group conflicts\n", gs);
				test_failed_now = 1;
			}
			if (err || !same_encoding(out, again)) {
				char *d2 = again ? dump_btf(again) : NULL;

				printf("#   in groups of %d: %s\n%s", gs,
				       err ? strerror(-err) : "the output differs", d2 ? d2 : "");
				free(d2);
				test_failed_now = 1;
			}
			for (k = 0; !err && fin1[k] && k < c->nunits; k++) {
				uint32_t u;

				for (u = 1; u < fin1[k][0] && fin[k][u] == fin1[k][u]; u++)
					;
				if (u < fin1[k][0]) {
					printf("#   in groups of %d: unit %d's type %u is [%u], "
					       "not [%u]\n", gs, k, u, fin[k][u], fin1[k][u]);
					test_failed_now = 1;
				}
			}
			free_fin(fin);
			d2b_btf__free(again);
			again = NULL;
		}
		if (n == 0 && c->group_conflict && !conflicts) {
			printf("#   marked group_conflict, but no grouping conflicts\n");
			test_failed_now = 1;
		}
		d2b_btf__free((struct d2b_btf *)run_names);
		run_names = NULL;
	}
out:
	printf("%s dedup_%s%s%s\n", test_failed_now ? "FAIL" : "PASS", c->name,
	       force ? "_collisions" : "", test_failed_now ? ": see above" : "");
	test_nfail += test_failed_now;
	free(dump);
	d2b_btf__free(out);
	d2b_btf__free(again);
	free_fin(fin1);
}

/* ---- split BTF ---- */

/* base: int, struct foo, FWD bar, bar *, struct holder { bar * } */
static struct d2b_btf *make_base(void)
{
	struct d2b_btf *b = d2b_btf__new(NULL);

	if (!b)
		return NULL;
	build_err = 0;
	INT(b, "int");				/* 1 */
	STRUCT(b, "foo", 4);			/* 2 */
	MEMBER(b, "x", 1, 0);
	FWD(b, "bar");				/* 3 */
	PTR(b, 3);				/* 4 */
	STRUCT(b, "holder", 8);			/* 5 */
	MEMBER(b, "b", 4, 0);
	if (build_err) {
		d2b_btf__free(b);
		return NULL;
	}
	return b;
}

/* a module unit: the base's types plus a definition of struct bar */
static void b_module(struct d2b_btf *u, int k)
{
	uint32_t i, foo, bar, pb, pf;

	if (k == 0) {
		i = INT(u, "int");
		foo = STRUCT(u, "foo", 4);
		MEMBER(u, "x", i, 0);
		pf = PTR(u, foo);
		bar = STRUCT(u, "bar", 8);
		MEMBER(u, "f", pf, 0);
		pb = PTR(u, bar);
		STRUCT(u, "holder", 8);
		MEMBER(u, "b", pb, 0);
		STRUCT(u, "module_only", 8);
		MEMBER(u, "b", pb, 0);
	} else {
		/* only a declaration: must become the base's FWD */
		bar = FWD(u, "bar");
		PTR(u, bar);
		FWD(u, "foo");			/* the base defines foo */
		PTR(u, 3);
	}
}

static const struct dcase split_case = {
	"split", 2, b_module,
	/* holder and the FWD bar are the base's; FWD foo resolves to the base's foo */
	"[6] PTR type=2\n"
	"[7] STRUCT 'bar' size=8 'f':6@0\n"
	"[8] PTR type=7\n"
	"[9] STRUCT 'module_only' size=8 'b':8@0\n"
};

/* A module unit built over the base itself (as dwarf2btf builds them):
 * the same result as the standalone unit; over another base: refused. */
static void build_module_unit(struct d2b_btf *u)
{
	uint32_t i = INT(u, "int"), foo, pf;

	foo = STRUCT(u, "foo", 4);
	MEMBER(u, "x", i, 0);
	pf = PTR(u, foo);
	STRUCT(u, "module_only", 8);
	MEMBER(u, "f", pf, 0);
}

static int merge_one(const struct d2b_btf *unit, struct d2b_btf *out)
{
	struct dedup_opts opts = { 0 };
	uint32_t *map = calloc(d2b_btf__end_id(unit), sizeof(*map));
	struct dedup *d = NULL;
	int err;

	err = map ? dedup__new(out, &opts, &d) : -ENOMEM;
	if (!err)
		err = dedup__add_unit(d, unit, map);
	if (!err)
		err = dedup__finish(d, NULL);
	dedup__free(d);
	free(map);
	return err;
}

static void test_split_units_over_base(void)
{
	struct d2b_btf *base = make_base(), *other = make_base();
	struct d2b_btf *u_own = d2b_btf__new(NULL), *u_split, *u_other;
	struct d2b_btf *out1 = NULL, *out2 = NULL, *out3 = NULL;
	char *dump = NULL;

	REQUIRE(base && other && u_own);
	u_split = d2b_btf__new(base);
	u_other = d2b_btf__new(other);
	out1 = d2b_btf__new(base);
	out2 = d2b_btf__new(base);
	out3 = d2b_btf__new(base);
	REQUIRE(u_split && u_other && out1 && out2 && out3);
	build_err = 0;
	build_module_unit(u_own);
	build_module_unit(u_split);
	build_module_unit(u_other);
	REQUIRE(!build_err);
	CHECK_EQ(merge_one(u_own, out1), 0);
	CHECK_EQ(merge_one(u_split, out2), 0);
	CHECK_EQ(merge_one(u_other, out3), -EINVAL);
	CHECK(same_encoding(out1, out2));
	dump = dump_btf(out2);
	CHECK_STR(dump ? dump : "", "[6] PTR type=2\n[7] STRUCT 'module_only' size=8 'f':6@0\n");
	free(dump);
	d2b_btf__free(out1);
	d2b_btf__free(out2);
	d2b_btf__free(out3);
	d2b_btf__free(u_own);
	d2b_btf__free(u_split);
	d2b_btf__free(u_other);
	d2b_btf__free(other);
	d2b_btf__free(base);
}

/*
 * A split unit read from a file may repeat its base's strings among its
 * own (here "holder"): the merge must still find them in the base, while a
 * unit built over the base (its own strings looked for there first) is
 * trusted to hold none of them.
 */
static void test_split_unit_strings_from_file(void)
{
	struct d2b_btf *base = make_base(), *unit = NULL, *out = NULL;
	struct d2b_header h = {
		.magic = D2B_BTF_MAGIC, .version = 1, .hdr_len = 24,
		.type_off = 0, .type_len = 12, .str_off = 12, .str_len = 8,
	};
	uint32_t blob[6 + 3 + 2];
	const struct d2b_type *t;
	char err[256];

	REQUIRE(base);
	memcpy(blob, &h, sizeof(h));
	blob[6] = btf_end_str(base) + 1;	/* "holder", again */
	blob[7] = d2b_info(D2B_KIND_STRUCT, false, 0);
	blob[8] = 2;
	memcpy(&blob[9], "\0holder", 8);	/* (with its final NUL) */
	CHECK_EQ(d2b_btf__parse_raw(blob, sizeof(blob), base, &unit, err, sizeof(err)), 0);
	REQUIRE(unit);
	CHECK(!btf_strs_apart(unit));
	out = d2b_btf__new(base);
	REQUIRE(out);
	CHECK_EQ(merge_one(unit, out), 0);
	t = d2b_btf__type(out, d2b_btf__start_id(out));
	REQUIRE(t);
	CHECK_STR(d2b_btf__str(out, t->name_off), "holder");
	CHECK(t->name_off < btf_start_str(out));	/* the base's copy */
	CHECK_EQ(strtab__size(btf_strtab(out)), 1);	/* none of its own */
	d2b_btf__free(out);
	d2b_btf__free(unit);
	d2b_btf__free(base);
}

static void test_split(bool force)
{
	struct d2b_btf *base = make_base(), *out = NULL, *again = NULL;
	char *dump = NULL, *base_before = NULL, *base_after = NULL;
	int err;

	test_failed_now = 0;
	if (!base) {
		test_failed_now = 1;
		goto out;
	}
	base_before = dump_btf(base);
	err = run_dedup(&split_case, force, base, &out, true, NULL);
	if (err) {
		printf("#   dedup failed: %s\n", strerror(-err));
		test_failed_now = 1;
		goto out;
	}
	dump = dump_btf(out);
	if (!dump || strcmp(dump, split_case.expect)) {
		printf("#   got:\n%s#   expected:\n%s", dump ? dump : "(null)\n", split_case.expect);
		test_failed_now = 1;
	}
	base_after = dump_btf(base);
	CHECK(base_before && base_after && !strcmp(base_before, base_after));
	CHECK_EQ(d2b_btf__start_id(out), 6);
	check_strings(out);
	/* no base string is duplicated in the split table */
	CHECK(strtab__find(btf_strtab(out), "int") < 0);
	CHECK(strtab__find(btf_strtab(out), "bar") < 0);
	err = run_dedup(&split_case, force, base, &again, false, NULL);
	CHECK(!err && same_encoding(out, again));
	/* the base's index made later (on a thread, in convert.c) */
	for (run_defer = 1; run_defer <= 2; run_defer++) {
		d2b_btf__free(again);
		again = NULL;
		err = run_dedup(&split_case, force, base, &again, false, NULL);
		CHECK(!err && same_encoding(out, again));
	}
	run_defer = 0;
out:
	printf("%s dedup_split%s%s\n", test_failed_now ? "FAIL" : "PASS", force ? "_collisions" : "",
	       test_failed_now ? ": see above" : "");
	test_nfail += test_failed_now;
	free(dump);
	free(base_before);
	free(base_after);
	d2b_btf__free(out);
	d2b_btf__free(again);
	d2b_btf__free(base);
}

/*
 * The unnamed PTR/CONST/VOLATILE/RESTRICT types take an exact index in
 * place of the hash one: over a base that holds duplicates (the base is not
 * ours to deduplicate), each maps to the first of equal types, as the hash
 * index answers; a named PTR is no unnamed one; a type made by one unit
 * is found by the next.
 */
static void over_unit(struct d2b_btf *u, int k, uint32_t *ptr)
{
	uint32_t i = INT(u, "int"), p = PTR(u, i);

	CONST(u, i);						/* base 4 */
	ok(d2b_btf__add_ref(u, D2B_KIND_VOLATILE, NULL, p));	/* base 6 */
	ok(d2b_btf__add_ref(u, D2B_KIND_RESTRICT, NULL, p));	/* new */
	*ptr = PTR(u, p);					/* new */
	/* typedefs: over int, the base's first is 'pint'; over int *, the
	 * base has none, and the first of the output is 'x' */
	ok(d2b_btf__add_ref(u, D2B_KIND_TYPEDEF, "pint", i));	/* base 7 */
	ok(d2b_btf__add_ref(u, D2B_KIND_TYPEDEF, "other", i));	/* new */
	ok(d2b_btf__add_ref(u, D2B_KIND_TYPEDEF, k ? "y" : "x", p));	/* new */
	ok(d2b_btf__add_ref(u, D2B_KIND_TYPEDEF, "x", p));	/* new, then the first */
}

static void test_over_index(bool force)
{
	struct dedup_opts opts = { .force_collisions = force };
	struct d2b_btf *base = d2b_btf__new(NULL), *out = NULL, *u[2] = { 0 };
	uint32_t *map[2] = { 0 }, pp[2];
	const uint32_t *fin = NULL;
	struct dedup *d = NULL;
	char *dump = NULL;
	int k, err;

	REQUIRE(base);
	build_err = 0;
	INT(base, "int");					/* 1 */
	PTR(base, 1);						/* 2 */
	PTR(base, 1);						/* 3: a duplicate */
	CONST(base, 1);						/* 4 */
	CONST(base, 1);						/* 5 */
	ok(d2b_btf__add_ref(base, D2B_KIND_VOLATILE, NULL, 2));	/* 6 */
	ok(d2b_btf__add_ref(base, D2B_KIND_TYPEDEF, "pint", 1));	/* 7 */
	out = d2b_btf__new(base);
	for (k = 0; k < 2; k++) {
		u[k] = d2b_btf__new(NULL);
		REQUIRE(u[k]);
		over_unit(u[k], k, &pp[k]);
		map[k] = calloc(d2b_btf__end_id(u[k]), sizeof(*map[k]));
		REQUIRE(map[k]);
	}
	REQUIRE(out && !build_err);
	err = dedup__new(out, &opts, &d);
	for (k = 0; !err && k < 2; k++)
		err = dedup__add_unit(d, u[k], map[k]);
	if (!err)
		err = dedup__finish(d, &fin);
	CHECK_EQ(err, 0);
	if (!err) {
		dump = dump_btf(out);
		CHECK_STR(dump ? dump : "", "[8] RESTRICT type=2\n[9] PTR type=2\n"
			  "[10] TYPEDEF 'other' type=1\n[11] TYPEDEF 'x' type=2\n"
			  "[12] TYPEDEF 'y' type=2\n");
		for (k = 0; k < 2; k++) {
			CHECK_EQ(fin[map[k][2]], 2);	/* PTR int: the first */
			CHECK_EQ(fin[map[k][3]], 4);	/* CONST int: the first */
			CHECK_EQ(fin[map[k][4]], 6);
			CHECK_EQ(fin[map[k][5]], 8);
			CHECK_EQ(fin[map[k][pp[k]]], 9);
			CHECK_EQ(fin[map[k][7]], 7);	/* 'pint' */
			CHECK_EQ(fin[map[k][8]], 10);	/* 'other' */
			CHECK_EQ(fin[map[k][9]], k ? 12 : 11);
			CHECK_EQ(fin[map[k][10]], 11);	/* 'x' */
		}
	}
	free(dump);
	dedup__free(d);
	for (k = 0; k < 2; k++) {
		d2b_btf__free(u[k]);
		free(map[k]);
	}
	d2b_btf__free(out);
	d2b_btf__free(base);
}

static void test_over_index_plain(void)
{
	test_over_index(false);
}

static void test_over_index_collisions(void)
{
	test_over_index(true);
}

/* ---- API misuse ---- */

static void test_errors(void)
{
	struct d2b_btf *out = d2b_btf__new(NULL), *unit = d2b_btf__new(NULL), *busy = d2b_btf__new(NULL);
	struct dedup *d = NULL;
	uint32_t map[4];

	REQUIRE(out && unit && busy);
	CHECK(d2b_btf__add_int(busy, "int", 4, 0) > 0);
	CHECK_EQ(dedup__new(busy, NULL, &d), -EINVAL);
	CHECK(d == NULL);
	REQUIRE(dedup__new(out, NULL, &d) == 0);
	/* a unit referring past its end */
	CHECK(d2b_btf__add_ref(unit, D2B_KIND_PTR, NULL, 7) > 0);
	CHECK_EQ(dedup__add_unit(d, unit, map), -EINVAL);
	CHECK_EQ(dedup__finish(d, NULL), -EINVAL);	/* failed before */
	dedup__free(d);
	d = NULL;
	REQUIRE(dedup__new(out, NULL, &d) == 0);
	CHECK_EQ(dedup__finish(d, NULL), 0);
	CHECK_EQ(dedup__finish(d, NULL), -EINVAL);	/* twice */
	CHECK_EQ(dedup__add_unit(d, busy, NULL), -EINVAL);	/* after finish */
	dedup__free(d);
	dedup__free(NULL);
	d2b_btf__free(out);
	d2b_btf__free(unit);
	d2b_btf__free(busy);
}

static void test_stats(void)
{
	struct d2b_btf *out = NULL;
	const struct dcase *c = &cases[0];
	struct dedup_opts opts = { 0 };
	struct d2b_btf *u0 = d2b_btf__new(NULL), *u1 = d2b_btf__new(NULL);
	struct dedup_stats st;
	struct dedup *d = NULL;
	double units_s = 0, final_s = 0, before_s = 0;
	int k;

	out = d2b_btf__new(NULL);
	REQUIRE(out && u0 && u1);
	c->build(u0, 0);
	c->build(u1, 1);
	REQUIRE(dedup__new(out, &opts, &d) == 0);
	CHECK_EQ(dedup__add_unit(d, u0, NULL), 0);
	CHECK_EQ(dedup__add_unit(d, u1, NULL), 0);
	dedup__stats(d, &st);
	for (k = 0; k < DEDUP_NR_STEPS; k++)
		before_s += st.unit_s[k];
	CHECK_EQ(dedup__finish(d, NULL), 0);
	dedup__stats(d, &st);
	/* every step timed, the units' merges and the final one apart */
	for (k = 0; k < DEDUP_NR_STEPS; k++) {
		CHECK(st.unit_s[k] >= 0 && st.final_s[k] >= 0);
		units_s += st.unit_s[k];
		final_s += st.final_s[k];
	}
	CHECK(before_s > 0);
	CHECK(units_s == before_s);
	CHECK(final_s > 0);
	CHECK(st.unit_s[DEDUP_STEP_COMPOSITES] > 0);
	CHECK(st.final_s[DEDUP_STEP_INDEX] == 0);	/* the final merge indexes nothing */
	CHECK_EQ(st.in[D2B_KIND_STRUCT], 2);
	CHECK_EQ(st.in[D2B_KIND_PTR], 2);
	CHECK_EQ(st.out[D2B_KIND_STRUCT], 1);
	CHECK_EQ(st.out[D2B_KIND_INT], 1);
	dedup__free(d);
	d2b_btf__free(out);
	d2b_btf__free(u0);
	d2b_btf__free(u1);
}

/*
 * Base buckets (merge_walk.c): a base with more than BUCKET_MIN anonymous
 * unions of one shallow key (one pointer member "a", size 8), each over
 * a struct of its own; a module's copies of the 2nd and the 18th map to
 * the base's, in every merge (units and finish), and one over a struct
 * the base lacks is new.  With and without forced collisions.
 */
static void base_bucket_unit(struct d2b_btf *u, const char *sname, uint32_t *ret_union)
{
	uint32_t i = INT(u, "int"), st = STRUCT(u, sname, 4), p;

	MEMBER(u, "x", i, 0);
	p = PTR(u, st);
	*ret_union = UNION(u, NULL, 8);
	MEMBER(u, "a", p, 0);
}

static void test_base_buckets(bool force)
{
	enum { N = 20 };
	struct d2b_btf *base = d2b_btf__new(NULL), *out = NULL, *u[3] = { 0 };
	static const char *const names[3] = { "s1", "s17", "elsewhere" };
	struct dedup_opts opts = { .force_collisions = force };
	uint32_t unions[N], ui[3], *maps[3] = { 0 }, i, k, ip;
	const uint32_t *final_map;
	struct dedup *d = NULL;
	char name[16];

	REQUIRE(base);
	build_err = 0;
	ip = INT(base, "int");
	for (k = 0; k < N; k++) {
		snprintf(name, sizeof(name), "s%u", k);
		i = STRUCT(base, name, 4);
		MEMBER(base, "x", ip, 0);
		i = PTR(base, i);
		unions[k] = UNION(base, NULL, 8);
		MEMBER(base, "a", i, 0);
	}
	out = d2b_btf__new(base);
	REQUIRE(out && !build_err);
	for (k = 0; k < 3; k++) {
		u[k] = d2b_btf__new(NULL);
		REQUIRE(u[k]);
		base_bucket_unit(u[k], names[k], &ui[k]);
		maps[k] = calloc(d2b_btf__end_id(u[k]), sizeof(*maps[k]));
		REQUIRE(maps[k] && !build_err);
	}
	REQUIRE(dedup__new(out, &opts, &d) == 0);
	for (k = 0; k < 3; k++)
		CHECK_EQ(dedup__add_unit(d, u[k], maps[k]), 0);
	CHECK_EQ(dedup__finish(d, &final_map), 0);
	CHECK_EQ(final_map[maps[0][ui[0]]], unions[1]);
	CHECK_EQ(final_map[maps[1][ui[1]]], unions[17]);
	CHECK(final_map[maps[2][ui[2]]] >= d2b_btf__start_id(out));
	/* struct elsewhere, its pointer and the union over it */
	CHECK_EQ(d2b_btf__nr_types(out), 3);
	dedup__free(d);
	for (k = 0; k < 3; k++) {
		d2b_btf__free(u[k]);
		free(maps[k]);
	}
	d2b_btf__free(out);
	d2b_btf__free(base);
}

static void test_base_buckets_plain(void)
{
	test_base_buckets(false);
}

static void test_base_buckets_collisions(void)
{
	test_base_buckets(true);
}

/*
 * The check a walker makes ahead of the merge (dedup__check_unit()) gives
 * what dedup__add_unit() would: the counts, and a refusal that fails the
 * merge when the checked unit is added.
 */
static void test_checked_units(void)
{
	struct d2b_btf *out = d2b_btf__new(NULL), *u0 = d2b_btf__new(NULL), *bad = d2b_btf__new(NULL);
	struct dedup_unit_check ok = { 0 }, no = { 0 };
	struct dedup_stats st;
	struct dedup *d = NULL;
	uint32_t map[4];

	REQUIRE(out && u0 && bad);
	cases[0].build(u0, 0);
	CHECK(d2b_btf__add_ref(bad, D2B_KIND_PTR, NULL, 7) > 0);	/* past its end */
	REQUIRE(dedup__new(out, NULL, &d) == 0);
	CHECK_EQ(dedup__check_unit(d, u0, &ok), 0);
	CHECK_EQ(ok.err, 0);
	CHECK_EQ(ok.in[D2B_KIND_STRUCT], 1);
	CHECK_EQ(dedup__check_unit(d, bad, &no), -EINVAL);
	CHECK_EQ(no.err, -EINVAL);
	CHECK_EQ(dedup__add_checked_unit(d, u0, &ok, NULL), 0);
	dedup__stats(d, &st);
	CHECK_EQ(st.in[D2B_KIND_STRUCT], 1);
	CHECK_EQ(dedup__add_checked_unit(d, bad, &no, map), -EINVAL);
	CHECK_EQ(dedup__add_checked_unit(d, u0, &ok, NULL), -EINVAL);	/* failed before */
	CHECK_EQ(dedup__finish(d, NULL), -EINVAL);
	dedup_unit_check__release(&ok);
	dedup_unit_check__release(&no);
	dedup__free(d);
	d2b_btf__free(out);
	d2b_btf__free(u0);
	d2b_btf__free(bad);
}

/* unit k of test_work_between_units(): int, then a struct, a pointer to
 * it and a prototype taking it, for struct s, and with k > 0 for struct t */
static void work_unit(struct d2b_btf *u, int k)
{
	const char *names[2] = { "s", "t" };
	int i, j, id;

	CHECK(d2b_btf__add_int(u, "int", 4, D2B_INT_SIGNED) == 1);
	for (i = 0; i <= (k > 0); i++) {
		id = d2b_btf__add_composite(u, D2B_KIND_STRUCT, names[i], 4);
		CHECK(id > 0);
		CHECK(d2b_btf__add_member(u, "x", 1, 0, 0) == 0);
		CHECK(d2b_btf__add_ref(u, D2B_KIND_PTR, NULL, id) == id + 1);
		j = d2b_btf__add_func_proto(u, 1);
		CHECK(j == id + 2);
		CHECK(d2b_btf__add_param(u, "p", id + 1) == 0);
	}
}

/*
 * Between units the work BTF is deduplicated: a prototype over a type
 * merged before is found in it (the hash index), one over a type new in
 * its unit only among the unit's own; both kinds, once merged, are found
 * by the next unit.
 */
static void test_work_between_units(void)
{
	struct d2b_btf *out = d2b_btf__new(NULL), *u[3] = { 0 };
	struct dedup *d = NULL;
	int k;

	REQUIRE(out);
	REQUIRE(dedup__new(out, NULL, &d) == 0);
	for (k = 0; k < 3; k++) {
		u[k] = d2b_btf__new(NULL);
		REQUIRE(u[k]);
		work_unit(u[k], k);
		CHECK_EQ(dedup__add_unit(d, u[k], NULL), 0);
		/* int, then struct, pointer and prototype per struct */
		CHECK_EQ(d2b_btf__nr_types(dedup__btf(d)), k ? 7u : 4u);
	}
	CHECK_EQ(dedup__finish(d, NULL), 0);
	CHECK_EQ(d2b_btf__nr_types(out), 7u);
	dedup__free(d);
	d2b_btf__free(out);
	for (k = 0; k < 3; k++)
		d2b_btf__free(u[k]);
}

/*
 * One check reused for unit after unit, as a walker's slot is, the next
 * one larger: the merge takes each unit as dedup__add_unit() would.
 */
static void test_check_reused(void)
{
	struct d2b_btf *u[3] = { 0 }, *out[2] = { 0 };
	struct dedup_unit_check check = { 0 };
	struct dedup *d;
	int k, r;

	for (k = 0; k < 3; k++) {
		u[k] = d2b_btf__new(NULL);
		REQUIRE(u[k]);
		work_unit(u[k], k);
	}
	for (r = 0; r < 2; r++) {
		out[r] = d2b_btf__new(NULL);
		d = NULL;
		REQUIRE(out[r] && dedup__new(out[r], NULL, &d) == 0);
		for (k = 0; k < 3; k++) {
			if (r) {
				CHECK_EQ(dedup__check_unit(d, u[k], &check), 0);
				CHECK_EQ(dedup__add_checked_unit(d, u[k], &check, NULL), 0);
			} else {
				CHECK_EQ(dedup__add_unit(d, u[k], NULL), 0);
			}
		}
		CHECK_EQ(dedup__finish(d, NULL), 0);
		dedup__free(d);
	}
	CHECK(same_encoding(out[0], out[1]));
	CHECK_EQ(d2b_btf__nr_types(out[1]), 7u);
	dedup_unit_check__release(&check);
	for (k = 0; k < 3; k++)
		d2b_btf__free(u[k]);
	d2b_btf__free(out[0]);
	d2b_btf__free(out[1]);
}

/* The work BTF and the units share out's pointer size: a unit of another
 * one is refused (BTF cannot tell which PTR has which size). */
static void test_pointer_size(void)
{
	struct d2b_btf *out = d2b_btf__new(NULL), *u4 = d2b_btf__new(NULL), *u8 = d2b_btf__new(NULL);
	struct dedup *d = NULL;
	uint32_t map[3];

	REQUIRE(out && u4 && u8);
	d2b_btf__set_pointer_size(out, 4);
	d2b_btf__set_pointer_size(u4, 4);
	d2b_btf__set_pointer_size(u8, 8);
	CHECK(d2b_btf__add_int(u4, "int", 4, D2B_INT_SIGNED) == 1);
	CHECK(d2b_btf__add_ref(u4, D2B_KIND_PTR, NULL, 1) == 2);
	CHECK(d2b_btf__add_int(u8, "int", 4, D2B_INT_SIGNED) == 1);
	REQUIRE(dedup__new(out, NULL, &d) == 0);
	CHECK_EQ(d2b_btf__pointer_size(dedup__btf(d)), 4);
	CHECK_EQ(dedup__add_unit(d, u4, map), 0);
	CHECK_EQ(d2b_btf__resolve_size(dedup__btf(d), map[2]), 4);
	CHECK_EQ(dedup__add_unit(d, u8, NULL), -EINVAL);
	dedup__free(d);
	d2b_btf__free(out);
	d2b_btf__free(u4);
	d2b_btf__free(u8);
}

/* The bpf tree's inline sites, as libbpf dedups them: LOC_PARAMs equal by
 * their words and LOC_PROTOs by their parameters merge, each unit's
 * LOCSEC stays (units built here, not in dedup_cases.h: the libbpf the
 * cross-check links may not know these kinds) */
static void b_loc(struct d2b_btf *u, int k)
{
	const uint32_t reg[] = { 5 }, other[] = { 6 };
	uint32_t i = INT(u, "int"), p = PROTO(u, i), f, lp, lp2, lproto;

	PARAM(u, "a", i);
	f = FUNC(u, "foo", p);
	lp = ok(d2b_btf__add_loc_param(u, 4, D2B_LOC_PARAM_REG, reg, 1));
	lp2 = ok(d2b_btf__add_loc_param(u, 4, D2B_LOC_PARAM_REG, k ? other : reg, 1));
	lproto = ok(d2b_btf__add_loc_proto(u));
	ok(d2b_btf__add_loc_proto_param(u, lp));
	ok(d2b_btf__add_loc_proto(u));
	ok(d2b_btf__add_loc_proto_param(u, lp2));
	ok(d2b_btf__add_locsec(u, "inline.text"));
	ok(d2b_btf__add_locsec_loc(u, f, lproto, 16 * (uint32_t)(k + 1)));
}

static void test_loc_kinds(void)
{
	static const struct dcase c = { "loc", 2, b_loc, NULL, false, false };
	struct d2b_btf *out = NULL;
	uint32_t id, n[D2B_KIND_LAST + 1] = { 0 };

	REQUIRE(run_dedup(&c, false, NULL, &out, true, NULL) == 0);
	for (id = 1; id < d2b_btf__end_id(out); id++)
		n[d2b_kind(d2b_btf__type(out, id))]++;
	CHECK_EQ(n[D2B_KIND_FUNC], 1);
	CHECK_EQ(n[D2B_KIND_LOC_PARAM], 2);	/* reg5 once, reg6 */
	CHECK_EQ(n[D2B_KIND_LOC_PROTO], 2);
	CHECK_EQ(n[D2B_KIND_LOCSEC], 2);	/* one per unit */
	CHECK_EQ(d2b_btf__verify(out, D2B_VERIFY_LOC_KINDS, NULL, NULL), 0);
	d2b_btf__free(out);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_case(&cases[i], false);
		run_case(&cases[i], true);
	}
	test_split(false);
	test_split(true);
	RUN(test_split_units_over_base);
	RUN(test_split_unit_strings_from_file);
	RUN(test_over_index_plain);
	RUN(test_over_index_collisions);
	RUN(test_errors);
	RUN(test_stats);
	RUN(test_loc_kinds);
	RUN(test_checked_units);
	RUN(test_base_buckets_plain);
	RUN(test_base_buckets_collisions);
	RUN(test_pointer_size);
	RUN(test_work_between_units);
	RUN(test_check_reused);
	return test_done();
}
