// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pruning FUNCs from a merged BTF.
 *
 * Pass 1, mark: a DECL_TAG on a dropped FUNC (or on one of its parameters)
 * goes with it.  A FUNC_PROTO goes when dropped FUNCs used it and no type
 * that stays does: count, per prototype, the references from types that
 * stay; a prototype only dropped FUNCs name has none, and goes unless it is
 * marked PRUNE_KEEP (an inline site's, named beside the BTF).  (The types
 * under the prototype stay: they are the units' types, as pahole keeps
 * them.)
 * Pass 2, copy: the types that stay, in order, into a new BTF over the same
 * base, their type IDs translated and their strings added anew (so strings
 * only dropped types used are gone), each string offset looked up once.
 */
#include <errno.h>
#include <stdlib.h>

#include "btf/btf.h"
#include "finish/prune.h"
#include "base/pages.h"

static void mark(const struct d2b_btf *btf, uint8_t *drop, uint32_t *refs)
{
	uint32_t start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf), id;

	for (id = start; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (d2b_kind(t) == D2B_KIND_DECL_TAG && t->type >= start &&
		    drop[t->type - start] == PRUNE_DROP)
			drop[id - start] = PRUNE_DROP;
	}
	for (id = start; id < end; id++) {
		struct btf_field_iter it;
		uint32_t *f;

		if (drop[id - start] == PRUNE_DROP)
			continue;
		btf_field_iter__init(&it, (struct d2b_type *)d2b_btf__type(btf, id), BTF_FIELD_IDS);
		while ((f = btf_field_iter__next(&it)) != NULL) {
			if (*f >= start && *f < end)
				refs[*f - start]++;
		}
	}
	for (id = start; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (drop[id - start] != PRUNE_DROP || d2b_kind(t) != D2B_KIND_FUNC)
			continue;
		if (t->type >= start && !refs[t->type - start] &&
		    drop[t->type - start] != PRUNE_KEEP)
			drop[t->type - start] = PRUNE_DROP;
	}
}

static int copy(const struct d2b_btf *btf, const uint8_t *drop, uint32_t *map,
		struct d2b_btf *out)
{
	uint32_t start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf), id, next = start;
	/* each own string once: the same offset is the same string (a
	 * module's own, not its base's: a memo as long as a kernel's strings
	 * would be made for every module, to be used for a few of them) */
	uint32_t *smemo = pages__zalloc(btf_end_str(btf) - btf_start_str(btf) + 1,
					sizeof(*smemo));
	int r = 0;

	for (id = 0; id < start; id++)
		map[id] = id;
	for (id = start; id < end; id++)
		map[id] = drop[id - start] == PRUNE_DROP ? 0 : next++;
	if (!smemo)
		return -ENOMEM;
	for (id = start; id < end && r >= 0; id++) {
		if (drop[id - start] == PRUNE_DROP)
			continue;
		r = btf_add_copy_memo(out, btf, id, map, smemo);
		if (r >= 0 && (uint32_t)r != map[id])
			r = -EINVAL;
	}
	free(smemo);
	return r < 0 ? r : 0;
}

int prune__funcs(const struct d2b_btf *btf, uint8_t *drop, struct d2b_btf **ret,
		 uint32_t **ret_map)
{
	uint32_t n = d2b_btf__nr_types(btf), end = d2b_btf__end_id(btf);
	uint32_t *refs = pages__zalloc(n ? n : 1, sizeof(*refs));
	uint32_t *map = calloc(end, sizeof(*map));
	struct d2b_btf *out = d2b_btf__new(d2b_btf__base(btf));
	int err = -ENOMEM;

	*ret = NULL;
	*ret_map = NULL;
	if (!refs || !map || !out)
		goto out;
	btf_copy_model(out, btf);
	mark(btf, drop, refs);
	err = copy(btf, drop, map, out);
out:
	free(refs);
	if (err) {
		free(map);
		d2b_btf__free(out);
		return err;
	}
	*ret = out;
	*ret_map = map;
	return 0;
}
