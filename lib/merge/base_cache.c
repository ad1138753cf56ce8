// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * d2b_btf__load_base(): a base and its index (base_index.c), from a cache
 * when it can.  The cache entry and the base's part of it are lib/btf's
 * (btf_cache.c, which says why and how); the index is this folder's part,
 * its sections and its check.
 */
#include "base/cache_file.h"
#include "btf/btf.h"
#include "merge/base_index.h"

_Static_assert((int)BTF_CACHE_OWN_SECTIONS + (int)BASE_INDEX_SECTIONS <= (int)CACHE_MAX_SECTIONS,
	       "too many cache sections");

static int index_make(const struct d2b_btf *base, void **ret)
{
	struct base_index *bi = NULL;
	int err = base_index__make(base, &bi);

	*ret = bi;
	return err;
}

static int index_freeze(const void *bi, struct cache_section *sec, void **mem)
{
	return base_index__freeze(bi, sec, mem);
}

/* The index an entry keeps, if base_index__check() finds it this library's. */
static int index_borrow(const struct d2b_btf *base, const struct cache_section *sec, void **ret)
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

static const struct btf_cache_ext index_ext = {
	.nr_sec = BASE_INDEX_SECTIONS,
	.format = BASE_CACHE_FORMAT,
	.make = index_make,
	.freeze = index_freeze,
	.borrow = index_borrow,
	.release = base_index__free,
};

int d2b_btf__load_base(const char *path, const char *cache_dir, struct d2b_btf **ret,
		       char *errbuf, size_t errlen)
{
	return btf_cache__load(path, cache_dir, &index_ext, ret, errbuf, errlen);
}
