// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * d2b_btf__load_base(): a base for conversions over it, from a cache when
 * it can: lib/btf's cache of the base's parse (btf_cache.c, which says why
 * and how), with lib/merge's index of the base kept beside it
 * (base_index.c).  Here, at the top, because it joins the two: lib/btf
 * knows nothing of merging, and dwarf2btf.h promises that every
 * conversion over the BTF returned, in this process, finds the index made
 * (the base's backing keeps it, btf_cache__user()), so the index cannot
 * be the merge's alone.
 */
#include "btf/btf.h"
#include "base/diag.h"
#include "merge/base_index.h"

int d2b_btf__load_base(const char *path, const char *cache_dir, struct d2b_btf **ret,
		       char *errbuf, size_t errlen)
{
	const struct d2b_opts opts = { .errbuf = errbuf, .errlen = errlen };
	struct diag diag;	/* (the first error into errbuf: dwarf2btf.h) */

	if (errbuf && errlen)
		errbuf[0] = '\0';
	diag__init(&diag, &opts, NULL);
	return btf_cache__load(path, cache_dir, base_index__cache_ext(), &diag, ret);
}
