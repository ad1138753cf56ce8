// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A base's index, made once
 * =========================
 *
 * Every merge into split BTF looks for each source type among the base's
 * types first (merge.c, "Split BTF").  For a kernel module over vmlinux
 * that index (about 100,000 types, each with a key that needs its form
 * made and hashed) is far more work than the merge of a small module's
 * own units, a few hundred types, and it is the same for every module.
 * So the index is its own object, made by the code a dedup without one
 * uses (merge_index_base(), over a throwaway BTF on the base), and kept
 * with the base: each dedup over the base borrows it read-only, and the
 * answers are the ones its own index gave, entry for entry, in the same
 * order.
 *
 * Nothing in it depends on the module: a key is made of the base type's
 * words with its IDs and name offsets as the base has them.  So the index
 * is the same for every module over one base, and a cache can keep it
 * beside the base's bytes (base_index__cache_ext()): its tables are kept frozen
 * (hmap__freeze(); over_index's arrays as a map of their entries that are
 * not 0, over_key()), which the next run maps and reads in place.
 *
 * A cached index is checked against the code reading it
 * (base_index__check()): keys of types spread over the base must find
 * them.  The cache's digest guards against damage; this guards against a
 * dwarf2btf whose keys changed without a new cache format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "merge/base_index.h"

enum {
	CHECK_SAMPLES = 16,	/* base types base_index__check() looks up */
};

/* Does btf have an ARRAY of ARRAY (int a[5][6] the way we write it)? */
static bool scan_chained_arrays(const struct d2b_btf *btf)
{
	uint32_t id, end = d2b_btf__end_id(btf);

	for (id = 1; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id), *e;

		if (d2b_kind(t) != D2B_KIND_ARRAY)
			continue;
		e = d2b_btf__type(btf, btf_array(t)->type);
		if (e && d2b_kind(e) == D2B_KIND_ARRAY)
			return true;
	}
	return false;
}

const struct base_index *base_index__of(const struct d2b_btf *base)
{
	return btf_cache__user(base, base_index__cache_ext());
}

bool base_index__chained_arrays(const struct d2b_btf *btf)
{
	const struct base_index *bi = base_index__of(btf);

	return bi ? bi->chained_arrays : scan_chained_arrays(btf);
}

void base_index__free(void *arg)
{
	struct base_index *bi = arg;

	if (!bi)
		return;
	if (!bi->borrowed) {
		hmap__release(&bi->map);
		hmap__release(&bi->names);
		over_index_release(&bi->over);
	}
	free(bi);
}

static int index_names(struct base_index *bi, const struct d2b_btf *base)
{
	uint32_t id, end = d2b_btf__end_id(base);
	int err = 0;

	for (id = 1; id < end && !err; id++) {
		const struct d2b_type *t = d2b_btf__type(base, id);

		if (t->name_off && (btf_kind_is_composite(d2b_kind(t)) || is_full_enum(t)))
			err = hmap__add(&bi->names, t->name_off, id);
	}
	/* (an empty map still has slots, for a cache to keep) */
	return err ? err : hmap__reserve(&bi->names, 1);
}

int base_index__make(const struct d2b_btf *base, struct base_index **ret)
{
	struct base_buckets bb;
	struct base_index *bi;
	struct d2b_btf *tmp;
	struct merge m;
	int err;

	*ret = NULL;
	if (d2b_btf__base(base) || !d2b_btf__nr_types(base))
		return -EINVAL;
	bi = calloc(1, sizeof(*bi));
	tmp = d2b_btf__new(base);
	if (!bi || !tmp) {
		free(bi);
		d2b_btf__free(tmp);
		return -ENOMEM;
	}
	hmap__init(&bi->map, false);
	hmap__init(&bi->names, false);
	hmap__init(&bb.state, false);
	hmap__init(&bb.by_shape, false);
	err = merge_init(&m, tmp, false, false, &bi->map, &bi->over, &bb, true);
	merge_release(&m);
	d2b_btf__free(tmp);
	if (!err)
		err = index_names(bi, base);
	if (err) {
		base_index__free(bi);
		return err;
	}
	bi->chained_arrays = scan_chained_arrays(base);
	/* the entries of over's arrays that may be set: no base type refers
	 * past the base (the rest of meta is the frozen tables', written by
	 * base_index__freeze()) */
	bi->meta.over_cap = bi->over.cap < d2b_btf__end_id(base) ? bi->over.cap :
			    d2b_btf__end_id(base);
	*ret = bi;
	return 0;
}

/* Every entry of bi's over_index that is not 0, in a map by over_key(). */
static int over_entries(const struct base_index *bi, struct hmap *h)
{
	size_t t;
	int k, err = 0;

	for (k = 0; k < NR_OVER && !err; k++)
		for (t = 0; t < bi->meta.over_cap && !err; t++)
			if (bi->over.first[k][t])
				err = hmap__add(h, over_key(k, (uint32_t)t), bi->over.first[k][t]);
	return err;
}

int base_index__freeze(const struct base_index *bi, struct cache_section *sec, void **mem)
{
	struct base_index_meta *meta;
	struct hmap over;
	size_t map_cap, names_cap, over_cap, meta_words = (sizeof(*meta) + 3) / 4;
	uint32_t *p = NULL;
	int err;

	*mem = NULL;
	hmap__init(&over, false);
	err = over_entries(bi, &over);
	map_cap = hmap__frozen_cap(bi->map.len);
	names_cap = hmap__frozen_cap(bi->names.len);
	over_cap = hmap__frozen_cap(over.len);
	if (!err && (!map_cap || !names_cap || !over_cap))
		err = -E2BIG;
	if (!err) {
		p = calloc(meta_words + 3 * (map_cap + names_cap + over_cap), 4);
		if (!p)
			err = -ENOMEM;
	}
	if (err) {
		hmap__release(&over);
		return err;
	}
	meta = (struct base_index_meta *)p;
	meta->map_cap = map_cap;
	meta->map_len = bi->map.len;
	meta->names_cap = names_cap;
	meta->names_len = bi->names.len;
	meta->over_cap = over_cap;
	meta->over_len = over.len;
	meta->chained_arrays = bi->chained_arrays;
	sec[0].data = meta;
	sec[0].size = sizeof(*meta);
	sec[1].data = p + meta_words;
	sec[1].size = map_cap * 12;
	sec[2].data = p + meta_words + 3 * map_cap;
	sec[2].size = names_cap * 12;
	sec[3].data = p + meta_words + 3 * (map_cap + names_cap);
	sec[3].size = over_cap * 12;
	err = hmap__freeze(&bi->map, (uint32_t *)sec[1].data, map_cap);
	if (!err)
		err = hmap__freeze(&bi->names, (uint32_t *)sec[2].data, names_cap);
	if (!err)
		err = hmap__freeze(&over, (uint32_t *)sec[3].data, over_cap);
	hmap__release(&over);
	if (err) {
		free(p);
		return err;
	}
	*mem = p;
	return 0;
}

/* Does section sec hold cap frozen slots (of 12 bytes)? */
static bool frozen_size(const struct cache_section *sec, uint64_t cap)
{
	return cap <= SIZE_MAX / 12 && sec->size == cap * 12;
}

int base_index__borrow(const struct cache_section *sec, struct base_index **ret)
{
	const struct base_index_meta *meta = sec[0].data;
	struct base_index *bi;

	*ret = NULL;
	if (sec[0].size != sizeof(*meta) || !frozen_size(&sec[1], meta->map_cap) ||
	    !frozen_size(&sec[2], meta->names_cap) || !frozen_size(&sec[3], meta->over_cap))
		return -EBADMSG;
	bi = calloc(1, sizeof(*bi));
	if (!bi)
		return -ENOMEM;
	bi->borrowed = true;
	if (hmap__borrow_frozen(&bi->map, sec[1].data, (size_t)meta->map_cap,
				(size_t)meta->map_len) ||
	    hmap__borrow_frozen(&bi->names, sec[2].data, (size_t)meta->names_cap,
				(size_t)meta->names_len) ||
	    hmap__borrow_frozen(&bi->over.map, sec[3].data, (size_t)meta->over_cap,
				(size_t)meta->over_len)) {
		free(bi);
		return -EBADMSG;
	}
	bi->chained_arrays = meta->chained_arrays != 0;
	bi->meta = *meta;
	*ret = bi;
	return 0;
}

/* Is id among the entries of key? */
static bool map_has(const struct hmap *h, uint64_t key, uint32_t id)
{
	struct hmap_iter it;
	uint64_t v;

	hmap__iter_init(h, key, &it);
	while (hmap__next(h, &it, &v))
		if (v == id)
			return true;
	return false;
}

int base_index__check(const struct base_index *bi, const struct d2b_btf *base)
{
	uint32_t n = d2b_btf__nr_types(base), i, id;
	struct base_buckets bb;
	struct d2b_btf *tmp;
	struct merge m;
	int err = 0;

	if (bi->map.len < n)
		return -EBADMSG;
	tmp = d2b_btf__new(base);
	if (!tmp)
		return -ENOMEM;
	hmap__init(&bb.state, false);
	hmap__init(&bb.by_shape, false);
	err = merge_init(&m, tmp, false, false, (struct hmap *)&bi->map,
			 (struct over_index *)&bi->over, &bb, false);
	for (i = 0; i < CHECK_SAMPLES && !err; i++) {
		const struct d2b_type *t;
		uint64_t key;
		int k;

		/* spread from the first type to the last */
		id = 1 + (uint32_t)((uint64_t)i * (n - 1) / (CHECK_SAMPLES - 1));
		err = merge_type_key(&m, &m.w.fa, id, &key);
		if (err)
			break;
		if (!map_has(&bi->map, key, id)) {
			err = -EBADMSG;
			break;
		}
		t = d2b_btf__type(base, id);
		if (t->name_off && (btf_kind_is_composite(d2b_kind(t)) || is_full_enum(t)) &&
		    !map_has(&bi->names, t->name_off, id)) {
			err = -EBADMSG;
			break;
		}
		k = over_slot_of(t);
		if (k >= 0 && !over_index_find(&bi->over, k, t->type))
			err = -EBADMSG;
		if (k >= 0 && over_index_find(&bi->over, k, t->type) > id)
			err = -EBADMSG;
	}
	merge_release(&m);
	d2b_btf__free(tmp);
	return err;
}

/* ---- in lib/btf's cache of a base (btf_cache.c) ---- */

_Static_assert((int)BTF_CACHE_OWN_SECTIONS + (int)BASE_INDEX_SECTIONS <= (int)CACHE_MAX_SECTIONS,
	       "too many cache sections");

static int cache_make(const struct d2b_btf *base, void **ret)
{
	struct base_index *bi = NULL;
	int err = base_index__make(base, &bi);

	*ret = bi;
	return err;
}

static int cache_freeze(const void *bi, struct cache_section *sec, void **mem)
{
	return base_index__freeze(bi, sec, mem);
}

/* The index an entry keeps, if base_index__check() finds it this library's. */
static int cache_borrow(const struct d2b_btf *base, const struct cache_section *sec, void **ret)
{
	struct base_index *bi = NULL;
	int err = base_index__borrow(sec, &bi);

	if (!err)
		err = base_index__check(bi, base);
	if (err) {
		base_index__free(bi);
		bi = NULL;
	}
	*ret = bi;
	return err;
}

static const struct btf_cache_ext cache_ext = {
	.nr_sec = BASE_INDEX_SECTIONS,
	.format = BASE_CACHE_FORMAT,
	.make = cache_make,
	.freeze = cache_freeze,
	.borrow = cache_borrow,
	.release = base_index__free,
};

const struct btf_cache_ext *base_index__cache_ext(void)
{
	return &cache_ext;
}
