// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Deduplication: many units into one BTF
 * ======================================
 *
 * struct dedup merges units one at a time into a work BTF that is
 * deduplicated at all times, each through the passes of merge.c (its
 * theory: one ID space, strings, primitives, structs, references, append),
 * and then the work BTF once more into the output.
 *
 * Finish: a FWD that a walk resolved takes its definition; any other FWD
 * with exactly one STRUCT/UNION of its name (a struct and a union of one
 * name are ambiguous) and of its kind is resolved to it (libbpf's
 * btf_dedup_resolve_fwds()), and a forward enum to the one full enum of its
 * name.  Then the work BTF is merged once more, as a single source, into
 * the caller's (empty) output BTF with the resolved FWDs aliased to their
 * targets: types that became equal merge, unreferenced strings are never
 * copied, and the result is compact.
 *
 * Groups (dedup__new_group(), dedup__add_group()): consecutive units are
 * merged into a group of their own, groups on different threads, and each
 * group's work BTF is then merged into the destination as one source, in
 * order.  Where types merge only with equal types, a group merges early
 * what the destination would merge anyway, and appending in source order
 * keeps first occurrences first.  The order does matter to forward
 * declarations, the one place where a type merges with another that is
 * only compatible, and the first walk decides: a group's walks resolve
 * its FWDs among its own definitions, and a type whose FWD a group paired
 * with definition D stands for D from then on.  So:
 *
 *  - While a group is merged, a FWD of its own that the destination has
 *    not resolved stands for the group's resolution in walks (m->d.seed), as
 *    it did for the group's later units: else two types the group kept
 *    apart because of it (S { FWD T * } and S { T v2 * }, T resolved to
 *    v1) would merge, resolving T to v2.
 *  - A group's resolutions go to the destination with it: one the
 *    destination lacks is taken (as if the group's walk had been the
 *    destination's, the first).
 *  - One the destination has must name the same definition, or the
 *    group's types may have merged on a premise the destination does not
 *    share (a struct of the group that absorbed S { T v1 * } through its
 *    FWD T, then itself taken by S { T v2 * } of the destination).
 *  - Where the destination holds another definition of the name, resolved
 *    or not, a type of the group's units holding the FWD took a type of
 *    the group holding its definition, where one by one it would have met
 *    the destination's candidates first, one holding the other definition
 *    perhaps (H { FWD A * } taking the group's H { A v2 * }, not the
 *    destination's H { A v1 * }).
 *
 * In the last two cases dedup__add_group() fails with -EAGAIN, and the
 * caller merges the group's units one by one.  The check is made after
 * passes 1-4, before pass 5, which alone changes the destination (but for
 * the resolutions the walks add, taken back, and strings, unused), so the
 * destination is as it was.  That the output is then the one-by-one
 * merge's is checked, not proven: in groups of every size on every table
 * case of test_dedup, the bytes and where each unit type went (five cases
 * conflict), on tests/dedup's many_units.py objects, and on the corpus
 * vmlinux, byte for byte (tests/corpus compares it with --no-merge-groups).
 *
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "merge/base_index.h"
#include "merge/dedup.h"
#include "merge/merge_internal.h"
#include "base/hmap.h"
#include "base/vec.h"

struct dedup {
	struct d2b_btf *out;
	struct d2b_btf *work;
	struct dedup_opts opts;
	struct hmap base_index;	/* the base's types (split BTF), for every merge */
	struct over_index base_over;
	/* the two above, or the base's own (base_index__of()): read-only */
	struct hmap *bmap;
	struct over_index *bover;
	struct base_buckets base_buckets;
	struct merge m;
	uint32_t *final_map;
	bool base_indexed;	/* base_index and base_over are made */
	bool finished, failed;
	bool group;		/* made by dedup__new_group(): never finished */
	double unit_s[DEDUP_NR_STEPS];	/* the groups' merges of their units */
	double group_s[DEDUP_NR_STEPS];	/* d's merges of groups (of its own) */
	struct dedup_stats stats;
};

/* ---- the public interface ---- */

int dedup__new(struct d2b_btf *out, const struct dedup_opts *opts, struct dedup **ret)
{
	struct dedup *d;
	int err;

	*ret = NULL;
	if (!out || d2b_btf__nr_types(out))
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (opts)
		d->opts = *opts;
	d->out = out;
	if (d->opts.names && d2b_btf__base(out)) {
		free(d);
		return -EINVAL;
	}
	d->work = d2b_btf__new(d->opts.names ? d->opts.names : d2b_btf__base(out));
	if (!d->work) {
		free(d);
		return -ENOMEM;
	}
	btf_copy_model(d->work, out);
	hmap__init(&d->base_index, d->opts.force_collisions);
	hmap__init(&d->base_buckets.state, false);
	hmap__init(&d->base_buckets.by_shape, false);
	d->bmap = &d->base_index;
	d->bover = &d->base_over;
	d->base_indexed = !d->opts.defer_base_index;
	/* the base's index, made once for every dedup over it (base_index.c)
	 * (a test's forced collisions want keys of 0: its own then) */
	if (d2b_btf__base(out) && base_index__of(d2b_btf__base(out)) && !d->opts.force_collisions) {
		const struct base_index *bi = base_index__of(d2b_btf__base(out));

		d->bmap = (struct hmap *)&bi->map;
		d->bover = (struct over_index *)&bi->over;
		d->base_indexed = true;
	}
	err = merge_init(&d->m, d->work, d->opts.force_collisions, d->opts.append_only,
			 d->bmap, d->bover, &d->base_buckets,
			 d->bmap == &d->base_index && !d->opts.defer_base_index);
	if (err) {
		dedup__free(d);
		return err;
	}
	*ret = d;
	return 0;
}

int dedup__index_base(struct dedup *d)
{
	uint32_t start = d2b_btf__start_id(d->out);
	int err = 0;

	if (d->base_indexed)
		return 0;
	d->base_indexed = true;
	if (!d->opts.append_only && start > 1)
		err = merge_index_base(&d->m, d->bmap, d->bover, start);
	if (err)
		d->failed = true;
	return err;
}

void dedup__free(struct dedup *d)
{
	if (!d)
		return;
	merge_release(&d->m);
	hmap__release(&d->base_index);
	over_index_release(&d->base_over);
	hmap__release(&d->base_buckets.state);
	hmap__release(&d->base_buckets.by_shape);
	d2b_btf__free(d->work);
	free(d->final_map);
	free(d);
}

const struct d2b_btf *dedup__btf(const struct dedup *d)
{
	return d->work;
}

int dedup__new_group(const struct dedup *d, struct dedup **ret)
{
	int err;

	*ret = NULL;
	if (!d->opts.names || d->group || d->finished || d->failed)
		return -EINVAL;
	err = dedup__new(d->out, &d->opts, ret);
	if (!err)
		(*ret)->group = true;
	return err;
}

/*
 * Whether the forward declarations group g's walks resolved agree with
 * d's, g being mapped (merge_map()) but not yet appended: where d resolved
 * a name to another definition than g's, g's types were merged on a
 * premise d does not share; where d has another definition of the name at
 * all, a type of g's units holding the FWD merged with one holding g's
 * definition, where one by one it would have met d's types first, and
 * may have merged with one holding d's.  Both sides as canonical
 * combined IDs.
 */
static int group_fwds_agree(struct merge *m, const struct dedup *g)
{
	size_t j;
	int err;

	for (j = 0; j < g->m.d.nr_res; j++) {
		const struct fwd_res *r = &g->m.d.res[j];
		uint32_t name, target;
		struct hmap_iter it;
		uint64_t v;
		long k;

		err = merge_str(m, r->name_off, &name);
		if (err)
			return err;
		k = merge_fwd_res_find(m, name, r->kind);
		target = resolve(m, translate(m, r->target));
		if (k >= 0 && resolve(m, m->d.res[k].target) != target)
			return -EAGAIN;
		hmap__iter_init(&m->d.index, composite_name_key(name, r->kind), &it);
		while (hmap__next(&m->d.index, &it, &v)) {
			const struct d2b_type *t = type_of(m, (uint32_t)v);

			if (t && t->name_off == name && d2b_kind(t) == r->kind && v != target)
				return -EAGAIN;
		}
	}
	return 0;
}

/*
 * The forward declarations group g's walks resolved, into d's, g being
 * appended: as if g's units had been merged into d, their first walk
 * decides where d has not resolved the name yet (where it has,
 * group_fwds_agree() made sure it is to the same definition).  map: g's
 * work IDs to d's, of the merge just done.
 */
static int add_group_fwds(struct dedup *d, const struct dedup *g, const uint32_t *map)
{
	size_t j;
	int err = 0;

	for (j = 0; j < g->m.d.nr_res && !err; j++) {
		struct fwd_res r = g->m.d.res[j];
		long k;

		err = merge_str(&d->m, r.name_off, &r.name_off);
		if (err)
			break;
		r.target = map[r.target];
		k = merge_fwd_res_find(&d->m, r.name_off, r.kind);
		if (k < 0)
			err = merge_fwd_res_add(&d->m, &r);
		else if (d->m.d.res[k].target != r.target)
			err = -EINVAL;	/* (group_fwds_agree() lets none by) */
	}
	d->m.d.res_unit = d->m.d.nr_res;
	return err;
}

int dedup__add_group(struct dedup *d, struct dedup *g, uint32_t *map)
{
	struct dedup_unit_check check = { 0 };
	double t0[DEDUP_NR_STEPS];
	uint32_t *own = NULL;
	unsigned int k;
	int err;

	if (d->finished || d->failed)
		return -EINVAL;
	if (!g->group || g->failed || d->group || d->opts.names != g->opts.names ||
	    d->opts.append_only != g->opts.append_only)
		return -EINVAL;
	if (!map) {
		map = own = calloc(d2b_btf__end_id(g->work), sizeof(*map));
		if (!map)
			return -ENOMEM;
	}
	memcpy(t0, d->m.d.step_s, sizeof(t0));
	dedup__check_unit(d, g->work, &check);
	err = check.err;
	/* d's composites by name, for group_fwds_agree(): those d has, then
	 * (merge_index_type()) those it appends */
	for (k = d->m.d.dst_start; !d->m.d.index_names && !err && k < d->m.d.dst_end; k++)
		err = merge_index_name(&d->m, k);
	d->m.d.index_names = true;
	d->m.d.seed = &g->m;
	if (!err)
		err = merge_map(&d->m, g->work, NULL, check.kc);
	d->m.d.seed = NULL;
	if (!err)
		err = group_fwds_agree(&d->m, g);
	if (err == -EAGAIN)
		err = merge_abandon(&d->m) ?: -EAGAIN;
	else if (!err)
		err = merge_append(&d->m, map);
	if (!err)
		err = add_group_fwds(d, g, map);
	if (err && err != -EAGAIN)
		d->failed = true;
	for (k = 0; k < DEDUP_NR_STEPS; k++)
		d->group_s[k] += d->m.d.step_s[k] - t0[k];
	if (!err) {
		map[0] = 0;
		/* count the units' types, not the group's */
		for (k = 0; k <= D2B_KIND_LAST; k++)
			d->stats.in[k] += g->stats.in[k];
		for (k = 0; k < DEDUP_NR_STEPS; k++)
			d->unit_s[k] += g->m.d.step_s[k];
	}
	dedup_unit_check__release(&check);
	free(own);
	return err;
}

/* The merges' times, for dedup_stats: the units' (in the groups, if any,
 * and d's own) and the groups' (d's merges of them). */
static void step_times(const struct dedup *d, const double *own, struct dedup_stats *ret)
{
	unsigned int k;

	for (k = 0; k < DEDUP_NR_STEPS; k++) {
		ret->unit_s[k] = d->unit_s[k] + own[k] - d->group_s[k];
		ret->group_s[k] = d->group_s[k];
	}
}

/* Check unit as dedup__add_unit() wants it; count its types per kind. */
int dedup__check_unit(const struct dedup *d, const struct d2b_btf *unit,
		      struct dedup_unit_check *ret)
{
	uint32_t id, start = d2b_btf__start_id(unit), end = d2b_btf__end_id(unit);
	const struct d2b_btf *ubase = d2b_btf__base(unit);

	memset(ret->in, 0, sizeof(ret->in));
	ret->err = VEC_RESERVE(ret->kc, ret->kc_cap, 0, end - start + 1);
	if (ret->err)
		return ret->err;
	ret->err = -EINVAL;
	/* over names, or over nothing; without names, over out's base too:
	 * the base's strings then map to themselves */
	if ((ubase != d->opts.names && (d->opts.names || ubase != d2b_btf__base(d->out))) ||
	    d2b_btf__start_id(unit) != (ubase ? d2b_btf__end_id(ubase) : 1))
		return ret->err;
	/* one pointer size for all: BTF cannot say which PTR has which */
	if (d2b_btf__pointer_size(unit) != d2b_btf__pointer_size(d->out))
		return ret->err;
	for (id = d2b_btf__start_id(unit); id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(unit, id);
		struct btf_field_iter it;
		uint32_t *p;

		ret->kc[id - start] = t ? kclass(t) : KC_BAD;
		if (ret->kc[id - start] == KC_BAD)
			return ret->err;
		ret->in[d2b_kind(t)]++;
		if (is_single_ref(d2b_kind(t))) {
			/* (the commonest kinds: their one ID field, without the iterator) */
			if (t->type >= end)
				return ret->err;
			continue;
		}
		btf_field_iter__init(&it, (struct d2b_type *)t, BTF_FIELD_IDS);
		while ((p = btf_field_iter__next(&it))) {
			if (*p >= end)
				return ret->err;
		}
	}
	ret->err = 0;
	return 0;
}

int dedup__add_checked_unit(struct dedup *d, const struct d2b_btf *unit,
			    const struct dedup_unit_check *check, uint32_t *map)
{
	unsigned int k;
	int err;

	if (d->finished || d->failed)
		return -EINVAL;
	err = dedup__index_base(d);
	if (err)
		return err;
	if (check->err) {
		d->failed = true;
		return check->err;
	}
	for (k = 0; k <= D2B_KIND_LAST; k++)
		d->stats.in[k] += check->in[k];
	err = merge_source(&d->m, unit, NULL, check->kc, map);
	if (err) {
		d->failed = true;
		return err;
	}
	if (map)
		map[0] = 0;
	return 0;
}

void dedup_unit_check__release(struct dedup_unit_check *check)
{
	free(check->kc);
	check->kc = NULL;
	check->kc_cap = 0;
}

int dedup__add_unit(struct dedup *d, const struct d2b_btf *unit, uint32_t *map)
{
	struct dedup_unit_check check = { 0 };
	int err;

	dedup__check_unit(d, unit, &check);
	err = dedup__add_checked_unit(d, unit, &check, map);
	dedup_unit_check__release(&check);
	return err;
}

/*
 * Leftover forward declarations of work's own types: alias[i] (i = ID -
 * start) becomes the one STRUCT/UNION (the one full enum, for a forward
 * enum) of that name, if it is unique and of the FWD's kind.
 */
static int resolve_fwds(struct dedup *d, uint32_t **ret)
{
	const struct d2b_btf *w = d->work;
	uint32_t start = d2b_btf__start_id(w), end = d2b_btf__end_id(w), id;
	/* the base's names, made once (base_index.c), or made here with ours */
	const struct hmap *base_names = d->bmap != &d->base_index ?
		&base_index__of(d2b_btf__base(w))->names : NULL;
	const struct hmap *maps[2];
	uint32_t *alias = NULL;
	struct hmap names;
	int err = 0;

	*ret = NULL;
	/* none to resolve (a small module, often): no names to index */
	for (id = start; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(w, id);

		if (t->name_off && (d2b_kind(t) == D2B_KIND_FWD ||
				    (btf_kind_is_enum(d2b_kind(t)) && !d2b_vlen(t))))
			break;
	}
	if (id == end)
		return 0;
	hmap__init(&names, d->opts.force_collisions);
	for (id = base_names ? start : 1; id < end && !err; id++) {
		const struct d2b_type *t = d2b_btf__type(w, id);

		if (t->name_off && (btf_kind_is_composite(d2b_kind(t)) || is_full_enum(t)))
			err = hmap__add(&names, t->name_off, id);
	}
	/* (the base's first: a name's entries in ID order, as from one map) */
	maps[0] = base_names ? base_names : &names;
	maps[1] = base_names ? &names : NULL;
	if (!err) {
		alias = calloc(end - start + 1, sizeof(*alias));
		if (!alias)
			err = -ENOMEM;
	}
	for (id = start; id < end && !err; id++) {
		const struct d2b_type *t = d2b_btf__type(w, id);
		bool fwd_enum = btf_kind_is_enum(d2b_kind(t)) && !d2b_vlen(t);
		uint32_t target = 0, count = 0;
		int k;

		if ((d2b_kind(t) != D2B_KIND_FWD && !fwd_enum) || !t->name_off)
			continue;
		if (!fwd_enum) {
			long j = merge_fwd_res_find(&d->m, t->name_off, btf_fwd_kind(t));

			if (j >= 0) {
				alias[id - start] = d->m.d.res[j].target;
				continue;
			}
		}
		for (k = 0; k < 2 && maps[k]; k++) {
			struct hmap_iter it;
			uint64_t v;

			hmap__iter_init(maps[k], t->name_off, &it);
			while (hmap__next(maps[k], &it, &v)) {
				const struct d2b_type *c = d2b_btf__type(w, v);

				if (c->name_off != t->name_off ||
				    btf_kind_is_enum(d2b_kind(c)) != fwd_enum)
					continue;
				target = v;
				count++;
			}
		}
		if (count != 1)
			continue;
		if (!fwd_enum && d2b_kind(d2b_btf__type(w, target)) != btf_fwd_kind(t))
			continue;
		alias[id - start] = target;
	}
	hmap__release(&names);
	if (err) {
		free(alias);
		return err;
	}
	*ret = alias;
	return 0;
}

static void count_out(struct dedup *d)
{
	uint32_t id, end = d2b_btf__end_id(d->out);

	memset(d->stats.out, 0, sizeof(d->stats.out));
	for (id = d2b_btf__start_id(d->out); id < end; id++)
		d->stats.out[d2b_kind(d2b_btf__type(d->out, id))]++;
}

int dedup__finish(struct dedup *d, const uint32_t **final_map)
{
	uint32_t start = d2b_btf__start_id(d->work), end = d2b_btf__end_id(d->work), id;
	uint32_t *alias = NULL;
	struct merge fm;
	int err;

	if (final_map)
		*final_map = NULL;
	if (d->finished || d->failed || d->group)
		return -EINVAL;
	err = dedup__index_base(d);
	if (err)
		return err;
	d->finished = true;
	if (!d->opts.append_only) {
		err = resolve_fwds(d, &alias);
		if (err)
			return err;
	}
	/* the work index is no longer needed: free it before the final merge */
	step_times(d, d->m.d.step_s, &d->stats);
	merge_release(&d->m);
	memset(&d->m, 0, sizeof(d->m));
	d->final_map = calloc(end, sizeof(*d->final_map));
	if (!d->final_map) {
		free(alias);
		return -ENOMEM;
	}
	for (id = 0; id < start; id++)
		d->final_map[id] = id;
	err = merge_init(&fm, d->out, d->opts.force_collisions, d->opts.append_only,
			 d->bmap, d->bover, &d->base_buckets, false);
	fm.d.last = true;		/* no merge after it: its index is never read */
	if (!err)
		err = merge_source(&fm, d->work, alias, NULL, d->final_map);
	memcpy(d->stats.final_s, fm.d.step_s, sizeof(d->stats.final_s));
	merge_release(&fm);
	free(alias);
	if (err) {
		d->failed = true;
		return err;
	}
	count_out(d);
	if (final_map)
		*final_map = d->final_map;
	return 0;
}

void dedup__stats(const struct dedup *d, struct dedup_stats *ret)
{
	*ret = d->stats;
	if (!d->finished)
		step_times(d, d->m.d.step_s, ret);
}
