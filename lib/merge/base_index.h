/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct base_index: what every conversion over a base (a module's over
 * vmlinux) makes of the base before its first merge: the index of the
 * base's types by merge key (merge_index_base()), the exact index of its
 * single references, its structs' and enums' names, and whether it nests
 * arrays.  Made once per base by d2b_btf__load_base() (lib/btf's
 * btf_cache.c, through base_index__cache_ext()), which keeps it with the
 * base's cache entry: every dedup over the base reads it instead of making
 * its own (base_index__of()), and the next process over the same base
 * maps it instead of making it.
 */
#ifndef D2B_BASE_INDEX_H
#define D2B_BASE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/cache_file.h"
#include "base/hmap.h"
#include "merge/merge_internal.h"

struct btf_cache_ext;

/* What a cache keeps first: the sizes of the (frozen) tables, and the flags. */
struct base_index_meta {
	uint64_t map_cap, map_len;
	uint64_t names_cap, names_len;
	uint64_t over_cap, over_len;
	uint64_t chained_arrays;
};

struct base_index {
	/* a cache's (borrowed); made: only over_cap, the entries of over's
	 * arrays that may be set */
	struct base_index_meta meta;
	struct hmap map;	/* merge key -> base ID, in ID order */
	/* name offset -> ID of each named STRUCT, UNION and full enum, in ID
	 * order: where a FWD left at finish looks (dedup.c, resolve_fwds()) */
	struct hmap names;
	struct over_index over;
	bool chained_arrays;	/* an ARRAY of ARRAY (nested, not pahole's flat) */
	bool borrowed;		/* map, names and over.map are frozen, in a cache's mapping */
};

/* Make base's index (base: no base of its own, at least one type). */
int base_index__make(const struct d2b_btf *base, struct base_index **ret);
/* Free it (the cache's release of it). */
void base_index__free(void *bi);
/* The index kept with base (d2b_btf__load_base()'s), or NULL. */
const struct base_index *base_index__of(const struct d2b_btf *base);
/*
 * The sections a cache keeps of bi (BASE_INDEX_SECTIONS of them): its
 * tables frozen (hmap__freeze(): a third of their size, the same answers),
 * in one block *mem that the caller frees once they are written; and bi
 * again over such sections as a cache maps them (borrowed: they must
 * outlive it).  -EBADMSG for sections that cannot be an index's (sizes
 * that do not agree).
 */
enum { BASE_INDEX_SECTIONS = 4 };
/* The format of a base's cache entries: it changes with anything that
 * changes what they keep (lib/btf/btf_cache.c says what). */
enum { BASE_CACHE_FORMAT = 2 };
int base_index__freeze(const struct base_index *bi, struct cache_section *sec, void **mem);
int base_index__borrow(const struct cache_section *sec, struct base_index **ret);
/*
 * Check bi against base with the code that reads it: the merge keys of
 * some of base's types (spread over its IDs) must find them, and the
 * exact index must name them.  A cache made by a dwarf2btf whose keys
 * were made otherwise fails here even where its format version was not
 * changed.  0 or -EBADMSG.
 */
int base_index__check(const struct base_index *bi, const struct d2b_btf *base);
/* Whether btf has an ARRAY of ARRAY: its index's answer if it has one. */
bool base_index__chained_arrays(const struct d2b_btf *btf);
/*
 * The index as lib/btf's cache of a base keeps it beside the base
 * (btf_cache__load()): made, frozen, borrowed and checked by the calls
 * above.
 */
const struct btf_cache_ext *base_index__cache_ext(void);

#endif
