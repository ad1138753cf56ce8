/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct strtab: a deduplicated string table in BTF layout (offset 0 is "",
 * every string NUL-terminated).  Offsets are stable; the buffer may move.
 */
#ifndef D2B_STRTAB_H
#define D2B_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab__new(bool force_collisions);
void strtab__free(struct strtab *st);
/* offset of s (added if missing), or negative errno */
int64_t strtab__add(struct strtab *st, const char *s);
int64_t strtab__add_len(struct strtab *st, const char *s, size_t len);
/* offset of s if present, else -ENOENT */
int64_t strtab__find(const struct strtab *st, const char *s);
/* The same for s of len > 0 bytes whose hash_bytes(s, len, 0) is h. */
int64_t strtab__find_hashed(const struct strtab *st, const char *s, size_t len, uint64_t h);
int64_t strtab__add_hashed(struct strtab *st, const char *s, size_t len, uint64_t h);
/* Bring into the caches what a lookup of a string of hash h reads first (its
 * index slot), or the bytes at off; neither changes anything. */
void strtab__prefetch(const struct strtab *st, uint64_t h);
void strtab__prefetch_at(const struct strtab *st, uint64_t off);
/* Whether the string at off is s (len bytes). */
bool strtab__has_at(const struct strtab *st, uint64_t off, const char *s, size_t len);
/* Fill a new table with raw table data (from a parsed BTF) byte for byte,
 * indexing every string; a duplicate inside data keeps its first offset in
 * the index.  data must end with a NUL.  -EBUSY if the table is not new. */
int strtab__load(struct strtab *st, const char *data, size_t len);
/* strtab__load() of "", then len bytes of a string section (data), then a
 * NUL, without copying them twice: the table is len + 2 bytes long. */
int strtab__load_section(struct strtab *st, const char *data, size_t len);
/*
 * A table's index as it is: slots: nslots slots of 8 bytes (host order),
 * of which nused hold a string.  A cache keeps it frozen (below).
 */
struct strtab_index {
	const void *slots;
	size_t nslots, nused;
	bool dups;		/* strtab__loaded_dups() */
};
/* (For a table still on strtab__borrow_frozen()'s slots: those.) */
void strtab__index(const struct strtab *st, struct strtab_index *ix);
/*
 * The frozen form of an index, for a cache: nslots slots of 8 bytes (two
 * uint32_t: offset, then tag; host order), at most 3/4 full and any number
 * of them (strtab__frozen_slots(nused) for nused strings; 0 if too many).
 * strtab__freeze() fills slots (caller memory, 4-byte aligned, zeroed by
 * it) from st's index: -EINVAL if nslots is too few for st's strings or
 * 2^32 or more, or st has force_collisions (not recorded).
 * strtab__borrow_frozen() is a table over st's data (len bytes: "", the
 * strings, a NUL last) and an index of such slots (with st's nused and
 * dups), copying neither: they must outlive the table (a read-only mapping
 * will do).  Lookups give the offsets st's own index gives, and the first
 * change copies the data and rebuilds an ordinary index, after which the
 * table is an ordinary one.  NULL if ix cannot be such an index, or out
 * of memory.
 */
size_t strtab__frozen_slots(size_t nused);
int strtab__freeze(const struct strtab *st, void *slots, size_t nslots);
struct strtab *strtab__borrow_frozen(const char *data, size_t len,
				     const struct strtab_index *ix);
/* Whether strtab__load() met some non-empty string more than once. */
bool strtab__loaded_dups(const struct strtab *st);
/*
 * A borrowed table's bytes that are a lazy blob's (lazy.h): every string
 * is asked for before it is read or compared; one that cannot be read is
 * missing (NULL, or not found), and lazy__error() says why.
 */
struct lazy;
void strtab__set_lazy(struct strtab *st, struct lazy *lz);
const char *strtab__str(const struct strtab *st, uint32_t off);
const char *strtab__data(const struct strtab *st);
size_t strtab__size(const struct strtab *st);

#endif
