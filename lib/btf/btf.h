/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal view of struct d2b_btf: mutable access, the field iterator and
 * ID reservation, for the modules that build and rewrite type graphs.
 */
#ifndef D2B_BTF_H
#define D2B_BTF_H

#include "dwarf2btf.h"

struct strtab;

/* Limits of the BTF encoding (the type-ID, name and vlen ones are public:
 * D2B_MAX_* in dwarf2btf.h) and of our walks over it */
enum {
	BTF_MAX_INT_SIZE = 16,			/* bytes: an INT has at most 128 bits */
	BTF_MAX_BITFIELD_SIZE = 0xff,		/* bits, in a kind_flag member's offset word */
	BTF_MAX_BITFIELD_OFFSET = 0xffffff,	/* bits, ditto */
	BTF_MAX_RESOLVE_DEPTH = 64,		/* typedefs, modifiers, arrays followed for a size */
};

/*
 * A read-only view of a BTF's types for hot loops: d2b_btf__type() without
 * the call, for IDs of the BTF's own; a base's go through the call.  Valid
 * until the BTF gets another type (its arrays may move): take it again then.
 */
enum { BTF_OFF_RESERVED = UINT32_MAX };	/* an ID reserved, its type not yet added */

struct btf_view {
	const struct d2b_btf *btf;
	const uint32_t *words;
	const uint32_t *offs;	/* per own type: its first word, or BTF_OFF_RESERVED */
	uint32_t start_id, nr;
};

void btf_view_init(struct btf_view *v, const struct d2b_btf *btf);

static inline const struct d2b_type *btf_view_type(const struct btf_view *v, uint32_t id)
{
	uint32_t i = id - v->start_id, off;

	if (id < v->start_id || i >= v->nr)
		return d2b_btf__type(v->btf, id);	/* void, a base's, or none */
	off = v->offs[i];
	return off == BTF_OFF_RESERVED ? NULL : (const struct d2b_type *)(v->words + off);
}

/* Number of 32-bit words a type occupies, header included. */
size_t btf_type_words(const struct d2b_type *t);

/* A name the kernel takes where it wants an identifier ([A-Za-z_.][A-Za-z0-9_.]*,
 * shorter than KSYM_NAME_LEN), as btf_verify.c checks it. */
bool btf_name_is_ident(const char *s);

/*
 * Kind predicates, named once here rather than re-listed where they are used.
 */

/* STRUCT or UNION: a size and members */
static inline bool btf_kind_is_composite(unsigned int kind)
{
	return kind == D2B_KIND_STRUCT || kind == D2B_KIND_UNION;
}

/* ENUM or ENUM64 (a forward enum too: vlen 0) */
static inline bool btf_kind_is_enum(unsigned int kind)
{
	return kind == D2B_KIND_ENUM || kind == D2B_KIND_ENUM64;
}

/* A C type qualifier: CONST, VOLATILE or RESTRICT */
static inline bool btf_kind_is_qualifier(unsigned int kind)
{
	return kind == D2B_KIND_CONST || kind == D2B_KIND_VOLATILE || kind == D2B_KIND_RESTRICT;
}

/* A qualifier or a TYPE_TAG: wraps a type without changing its layout
 * (libbpf's btf_is_mod()) */
static inline bool btf_kind_is_modifier(unsigned int kind)
{
	return btf_kind_is_qualifier(kind) || kind == D2B_KIND_TYPE_TAG;
}

/* The kinds whose t->size is a size in bytes (INT ENUM* STRUCT UNION FLOAT
 * DATASEC); the others use the word for a type ID, or not at all. */
static inline bool btf_kind_has_size(unsigned int kind)
{
	return kind == D2B_KIND_INT || btf_kind_is_enum(kind) || btf_kind_is_composite(kind) ||
	       kind == D2B_KIND_FLOAT || kind == D2B_KIND_DATASEC;
}

/* An inline-site kind (LOC_PARAM, LOC_PROTO, LOCSEC): the bpf tree's */
static inline bool btf_kind_is_loc(unsigned int kind)
{
	return kind >= D2B_KIND_LOC_PARAM && kind <= D2B_KIND_LOCSEC;
}

/* The builder's vlen limit for a kind: 24 bits for the inline-site kinds,
 * which only kernels reading 24 bits know; 16 for the others */
static inline uint32_t btf_kind_max_vlen(unsigned int kind)
{
	return btf_kind_is_loc(kind) ? D2B_MAX_VLEN_WIDE : D2B_MAX_VLEN;
}

/* What a FWD declares: STRUCT, or UNION when its kind_flag is set. */
static inline unsigned int btf_fwd_kind(const struct d2b_type *t)
{
	return d2b_kflag(t) ? D2B_KIND_UNION : D2B_KIND_STRUCT;
}

/* dst takes src's data model (byte order, pointer size, the vlen24 mark):
 * a BTF made from another describes the same target. */
void btf_copy_model(struct d2b_btf *dst, const struct d2b_btf *src);
/*
 * The vlen24 mark: btf is for a kernel that reads 24-bit vlen and the
 * inline-site kinds (the bpf tree, 2026).  Encoding writes a type whose
 * vlen is over D2B_MAX_VLEN only then (-E2BIG otherwise).  A BTF over a
 * base starts with the base's mark; one read from bytes is marked if a
 * type of its had such a vlen.  Off by default: every 6.x kernel reads 16
 * bits.  The verifier is told apart (D2B_VERIFY_LOC_KINDS).
 */
void btf_set_vlen24(struct d2b_btf *btf, bool on);
bool btf_vlen24(const struct d2b_btf *btf);
/* The own type of the largest vlen (0 if none has any), and that vlen */
uint32_t btf_widest_type(const struct d2b_btf *btf, uint32_t *ret_vlen);
/* The layout record of a kind this library knows, or NULL */
const struct d2b_layout *btf_kind_layout(unsigned int kind);
/* Set the layout section's records (copied; nr 0: none), split BTF too:
 * the reader keeps the section it found (libbpf and the kernel take one in
 * split BTF; we never write one there ourselves) */
int btf_set_layout_records(struct d2b_btf *btf, const struct d2b_layout *recs, uint32_t nr);
/* Whether btf (or the base it was made over) recorded a pointer size. */
bool btf_pointer_size_recorded(const struct d2b_btf *btf);
/* d2b_btf__encode() in byte order order (NATIVE: the host's), whatever
 * btf's own: the ELF writer encodes in its file's order. */
int btf_encode_in(const struct d2b_btf *btf, enum d2b_endian order, void **ret, size_t *ret_size);
/* Why encoding btf failed with err, as one phrase: which type's vlen is
 * too large (-E2BIG, not marked btf_set_vlen24()), or strerror() */
void btf_encode_why(const struct d2b_btf *btf, int err, char *buf, size_t len);

/*
 * A BTF (no base) over types and strings it does not own, as a cache keeps
 * them: words (nwords, host order), offs (the word where each of the nr
 * types starts) and strs (strtab__borrow_frozen()), which must outlive
 * it, or be released with it (its backing's).  They are taken as they are,
 * unchecked: only for what was checked when the cache was made.  The first change
 * copies them.  NULL if out of memory (strs is not freed then).
 */
struct d2b_btf *btf_new_borrowed(const uint32_t *words, size_t nwords, const uint32_t *offs,
				 size_t nr, struct strtab *strs);
/*
 * What a BTF's bytes were loaded from and with, where they are not only its
 * own arrays: btf_cache.c's (the file's blob, its cache entry, what the
 * cache's user made of the base) embeds one.  lazy: the blob's bytes are
 * read where asked for (lazy.h), and every reader of the borrowed types
 * and of the strings asks it first; NULL: they are in memory.  release()
 * frees it with the BTF, after the BTF's own arrays (they may lie in it).
 */
struct lazy;
struct btf_backing {
	struct lazy *lazy;
	void (*release)(struct btf_backing *bk);
};
/* btf's backing is bk now (NULL: none, nothing released), its strings read
 * through bk->lazy; the one it had is not released. */
void btf_set_backing(struct d2b_btf *btf, struct btf_backing *bk);
struct btf_backing *btf_backing(const struct d2b_btf *btf);

/*
 * The bytes of a file's BTF (raw BTF, or an ELF file's .BTF section) where
 * the file has them, mapped read-only: no copy; or, lazy, read block by
 * block where asked for (lazy.h: then b->lazy says what is read, and every
 * reader asks it first).  ptr_size: the ELF file's (0 for raw BTF).
 * -EOPNOTSUPP where they cannot be used in place (a compressed section, not
 * a regular file): d2b_btf__load_file() reads such files.  Why it failed:
 * one D2B_ERROR through diag.  Released by btf_blob__release().
 */
struct btf_blob {
	const void *data;
	size_t size;
	unsigned int ptr_size;
	void *map;
	size_t map_len;
	bool want_lazy;
	struct lazy *lazy;
};
struct diag;
int btf_blob__map(const char *path, bool lazy, struct diag *diag, struct btf_blob **ret);
void btf_blob__release(struct btf_blob *b);
struct strtab_index;
/* d2b_btf__parse_raw() of a blob it took before, whose type offsets and
 * string index (frozen: strtab__freeze()) a cache kept (btf_io.c says what
 * is checked again), the blob's bytes read through bk->lazy, bk the BTF's
 * backing (released with it; not, if the parse fails);
 * -EOPNOTSUPP for a blob not in host order or whose types are unaligned. */
int btf_parse_known(const void *data, size_t size, struct btf_backing *bk, const uint32_t *offs,
		    size_t nr, const struct strtab_index *six, struct diag *diag,
		    struct d2b_btf **ret);
/* The first read error of the lazy bytes of btf or of its bases, or 0:
 * until it is asked, a type or string they could not read is missing. */
int btf_lazy_error(const struct d2b_btf *btf);
/* The word where each own type starts (*nr of them), for a cache. */
const uint32_t *btf_type_offsets(const struct d2b_btf *btf, size_t *nr);

/*
 * What a user of a base (the merge, its index) keeps in the base's cache
 * entry beside the base's parse (btf_cache.c): make() makes it of a base,
 * freeze() gives its nr_sec sections to be written (*mem freed after),
 * borrow() takes it again from an entry's sections, checked against the
 * base (-EBADMSG: not this library's); the base's backing keeps it, to be
 * found by btf_cache__user() and freed by release().  format: the entry's
 * version, which changes with anything either part keeps.
 */
struct cache_section;
enum { BTF_CACHE_OWN_SECTIONS = 3 };	/* the base's own, before the user's */
struct btf_cache_ext {
	unsigned int nr_sec;
	uint32_t format;
	int (*make)(const struct d2b_btf *base, void **ret);
	int (*freeze)(const void *p, struct cache_section *sec, void **mem);
	int (*borrow)(const struct d2b_btf *base, const struct cache_section *sec, void **ret);
	void (*release)(void *p);
};
/* d2b_btf__load_base() for a user ext of the base: D2B_BASE_CACHE_* or a
 * negative errno, said through diag. */
int btf_cache__load(const char *path, const char *cache_dir, const struct btf_cache_ext *ext,
		    struct diag *diag, struct d2b_btf **ret);
/* What ext made of base, kept with it by btf_cache__load(), or NULL */
void *btf_cache__user(const struct d2b_btf *base, const struct btf_cache_ext *ext);

/* Own types only; NULL for a base or invalid ID. */
struct d2b_type *btf_type_mut(struct d2b_btf *btf, uint32_t id);
struct strtab *btf_strtab(const struct d2b_btf *btf);
/*
 * Whether every string of btf's own was added after a search of its bases
 * that missed (d2b_btf__add_str() over a base, or with no base), so that
 * none of them is a base's string.  btf_strs_mixed() says it may no longer
 * hold (strings loaded from a file, or added without that search).
 */
bool btf_strs_apart(const struct d2b_btf *btf);
void btf_strs_mixed(struct d2b_btf *btf);
/*
 * Add s to btf's own strings without looking for it in the bases: for a
 * string the caller knows none of them has (an own string of another BTF
 * over the same base, for which btf_strs_apart() holds).  btf_add_own_str():
 * the same of s's len > 0 bytes, whose hash_bytes() is h (a str_adder's,
 * after its memo missed).
 */
int btf_add_str_apart(struct d2b_btf *btf, const char *s);
int btf_add_own_str(struct d2b_btf *btf, const char *s, size_t len, uint64_t h);
/*
 * The builders of named kinds, of a name already added (by a str_adder:
 * its offset, or a negative errno, returned as it is): d2b_btf__add_*()'s
 * answers.  0 is no name (a kind that must have one: -EINVAL).
 */
int btf_add_int_off(struct d2b_btf *btf, int name_off, uint32_t size, unsigned int encoding);
int btf_add_float_off(struct d2b_btf *btf, int name_off, uint32_t size);
int btf_add_ref_off(struct d2b_btf *btf, enum d2b_kind kind, int name_off, uint32_t type);
int btf_add_composite_off(struct d2b_btf *btf, enum d2b_kind kind, int name_off, uint32_t size);
int btf_add_fwd_off(struct d2b_btf *btf, int name_off, bool is_union);
int btf_add_enum_off(struct d2b_btf *btf, enum d2b_kind kind, int name_off, uint32_t size,
		     bool is_signed);
int btf_add_enum_value_off(struct d2b_btf *btf, int name_off, int64_t value);
int btf_add_param_off(struct d2b_btf *btf, int name_off, uint32_t type);
int btf_add_func_off(struct d2b_btf *btf, int name_off, enum d2b_linkage linkage, uint32_t proto);
int btf_add_decl_tag_off(struct d2b_btf *btf, int value_off, uint32_t target, int component_idx);
/*
 * For the builders outside btf.c (btf_loc.c): add a type of nwords words
 * with name (NULL: none), info and size_or_type, the rest zeroed (*ret: it,
 * until the next add); make id the open type, which the next
 * btf_grow_open() extends by nwords zeroed words of one more record, if it
 * is of a kind in kind_mask (-EINVAL otherwise; -E2BIG past the kind's
 * btf_kind_max_vlen()).
 */
int btf_add_type(struct d2b_btf *btf, const char *name, uint32_t info, uint32_t size_or_type,
		 size_t nwords, struct d2b_type **ret);
void btf_set_open(struct d2b_btf *btf, uint32_t id);
int btf_grow_open(struct d2b_btf *btf, unsigned int kind_mask, size_t nwords, uint32_t **ret_tail);
/* d2b_btf__add_member() of a name already added (its offset). */
int btf_add_member_off(struct d2b_btf *btf, uint32_t name_off, uint32_t type,
		       uint32_t bit_offset, uint32_t bitfield_size);
/* First string offset that is ours (the base's string size), and the end. */
uint32_t btf_start_str(const struct d2b_btf *btf);
uint32_t btf_end_str(const struct d2b_btf *btf);

/*
 * Reservation: a type's ID can be taken before its body is known, so that
 * cycles (a struct whose members point back at it) close.  The next add_*()
 * after btf_define(btf, id) writes the body of id instead of a new type.
 * Until then d2b_btf__type() returns NULL for it, and encoding fails.
 */
int btf_reserve(struct d2b_btf *btf);
int btf_define(struct d2b_btf *btf, uint32_t id);
/* Room for nwords more words of types and ntypes more types, at once (a
 * BTF about to be built from input of a known size, not grown by
 * doubling and copying). */
int btf_reserve_room(struct d2b_btf *btf, size_t nwords, size_t ntypes);

/*
 * Hand a BTF without types of its own nr types at once: words (nwords
 * words, host order, every kind known) with offs[i] the word where type
 * start_id + i starts, both from malloc() and now the BTF's to free.
 * Checking them is the caller's work (a raw parse does it).  -EBUSY if
 * the BTF already has types; the arrays stay the caller's then.
 */
int btf_adopt_types(struct d2b_btf *btf, uint32_t *words, size_t nwords, uint32_t *offs,
		    size_t nr);

/*
 * One iterator over the type-ID fields or the string-offset fields of a
 * type, so that every remapping pass is written once.
 */
enum btf_field_kind {
	BTF_FIELD_IDS,
	BTF_FIELD_STRS,
};

struct btf_field_iter {
	uint32_t *words;
	struct { uint32_t off, stride, count; } seg[2];
	unsigned int nseg, s, i;
};

/*
 * A string-only base: no types, and as strings "" then those of data (a
 * string section such as .debug_str, len bytes), each indexed at its first
 * occurrence, so that equal strings have one offset.  BTFs over it share
 * its strings by offset.  Past them lies its tails range: the same bytes
 * again, at btf_names_tails(btf) + their offset, for the names that lie in
 * data only as the tail of a longer string (a linker's string merging
 * keeps "int" only inside "unsigned int", say; see str_adder.h).  NULL:
 * no memory, or data too large for BTF string offsets.
 */
struct d2b_btf *btf_new_names(const char *data, size_t len);
/* The first offset of a names base's tails range (0: not a names base) */
uint32_t btf_names_tails(const struct d2b_btf *names);
/*
 * Append a copy of src's type id to dst: type IDs translated through map
 * (indexed by src IDs, covering all of them; map[0] = 0), strings added to
 * dst (or found in its base).  Returns the new ID.
 */
int btf_add_copy(struct d2b_btf *dst, const struct d2b_btf *src, uint32_t id, const uint32_t *map);
/* The same, with smemo[o - btf_start_str(src)] (btf_end_str(src) -
 * btf_start_str(src) entries, zeroed by the caller for a new dst) keeping
 * the dst offset of each own src string offset o met, so that a string
 * copied again is not looked up again (a base's string is, each time). */
int btf_add_copy_memo(struct d2b_btf *dst, const struct d2b_btf *src, uint32_t id,
		      const uint32_t *map, uint32_t *smemo);

void btf_field_iter__init(struct btf_field_iter *it, struct d2b_type *t, enum btf_field_kind which);
/* The next field, NULL after the last (inline: the merge's inner loop) */
static inline uint32_t *btf_field_iter__next(struct btf_field_iter *it)
{
	while (it->s < it->nseg) {
		if (it->i < it->seg[it->s].count)
			return &it->words[it->seg[it->s].off + it->seg[it->s].stride * it->i++];
		it->s++;
		it->i = 0;
	}
	return NULL;
}

static inline const struct d2b_member *btf_members(const struct d2b_type *t)
{
	return (const struct d2b_member *)(t + 1);
}

static inline const struct d2b_param *btf_params(const struct d2b_type *t)
{
	return (const struct d2b_param *)(t + 1);
}

static inline const struct d2b_enum *btf_enums(const struct d2b_type *t)
{
	return (const struct d2b_enum *)(t + 1);
}

static inline const struct d2b_enum64 *btf_enums64(const struct d2b_type *t)
{
	return (const struct d2b_enum64 *)(t + 1);
}

static inline const struct d2b_array *btf_array(const struct d2b_type *t)
{
	return (const struct d2b_array *)(t + 1);
}

static inline const struct d2b_var_secinfo *btf_secinfos(const struct d2b_type *t)
{
	return (const struct d2b_var_secinfo *)(t + 1);
}

static inline uint32_t btf_int_word(const struct d2b_type *t)
{
	return *(const uint32_t *)(t + 1);
}

static inline int32_t btf_decl_tag_idx(const struct d2b_type *t)
{
	return ((const struct d2b_decl_tag *)(t + 1))->component_idx;
}

static inline uint32_t btf_var_linkage(const struct d2b_type *t)
{
	return ((const struct d2b_var *)(t + 1))->linkage;
}

static inline uint64_t btf_enum64_val(const struct d2b_enum64 *e)
{
	return (uint64_t)e->val_hi32 << 32 | e->val_lo32;
}

#endif
