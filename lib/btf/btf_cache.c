// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btf_cache__load(): a base, and what its user makes of it, from a cache
 * ======================================================================
 *
 * A kernel build converts each module in a process of its own, over the
 * same vmlinux.  Reading vmlinux's BTF costs a parse (each type's place,
 * every field checked) and an index of its strings; the first merge then
 * costs the index of its types (lib/merge/base_index.c, the user's part
 * here: struct btf_cache_ext).  Together they are most of a small
 * module's run, and the same for every module.
 *
 * So the first run keeps what they make in a cache entry named by a
 * digest of the base's bytes: the place of each type, the string index's
 * slots and the user's tables.  The next run reads the base's bytes once
 * for their digest (through a small buffer), maps the entry of that name
 * and uses all of it in place: two passes at memory speed (the two
 * digests) instead of the parse and the indexes.  What is used is exactly
 * what was made, so the output is the same byte for byte, cache or not.
 *
 * Memory.  A module looks at a few hundred of vmlinux's 100,000 types but
 * probes the indexes at random all over, so what a run holds is the
 * tables' size, and the blocks of the base it reads:
 *  - the tables are kept frozen (hmap.h, strtab.h): 12 bytes a slot for
 *    the type index and the names (the key's 64-bit mix and the ID, not a
 *    16-byte key and value), 8 for the strings, 3/4 full, not half; and
 *    the exact index of single references (over_index) as a map of its
 *    entries that are not 0, not five arrays as long as the base, most of
 *    whose entries are.  The answers are the same, in the same order, so
 *    the merge is the same;
 *  - the base's BTF is not mapped but read block by block where a type or
 *    a string is asked for (lazy.h), a part of it: a mapping would bring
 *    in the cached pages around every one touched (the kernel's
 *    fault-around), which for random reads is all of it.
 * (What each saves: tests/bench/README.)
 *
 * Safety: an entry is a function of the base's bytes and of the user's
 * format (ext->format, in the name and the header), and is taken only
 * whole and undamaged (cache_file.h), for the bytes it names (their size
 * and digest are in it too), and after the user's borrow() found its
 * tables to be this library's.  Anything else is made again, as without
 * a cache, and written over it.  A base whose bytes cannot be used in
 * place (a compressed section, another byte order) is read as
 * d2b_btf__load_file() reads it, and not cached.
 *
 * Ownership.  What a base loaded here carries beside its types is its
 * backing (struct cache_backing): the blob its bytes are read from, the
 * entry they were found in, and what the user made of the base, which the
 * user finds again by btf_cache__user().  The type graph knows only that
 * it has a backing, to read lazy bytes through and to release it when it
 * goes; nothing of the user's is in the graph.
 *
 * ext->format changes with anything that changes what is kept: the
 * cache_meta below, strtab's frozen slots, and the user's sections.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cache_file.h"
#include "base/diag.h"
#include "base/digest.h"
#include "base/lazy.h"
#include "base/strtab.h"
#include "btf/btf.h"

enum {
	BTF_CACHE_KEEP = 8,	/* entries kept: eight kernels' */
	NAME_LEN = 96,
	/* the sections of an entry: meta, type offsets, string slots, then
	 * the user's */
	SEC_META = 0,
	SEC_OFFS,
	SEC_STRS,
	SEC_EXT,
};

_Static_assert((int)SEC_EXT == (int)BTF_CACHE_OWN_SECTIONS, "the sections before the user's");

#define BTF_CACHE_PREFIX "base-"

/* The first section: what the entry was made from, and the sizes. */
struct cache_meta {
	uint64_t blob_size, blob_digest;
	uint64_t nr_types;
	uint64_t str_nslots, str_nused, str_dups;
};

static void cache_release(struct cache_file *cf)
{
	if (cf)
		cache_file__close(cf);
	free(cf);
}

/*
 * A base's backing: the blob its types and strings are borrowed from and
 * the entry that indexed them (a cache hit; else NULL, the BTF's own
 * arrays hold copies), and the user's part (ext's, made or borrowed).
 * Freed in the opposite order.
 */
struct cache_backing {
	struct btf_backing bk;	/* (first: what the BTF holds) */
	struct btf_blob *blob;
	struct cache_file *cf;
	const struct btf_cache_ext *ext;
	void *user;
};

static void backing_release(struct btf_backing *bk)
{
	struct cache_backing *cb = (struct cache_backing *)bk;

	if (cb->user)
		cb->ext->release(cb->user);
	cache_release(cb->cf);
	btf_blob__release(cb->blob);
	free(cb);
}

static struct cache_backing *backing_new(const struct btf_cache_ext *ext)
{
	struct cache_backing *cb = calloc(1, sizeof(*cb));

	if (cb) {
		cb->bk.release = backing_release;
		cb->ext = ext;
	}
	return cb;
}

void *btf_cache__user(const struct d2b_btf *base, const struct btf_cache_ext *ext)
{
	struct btf_backing *bk = btf_backing(base);
	const struct cache_backing *cb = (const struct cache_backing *)bk;

	return bk && bk->release == backing_release && cb->ext == ext ? cb->user : NULL;
}

/* Do the nr type offsets rise, and end inside the blob's type section?
 * (What the parse found, the digest says; this says it holds for b.) */
static bool offsets_fit(const uint32_t *offs, size_t nr, const struct btf_blob *b)
{
	struct d2b_header h;
	size_t i;

	if (b->size < sizeof(h) || !nr || offs[0] != 0 ||
	    (b->lazy && lazy__need(b->lazy, b->data, sizeof(h))))
		return false;
	memcpy(&h, b->data, sizeof(h));
	for (i = 1; i < nr; i++)
		if (offs[i] <= offs[i - 1])
			return false;
	/* (a type is 3 words at least) */
	return (uint64_t)offs[nr - 1] + 3 <= h.type_len / 4;
}

/* Does entry cf's meta say it is the blob b's (digest dg), of sizes that agree? */
static bool entry_fits(const struct cache_file *cf, const struct btf_blob *b, uint64_t dg,
		       const struct btf_cache_ext *ext)
{
	const struct cache_meta *meta = cf->sec[SEC_META].data;

	return cf->nr == SEC_EXT + ext->nr_sec && cf->sec[SEC_META].size == sizeof(*meta) &&
	       meta->blob_size == b->size && meta->blob_digest == dg && meta->nr_types &&
	       cf->sec[SEC_OFFS].size == meta->nr_types * 4 && meta->str_nslots <= SIZE_MAX / 8 &&
	       cf->sec[SEC_STRS].size == meta->str_nslots * 8 &&
	       offsets_fit(cf->sec[SEC_OFFS].data, (size_t)meta->nr_types, b);
}

/*
 * The entry cf, for the blob b (digest dg): the BTF over b's bytes and the
 * entry's tables, with the user's.  -EBADMSG if it is not that blob's or
 * does not check.  On success b and cf belong to the BTF.
 */
static int from_cache(struct btf_blob *b, uint64_t dg, struct cache_file *cf,
		      const struct btf_cache_ext *ext, struct d2b_btf **ret)
{
	const struct cache_meta *meta = cf->sec[SEC_META].data;
	struct strtab_index six = { 0 };
	struct cache_backing *cb;
	struct d2b_btf *btf = NULL;
	struct diag quiet;
	int err;

	*ret = NULL;
	if (!entry_fits(cf, b, dg, ext))
		return -EBADMSG;
	cb = backing_new(ext);
	if (!cb)
		return -ENOMEM;
	cb->bk.lazy = b->lazy;
	six.slots = cf->sec[SEC_STRS].data;
	six.nslots = (size_t)meta->str_nslots;
	six.nused = (size_t)meta->str_nused;
	six.dups = meta->str_dups != 0;
	diag__init_kept(&quiet, false);	/* (a failure: made again) */
	err = btf_parse_known(b->data, b->size, &cb->bk, cf->sec[SEC_OFFS].data,
			      (size_t)meta->nr_types, &six, &quiet, &btf);
	if (err) {
		free(cb);
		return err == -ENOMEM ? err : -EBADMSG;
	}
	if (b->ptr_size)
		d2b_btf__set_pointer_size(btf, b->ptr_size);
	err = ext->borrow(btf, cf->sec + SEC_EXT, &cb->user);
	if (err) {
		btf_set_backing(btf, NULL);	/* (b and cf stay the caller's) */
		d2b_btf__free(btf);
		free(cb);
		return err;
	}
	cb->blob = b;
	cb->cf = cf;
	*ret = btf;
	return 0;
}

/* Write btf's entry (made from the blob of size and digest dg): its
 * tables frozen (a third smaller, the same answers: hmap.h, strtab.h). */
static int to_cache(const char *dir, const char *name, const struct d2b_btf *btf,
		    const struct btf_cache_ext *ext, uint64_t size, uint64_t dg)
{
	struct cache_section sec[CACHE_MAX_SECTIONS];
	struct cache_meta meta = { .blob_size = size, .blob_digest = dg };
	struct strtab_index six = { 0 };
	size_t nr, nslots;
	const uint32_t *offs = btf_type_offsets(btf, &nr);
	void *strs = NULL, *mem = NULL;
	int err;

	strtab__index(btf_strtab(btf), &six);
	nslots = strtab__frozen_slots(six.nused);
	if (!nslots)
		return -E2BIG;
	strs = calloc(nslots, 8);
	if (!strs)
		return -ENOMEM;
	err = strtab__freeze(btf_strtab(btf), strs, nslots);
	if (!err)
		err = ext->freeze(btf_cache__user(btf, ext), sec + SEC_EXT, &mem);
	if (!err) {
		meta.nr_types = nr;
		meta.str_nslots = nslots;
		meta.str_nused = six.nused;
		meta.str_dups = six.dups;
		sec[SEC_META].data = &meta;
		sec[SEC_META].size = sizeof(meta);
		sec[SEC_OFFS].data = offs;
		sec[SEC_OFFS].size = nr * 4;
		sec[SEC_STRS].data = strs;
		sec[SEC_STRS].size = nslots * 8;
		err = cache_file__write(dir, name, ext->format, sec, SEC_EXT + ext->nr_sec,
					BTF_CACHE_PREFIX, BTF_CACHE_KEEP, NULL, 0);
	}
	free(strs);
	free(mem);
	return err;
}

/* Keep what the user makes of btf with it (btf's own arrays: a backing
 * of the user's part only). */
static int make_ext(struct d2b_btf *btf, const struct btf_cache_ext *ext)
{
	struct cache_backing *cb = backing_new(ext);
	int err;

	if (!cb)
		return -ENOMEM;
	err = ext->make(btf, &cb->user);
	if (err) {
		free(cb);
		return err;
	}
	btf_set_backing(btf, &cb->bk);
	return 0;
}

/* A file whose BTF cannot be used in place: read, not cached; a failure
 * said through diag (*said). */
static int load_uncached(const char *path, const struct btf_cache_ext *ext, struct diag *diag,
			 bool *said, struct d2b_btf **ret)
{
	char why[1024];
	int err = d2b_btf__load_file(path, NULL, ret, why, sizeof(why));

	if (err) {
		diag__say(diag, D2B_ERROR, "%s", why);
		*said = true;
	} else if (d2b_btf__nr_types(*ret)) {
		err = make_ext(*ret, ext);
	}
	return err;
}

/*
 * The base at path read from cache_dir's entry of its bytes (a hit), or
 * parsed and the entry written.  D2B_BASE_CACHE_* as d2b_btf__load_base()
 * returns them (under an 80-line budget: the four outcomes of one entry).
 */
int btf_cache__load(const char *path, const char *cache_dir, const struct btf_cache_ext *ext,
		    struct diag *diag, struct d2b_btf **ret)
{
	struct cache_file *cf = NULL;
	struct btf_blob *b = NULL;
	struct d2b_btf *btf = NULL;
	char name[NAME_LEN], why[256];
	int err, r = D2B_BASE_CACHE_NONE;
	struct diag quiet;
	bool said = false;
	uint64_t dg = 0;

	*ret = NULL;
	if (SEC_EXT + ext->nr_sec > CACHE_MAX_SECTIONS)
		return -EINVAL;
	diag__init_kept(&quiet, false);	/* (why not in place: read otherwise) */
	if (btf_blob__map(path, cache_dir != NULL, &quiet, &b)) {
		err = load_uncached(path, ext, diag, &said, &btf);
		goto out;
	}
	if (cache_dir) {
		err = lazy__digest(b->lazy, &dg);
		if (err)
			goto out;
		snprintf(name, sizeof(name), BTF_CACHE_PREFIX "%016" PRIx64 "-%zx.v%u", dg, b->size,
			 (unsigned int)ext->format);
		cf = calloc(1, sizeof(*cf));
		if (!cf) {
			err = -ENOMEM;
			goto out;
		}
		err = cache_file__open(cf, cache_dir, name, ext->format, NULL, 0);
		if (!err) {
			err = from_cache(b, dg, cf, ext, &btf);
			if (!err) {
				b = NULL;	/* the BTF's now */
				cf = NULL;
				r = D2B_BASE_CACHE_HIT;
				goto out;
			}
			if (err == -ENOMEM)
				goto out;
		}
		r = err == -ENOENT ? D2B_BASE_CACHE_MADE : D2B_BASE_CACHE_REMADE;
	}
	/* (the parse reads every byte, and copies them) */
	err = b->lazy ? lazy__need_all(b->lazy) : 0;
	if (err)
		goto out;
	err = d2b_btf__parse_raw(b->data, b->size, NULL, &btf, why, sizeof(why));
	if (err) {	/* (as d2b_btf__load_file() says it) */
		diag__say(diag, D2B_ERROR, "%s%s", b->ptr_size ? ".BTF: " : "", why);
		said = true;
	}
	if (!err && b->ptr_size)
		d2b_btf__set_pointer_size(btf, b->ptr_size);
	if (err || !d2b_btf__nr_types(btf))
		goto out;
	err = make_ext(btf, ext);
	if (err || !cache_dir)
		goto out;
	/* only a base the cached path can take again: host order */
	if (d2b_btf__endian(btf) != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				     D2B_ENDIAN_LITTLE : D2B_ENDIAN_BIG))
		r = D2B_BASE_CACHE_NONE;
	else if (to_cache(cache_dir, name, btf, ext, b->size, dg))
		r = D2B_BASE_CACHE_UNWRITABLE;
out:
	btf_blob__release(b);
	cache_release(cf);
	if (err) {
		d2b_btf__free(btf);
		if (!said)
			diag__say(diag, D2B_ERROR, "%s", strerror(-err));
		return err;
	}
	*ret = btf;
	return r;
}
