/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct str_adder: how a builder adds names to a BTF it builds, with the
 * memos that make it fast; the builder's (a unit's walk), not the BTF's,
 * which keeps only the strings themselves (str_adder.c says why).
 */
#ifndef D2B_STR_ADDER_H
#define D2B_STR_ADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct d2b_btf;
struct ptr_cache;
struct str_memo;
struct strtab;

struct str_adder {
	struct d2b_btf *btf;		/* the BTF the names go into */
	const struct strtab *base_strs;	/* its base's strings, with a memo */
	struct ptr_cache *memo;		/* names memo (str_adder__use_names()), or NULL */
	/* with memo: the names' section, and whether each of its strings is
	 * there once (a linked file's merged .debug_str): a string that starts
	 * there is then its own first occurrence, at base offset 1 + its offset */
	const char *names_lo;
	size_t names_len;
	bool names_unique;
	uint32_t names_tails;		/* the names base's tails range */
	struct str_memo *base_memo;	/* lookups in a base of types, or NULL */
};

/* Add names to btf as d2b_btf__add_str() does, without a memo (yet). */
void str_adder__init(struct str_adder *a, struct d2b_btf *btf);
/*
 * btf's base must be a names base (btf_new_names()), made from the bytes
 * memo covers, which must not change.  str_adder__add(a, s) then gives a
 * string memo covers its base offset: its first occurrence as a whole
 * string; or, for the tail of longer strings only, its place in the tails
 * range (where it lies in the section: as many places as strings it ends,
 * in a section whose strings were merged by another linker than GNU ld's);
 * and remembers it in memo, for every BTF over that base.  A string from
 * elsewhere that is not a whole string of the base becomes btf's own.  One
 * name can so have several offsets (own, and tails); the dedup, the only
 * reader of such BTFs, gives it one in the destination (an own string of
 * the destination, for a name that is no whole string of the base).
 * -EINVAL if btf's base is not such a base, or a has a base memo.
 */
int str_adder__use_names(struct str_adder *a, struct ptr_cache *memo);
/*
 * Look strings up in btf's base through memo (one thread's): for a BTF
 * over a base of types that has no base itself, without a names memo.
 * The offsets are those the base's own lookups give.  -EINVAL otherwise.
 */
int str_adder__use_base_memo(struct str_adder *a, struct str_memo *memo);
/* d2b_btf__add_str(a->btf, s), through the memos: the offset, or a negative errno */
int str_adder__add(struct str_adder *a, const char *s);
/*
 * str_adder__add() of s[0 .. n) into offs[], with the same answers and in
 * the same order; through a base memo, the cache misses of a few lookups
 * overlap (a struct's member names).  Stops at the first error.
 */
int str_adder__add_many(struct str_adder *a, const char *const *s, uint32_t *offs, size_t n);

#endif
