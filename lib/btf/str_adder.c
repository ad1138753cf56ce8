// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Adding names: the memos beside the type graph
 * =============================================
 *
 * A unit's walk adds a name for nearly every type, member and parameter,
 * and most of them are the base's: a string of the names base (the file's
 * .debug_str, btf_new_names()) for a whole program, or of vmlinux's BTF
 * for a module.  d2b_btf__add_str() finds them by hashing the bytes and
 * probing the base's table, for each name again.  Two memos save that:
 *
 *  - the names memo (struct ptr_cache, one per thread, shared by the units
 *    it walks): a name read from .debug_str is a pointer into the section,
 *    which does not move, so the pointer is the key; in a linked file's
 *    merged section every string is there once, and a pointer to a
 *    string's start is its offset without a lookup at all;
 *  - the base memo (struct str_memo, one per thread): the answers of the
 *    lookups in a base of types, kept by the name's hash, a batch of them
 *    looked up with their cache misses overlapped (str_adder__add_many()).
 *
 * Both are the builder's, not the BTF's: a struct d2b_btf keeps its types
 * and strings, and what helps one builder fill it lives with that builder
 * (a unit walker keeps its str_adder beside its other scratch), so that
 * nothing in the graph says how it was made.  The answers are the ones
 * d2b_btf__add_str() gives, but for the tails of a names base: a string
 * that lies in the section only as the tail of longer ones gets its place
 * in the base's tails range (btf_names_tails()), which the merge maps to
 * one offset by its bytes.  So every own string of a BTF built through an
 * adder was looked for in its bases first, and missed (btf_strs_apart()).
 *
 * Threads: an adder, its memos and its BTF belong to one thread.
 */
#include <errno.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/str_adder.h"
#include "base/hmap.h"
#include "base/ptr_cache.h"
#include "base/str_memo.h"
#include "base/strtab.h"

void str_adder__init(struct str_adder *a, struct d2b_btf *btf)
{
	memset(a, 0, sizeof(*a));
	a->btf = btf;
}

int str_adder__use_names(struct str_adder *a, struct ptr_cache *memo)
{
	const struct d2b_btf *base = d2b_btf__base(a->btf);

	if (a->base_memo)
		return -EINVAL;
	if (!base || d2b_btf__base(base) || d2b_btf__nr_types(base) || !btf_names_tails(base) ||
	    ptr_cache__size(memo) + 2 != strtab__size(btf_strtab(base)))
		return -EINVAL;
	a->memo = memo;
	a->base_strs = btf_strtab(base);
	a->names_lo = ptr_cache__lo(memo);
	a->names_len = ptr_cache__size(memo);
	a->names_unique = !strtab__loaded_dups(a->base_strs);
	a->names_tails = btf_names_tails(base);
	return 0;
}

int str_adder__use_base_memo(struct str_adder *a, struct str_memo *memo)
{
	const struct d2b_btf *base = d2b_btf__base(a->btf);

	if (!base || d2b_btf__base(base) || btf_start_str(base) || a->memo)
		return -EINVAL;
	a->base_memo = memo;
	a->base_strs = btf_strtab(base);
	return 0;
}

/* A string of the names section, o bytes into it */
static int add_name(struct str_adder *a, const char *s, uintptr_t o)
{
	int64_t off;
	uint32_t v;

	if (a->names_unique && (o == 0 || s[-1] == '\0'))
		return (int)(1 + o);
	if (!ptr_cache__get(a->memo, s, &v)) {
		/* a string of the names base, at its first occurrence; or
		 * only the tail of longer ones (a linker merged it into
		 * "unsigned int", say): its place in the tails range, which
		 * the merge maps to one offset by its bytes */
		off = strtab__find(a->base_strs, s);
		v = off > 0 ? (uint32_t)off : a->names_tails + 1 + (uint32_t)o;
		ptr_cache__put(a->memo, s, v);
	}
	return (int)v;
}

/* Over one base: its lookups through the memo, the hash kept for our own
 * table (s of len > 0 bytes, hash h). */
static int add_base_memo(struct str_adder *a, const char *s, size_t len, uint64_t h)
{
	int64_t off = str_memo__find(a->base_memo, a->base_strs, s, len, h);

	if (off > 0)
		return (int)off;
	return btf_add_own_str(a->btf, s, len, h);
}

int str_adder__add(struct str_adder *a, const char *s)
{
	size_t len;

	if (!s || !*s)
		return 0;
	if (a->memo) {
		/* (below the section, the difference wraps past names_len) */
		uintptr_t o = (uintptr_t)s - (uintptr_t)a->names_lo;

		if (o < a->names_len)
			return add_name(a, s, o);
		/* from elsewhere (.debug_info, or one of ours): looked for
		 * in the base, so that every own string is one the base
		 * lacks, as a tail is, and the merge maps it without looking
		 * again (btf_strs_apart()) */
	} else if (a->base_memo) {
		len = strlen(s);
		return add_base_memo(a, s, len, hash_bytes(s, len, 0));
	}
	return d2b_btf__add_str(a->btf, s);
}

/* str_adder__add_many() looks up this many strings together */
enum { ADD_MANY_BATCH = 16 };

int str_adder__add_many(struct str_adder *a, const char *const *s, uint32_t *offs, size_t n)
{
	uint64_t h[ADD_MANY_BATCH];
	size_t len[ADD_MANY_BATCH], i, j, k;
	int r;

	if (!a->base_memo) {
		for (i = 0; i < n; i++) {
			r = str_adder__add(a, s[i]);
			if (r < 0)
				return r;
			offs[i] = (uint32_t)r;
		}
		return 0;
	}
	/* each batch in three rounds: every string's memo slot fetched, then
	 * what each slot leads to, then the lookups, in order */
	for (i = 0; i < n; i += k) {
		k = n - i < ADD_MANY_BATCH ? n - i : ADD_MANY_BATCH;
		for (j = 0; j < k; j++) {
			len[j] = s[i + j] ? strlen(s[i + j]) : 0;
			if (len[j]) {
				h[j] = hash_bytes(s[i + j], len[j], 0);
				str_memo__prefetch(a->base_memo, h[j]);
			}
		}
		for (j = 0; j < k; j++) {
			if (len[j])
				str_memo__prefetch_next(a->base_memo, a->base_strs, h[j]);
		}
		for (j = 0; j < k; j++) {
			r = len[j] ? add_base_memo(a, s[i + j], len[j], h[j]) : 0;
			if (r < 0)
				return r;
			offs[i + j] = (uint32_t)r;
		}
	}
	return 0;
}
