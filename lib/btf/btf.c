// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * struct d2b_btf keeps types in their on-disk layout (host byte order) in
 * one growable array of 32-bit words, with a second array giving the word
 * offset of each own type.  Because the offset table, not the position in
 * the word array, orders the types, an ID can be reserved before its body
 * is written (cycles) and the body appended later.  Strings live in a
 * deduplicated strtab; a split BTF looks names up in its base first so that
 * it never duplicates a base string.
 *
 * The target's data model travels with the object: its byte order (that of
 * the encoded form) and its pointer size, which BTF does not record (a PTR
 * has no size) but a DATASEC entry's size depends on.  A split BTF starts
 * with its base's.
 *
 * The struct keeps the type graph only.  What helps a builder fill it (the
 * memos of names, str_adder.c) is the builder's; what a loaded BTF's bytes
 * live in (a mapping, a lazy reader, a cache entry) and what a cache's
 * user made of it are its backing's (struct btf_backing, btf_cache.c),
 * which the graph only reads lazy bytes through and releases with itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "base/lazy.h"
#include "base/hmap.h"
#include "base/strtab.h"
#include "base/vec.h"

struct d2b_btf {
	const struct d2b_btf *base;
	uint32_t start_id;
	uint32_t start_str;
	uint32_t *words;
	size_t nwords, words_cap;
	uint32_t *offs;
	size_t nr, offs_cap;
	struct strtab *strs;
	enum d2b_endian endian;
	uint32_t ptr_size;	/* bytes; 0: not recorded */
	uint32_t define_id;	/* next add_*() defines this reserved ID */
	uint32_t open_id;	/* type accepting members/values/params, or 0 */
	/* every own string was looked for in the bases first, and missed */
	bool strs_apart;
	/* a names base: its tails range starts here (btf_new_names()) */
	uint32_t names_tails;
	/* for a kernel reading 24-bit vlen (btf_set_vlen24()) */
	bool vlen24;
	/* the layout section encode writes (host order), or NULL */
	struct d2b_layout *layout;
	uint32_t nr_layout;
	/* words and offs are borrowed (btf_new_borrowed()): copied before
	 * the first change */
	bool borrowed;
	/* what the bytes were loaded from and with (btf_set_backing()), or
	 * NULL: where backing->lazy is set, borrowed types and the strings
	 * are read through it */
	struct btf_backing *backing;
};

static const struct d2b_type void_type;

static const char *const kind_names[] = {
	[D2B_KIND_UNKN] = "UNKNOWN",
	[D2B_KIND_INT] = "INT",
	[D2B_KIND_PTR] = "PTR",
	[D2B_KIND_ARRAY] = "ARRAY",
	[D2B_KIND_STRUCT] = "STRUCT",
	[D2B_KIND_UNION] = "UNION",
	[D2B_KIND_ENUM] = "ENUM",
	[D2B_KIND_FWD] = "FWD",
	[D2B_KIND_TYPEDEF] = "TYPEDEF",
	[D2B_KIND_VOLATILE] = "VOLATILE",
	[D2B_KIND_CONST] = "CONST",
	[D2B_KIND_RESTRICT] = "RESTRICT",
	[D2B_KIND_FUNC] = "FUNC",
	[D2B_KIND_FUNC_PROTO] = "FUNC_PROTO",
	[D2B_KIND_VAR] = "VAR",
	[D2B_KIND_DATASEC] = "DATASEC",
	[D2B_KIND_FLOAT] = "FLOAT",
	[D2B_KIND_DECL_TAG] = "DECL_TAG",
	[D2B_KIND_TYPE_TAG] = "TYPE_TAG",
	[D2B_KIND_ENUM64] = "ENUM64",
	[D2B_KIND_LOC_PARAM] = "LOC_PARAM",
	[D2B_KIND_LOC_PROTO] = "LOC_PROTO",
	[D2B_KIND_LOCSEC] = "LOCSEC",
};

const char *d2b_kind_name(unsigned int kind)
{
	return kind <= D2B_KIND_LAST ? kind_names[kind] : "UNKNOWN";
}

struct d2b_btf *d2b_btf__new(const struct d2b_btf *base)
{
	struct d2b_btf *btf = calloc(1, sizeof(*btf));

	if (!btf)
		return NULL;
	btf->strs = strtab__new(false);
	if (!btf->strs) {
		free(btf);
		return NULL;
	}
	btf->base = base;
	btf->strs_apart = true;
	btf->start_id = base ? d2b_btf__end_id(base) : 1;
	btf->start_str = base ? btf_end_str(base) : 0;
	if (base) {
		btf->endian = base->endian;
		btf->ptr_size = base->ptr_size;
		btf->vlen24 = base->vlen24;
	}
	return btf;
}

void d2b_btf__free(struct d2b_btf *btf)
{
	if (!btf)
		return;
	strtab__free(btf->strs);
	if (!btf->borrowed) {
		free(btf->words);
		free(btf->offs);
	}
	free(btf->layout);
	/* (last: the above may lie in what it holds) */
	if (btf->backing)
		btf->backing->release(btf->backing);
	free(btf);
}

struct d2b_btf *btf_new_borrowed(const uint32_t *words, size_t nwords, const uint32_t *offs,
				 size_t nr, struct strtab *strs)
{
	struct d2b_btf *btf;

	if (nr > D2B_MAX_TYPE_ID)
		return NULL;
	btf = d2b_btf__new(NULL);
	if (!btf)
		return NULL;
	strtab__free(btf->strs);
	btf->strs = strs;
	btf->words = (uint32_t *)words;
	btf->nwords = btf->words_cap = nwords;
	btf->offs = (uint32_t *)offs;
	btf->nr = btf->offs_cap = nr;
	btf->borrowed = true;
	return btf;
}

/* The lazy blob a borrowed BTF's types are still read from, or NULL */
static inline struct lazy *types_lazy(const struct d2b_btf *btf)
{
	return btf->borrowed && btf->backing ? btf->backing->lazy : NULL;
}

/* Before the first change to a borrowed BTF's types: copies of its own. */
static int unshare(struct d2b_btf *btf)
{
	struct lazy *lz = types_lazy(btf);
	uint32_t *words, *offs;

	if (!btf->borrowed)
		return 0;
	if (lz && (lazy__need_all(lz) || lazy__error(lz)))
		return lazy__error(lz);
	words = malloc(btf->nwords ? btf->nwords * 4 : 1);
	offs = malloc(btf->nr ? btf->nr * 4 : 1);
	if (!words || !offs) {
		free(words);
		free(offs);
		return -ENOMEM;
	}
	memcpy(words, btf->words, btf->nwords * 4);
	memcpy(offs, btf->offs, btf->nr * 4);
	btf->words = words;
	btf->offs = offs;
	btf->borrowed = false;
	return 0;
}

void btf_set_backing(struct d2b_btf *btf, struct btf_backing *bk)
{
	btf->backing = bk;
	strtab__set_lazy(btf->strs, bk ? bk->lazy : NULL);
}

struct btf_backing *btf_backing(const struct d2b_btf *btf)
{
	return btf->backing;
}

int btf_lazy_error(const struct d2b_btf *btf)
{
	for (; btf; btf = btf->base) {
		if (btf->backing && btf->backing->lazy && lazy__error(btf->backing->lazy))
			return lazy__error(btf->backing->lazy);
	}
	return 0;
}

const uint32_t *btf_type_offsets(const struct d2b_btf *btf, size_t *nr)
{
	*nr = btf->nr;
	return btf->offs;
}

const struct d2b_btf *d2b_btf__base(const struct d2b_btf *btf)
{
	return btf->base;
}

uint32_t d2b_btf__start_id(const struct d2b_btf *btf)
{
	return btf->start_id;
}

uint32_t d2b_btf__end_id(const struct d2b_btf *btf)
{
	return btf->start_id + btf->nr;
}

uint32_t d2b_btf__nr_types(const struct d2b_btf *btf)
{
	return btf->nr;
}

struct strtab *btf_strtab(const struct d2b_btf *btf)
{
	return btf->strs;
}

uint32_t btf_start_str(const struct d2b_btf *btf)
{
	return btf->start_str;
}

uint32_t btf_end_str(const struct d2b_btf *btf)
{
	if (btf->names_tails)
		return 2 * btf->names_tails;
	return btf->start_str + strtab__size(btf->strs);
}

enum d2b_endian d2b_btf__endian(const struct d2b_btf *btf)
{
	return btf->endian;
}

void d2b_btf__set_endian(struct d2b_btf *btf, enum d2b_endian endian)
{
	btf->endian = endian;
}

uint32_t d2b_btf__pointer_size(const struct d2b_btf *btf)
{
	if (btf->ptr_size)
		return btf->ptr_size;
	return btf->base ? d2b_btf__pointer_size(btf->base) : sizeof(void *);
}

int d2b_btf__set_pointer_size(struct d2b_btf *btf, uint32_t size)
{
	if (size != 4 && size != 8)
		return -EINVAL;
	btf->ptr_size = size;
	return 0;
}

/*
 * What follows struct d2b_type in each kind, as the layout section
 * describes it: one record of info_sz bytes, vlen records of elem_sz
 * (btf_type_words() in bytes).  libbpf 1.8 writes the same table.
 */
static const struct d2b_layout kind_layouts[D2B_KIND_LAST + 1] = {
	[D2B_KIND_INT] = { .info_sz = 4 },
	[D2B_KIND_ARRAY] = { .info_sz = sizeof(struct d2b_array) },
	[D2B_KIND_STRUCT] = { .elem_sz = sizeof(struct d2b_member) },
	[D2B_KIND_UNION] = { .elem_sz = sizeof(struct d2b_member) },
	[D2B_KIND_ENUM] = { .elem_sz = sizeof(struct d2b_enum) },
	[D2B_KIND_FUNC_PROTO] = { .elem_sz = sizeof(struct d2b_param) },
	[D2B_KIND_VAR] = { .info_sz = sizeof(struct d2b_var) },
	[D2B_KIND_DATASEC] = { .elem_sz = sizeof(struct d2b_var_secinfo) },
	[D2B_KIND_DECL_TAG] = { .info_sz = sizeof(struct d2b_decl_tag) },
	[D2B_KIND_ENUM64] = { .elem_sz = sizeof(struct d2b_enum64) },
	[D2B_KIND_LOC_PARAM] = { .info_sz = sizeof(struct d2b_loc_param), .elem_sz = 4 },
	[D2B_KIND_LOC_PROTO] = { .elem_sz = 4 },
	[D2B_KIND_LOCSEC] = { .elem_sz = sizeof(struct d2b_loc) },
};

const struct d2b_layout *btf_kind_layout(unsigned int kind)
{
	return kind <= D2B_KIND_LAST ? &kind_layouts[kind] : NULL;
}

/* Whether an own type is of an inline-site kind */
static bool has_loc_kinds(const struct d2b_btf *btf)
{
	uint32_t id;

	for (id = btf->start_id; id < btf->start_id + btf->nr; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (t && btf_kind_is_loc(d2b_kind(t)))
			return true;
	}
	return false;
}

int btf_set_layout_records(struct d2b_btf *btf, const struct d2b_layout *recs, uint32_t nr)
{
	struct d2b_layout *copy = NULL;

	if (nr) {
		copy = malloc(nr * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, recs, nr * sizeof(*copy));
	}
	free(btf->layout);
	btf->layout = copy;
	btf->nr_layout = nr;
	return 0;
}

int d2b_btf__set_layout(struct d2b_btf *btf, bool on)
{
	if (on && btf->base)
		return -EINVAL;
	if (!on)
		return btf_set_layout_records(btf, NULL, 0);
	/* (pahole 1.32's twenty records, unless a reader needs more) */
	return btf_set_layout_records(btf, kind_layouts,
				      has_loc_kinds(btf) ? D2B_KIND_LAST + 1 : D2B_KIND_MAX + 1);
}

const struct d2b_layout *d2b_btf__layout(const struct d2b_btf *btf, uint32_t *ret_nr)
{
	*ret_nr = btf->nr_layout;
	return btf->layout;
}

void btf_copy_model(struct d2b_btf *dst, const struct d2b_btf *src)
{
	dst->endian = src->endian;
	dst->ptr_size = src->ptr_size;
	dst->vlen24 = src->vlen24;
}

void btf_set_vlen24(struct d2b_btf *btf, bool on)
{
	btf->vlen24 = on;
}

bool btf_vlen24(const struct d2b_btf *btf)
{
	return btf->vlen24;
}

uint32_t btf_widest_type(const struct d2b_btf *btf, uint32_t *ret_vlen)
{
	uint32_t id, best = 0;

	*ret_vlen = 0;
	for (id = btf->start_id; id < btf->start_id + btf->nr; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (t && d2b_vlen(t) > *ret_vlen) {
			*ret_vlen = d2b_vlen(t);
			best = id;
		}
	}
	return best;
}

bool btf_pointer_size_recorded(const struct d2b_btf *btf)
{
	return btf->ptr_size != 0;
}

/*
 * The type at word off of a lazy blob's BTF, its header read first for its
 * length; NULL if it cannot be read (lazy__error() keeps why), or if it
 * runs past the type section (a cache's offsets are checked where used).
 */
static const struct d2b_type *lazy_type(const struct d2b_btf *btf, uint32_t off)
{
	const struct d2b_type *t = (const struct d2b_type *)(btf->words + off);
	size_t n;

	if (off > btf->nwords || btf->nwords - off < 3 ||
	    lazy__need(btf->backing->lazy, t, sizeof(*t)))
		return NULL;
	n = btf_type_words(t);
	if (n > btf->nwords - off || lazy__need(btf->backing->lazy, t, n * 4))
		return NULL;
	return t;
}

const struct d2b_type *d2b_btf__type(const struct d2b_btf *btf, uint32_t id)
{
	uint32_t off;

	if (id == 0)
		return &void_type;
	if (id < btf->start_id)
		return btf->base ? d2b_btf__type(btf->base, id) : NULL;
	if (id - btf->start_id >= btf->nr)
		return NULL;
	off = btf->offs[id - btf->start_id];
	if (off == BTF_OFF_RESERVED)
		return NULL;
	return types_lazy(btf) ? lazy_type(btf, off) : (const struct d2b_type *)(btf->words + off);
}

void btf_view_init(struct btf_view *v, const struct d2b_btf *btf)
{
	v->btf = btf;
	v->words = btf->words;
	v->offs = btf->offs;
	v->start_id = btf->start_id;
	v->nr = (uint32_t)btf->nr;
}

struct d2b_type *btf_type_mut(struct d2b_btf *btf, uint32_t id)
{
	if (id < btf->start_id || unshare(btf))
		return NULL;
	return (struct d2b_type *)d2b_btf__type(btf, id);
}

const char *d2b_btf__str(const struct d2b_btf *btf, uint32_t off)
{
	if (off == 0)
		return "";
	if (off < btf->start_str)
		return btf->base ? d2b_btf__str(btf->base, off) : NULL;
	if (btf->names_tails && off >= btf->names_tails)
		off -= btf->names_tails;	/* a tail: the same bytes */
	return strtab__str(btf->strs, off - btf->start_str);
}

const char *d2b_btf__name(const struct d2b_btf *btf, uint32_t id)
{
	const struct d2b_type *t = d2b_btf__type(btf, id);

	return t ? d2b_btf__str(btf, t->name_off) : NULL;
}

int64_t d2b_btf__resolve_size(const struct d2b_btf *btf, uint32_t id)
{
	uint64_t mult = 1;
	unsigned int kind;
	int depth;

	for (depth = 0; depth < BTF_MAX_RESOLVE_DEPTH; depth++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (!t)
			return -EINVAL;
		kind = d2b_kind(t);
		if (btf_kind_has_size(kind)) {
			if (t->size && mult > (uint64_t)INT64_MAX / t->size)
				return -E2BIG;
			return (int64_t)(mult * t->size);
		} else if (kind == D2B_KIND_PTR) {
			return (int64_t)(mult * d2b_btf__pointer_size(btf));
		} else if (btf_kind_is_modifier(kind) || kind == D2B_KIND_TYPEDEF ||
			   kind == D2B_KIND_VAR) {
			id = t->type;
		} else if (kind == D2B_KIND_ARRAY) {
			if (btf_array(t)->nelems && mult > UINT32_MAX)
				return -E2BIG;
			mult *= btf_array(t)->nelems;
			id = btf_array(t)->type;
		} else {
			return -EINVAL;
		}
	}
	return -ELOOP;
}

/* ---- strings ---- */

/*
 * The string offset of btf's own table's off (or its error).  Over a names
 * base, past BTF's limit too: such a BTF is only ever merged into another
 * (the dedup's work, then its output), by its strings' bytes.
 */
static int own_str(const struct d2b_btf *btf, int64_t off)
{
	uint64_t max = btf->base && btf->base->names_tails ? INT32_MAX : D2B_MAX_NAME_OFF;

	if (off < 0)
		return (int)off;
	if (btf->start_str + (uint64_t)off > max)
		return -E2BIG;
	return (int)(btf->start_str + off);
}

int btf_add_own_str(struct d2b_btf *btf, const char *s, size_t len, uint64_t h)
{
	return own_str(btf, strtab__add_hashed(btf->strs, s, len, h));
}

int d2b_btf__add_str(struct d2b_btf *btf, const char *s)
{
	const struct d2b_btf *b;
	int64_t off;
	uint64_t h;
	size_t len;

	if (!s || !*s)
		return 0;
	/* hashed once for every table it is looked for in */
	len = strlen(s);
	h = hash_bytes(s, len, 0);
	for (b = btf->base; b; b = b->base) {
		off = strtab__find_hashed(b->strs, s, len, h);
		if (off > 0)
			return (int)(b->start_str + off);
	}
	return own_str(btf, strtab__add_hashed(btf->strs, s, len, h));
}

bool btf_strs_apart(const struct d2b_btf *btf)
{
	return btf->strs_apart;
}

void btf_strs_mixed(struct d2b_btf *btf)
{
	btf->strs_apart = false;
}

int btf_add_str_apart(struct d2b_btf *btf, const char *s)
{
	return s && *s ? own_str(btf, strtab__add(btf->strs, s)) : 0;
}

struct d2b_btf *btf_new_names(const char *data, size_t len)
{
	struct d2b_btf *btf;
	int err;

	if (len + 2 > D2B_MAX_NAME_OFF)
		return NULL;
	btf = d2b_btf__new(NULL);
	if (!btf)
		return NULL;
	/* "" first, as in every BTF string section; a last NUL for a cut one */
	err = strtab__load_section(btf->strs, data, len);
	if (err) {
		d2b_btf__free(btf);
		return NULL;
	}
	btf->names_tails = (uint32_t)strtab__size(btf->strs);
	return btf;
}

uint32_t btf_names_tails(const struct d2b_btf *names)
{
	return names->names_tails;
}

/* ---- types ---- */

int btf_reserve(struct d2b_btf *btf)
{
	int err;

	if (btf->start_id + btf->nr > D2B_MAX_TYPE_ID)
		return -E2BIG;
	err = unshare(btf);
	if (err)
		return err;
	err = VEC_RESERVE(btf->offs, btf->offs_cap, btf->nr, 1);
	if (err)
		return err;
	btf->offs[btf->nr++] = BTF_OFF_RESERVED;
	return (int)(btf->start_id + btf->nr - 1);
}

int btf_reserve_room(struct d2b_btf *btf, size_t nwords, size_t ntypes)
{
	int err = unshare(btf);

	if (!err)
		err = VEC_RESERVE(btf->words, btf->words_cap, btf->nwords, nwords);

	return err ? err : VEC_RESERVE(btf->offs, btf->offs_cap, btf->nr, ntypes);
}

int btf_define(struct d2b_btf *btf, uint32_t id)
{
	if (id < btf->start_id || id - btf->start_id >= btf->nr ||
	    btf->offs[id - btf->start_id] != BTF_OFF_RESERVED)
		return -EINVAL;
	btf->define_id = id;
	return 0;
}

int btf_adopt_types(struct d2b_btf *btf, uint32_t *words, size_t nwords, uint32_t *offs,
		    size_t nr)
{
	if (btf->nr || btf->nwords || btf->borrowed)
		return -EBUSY;
	if (nr && (uint64_t)btf->start_id + nr - 1 > D2B_MAX_TYPE_ID)
		return -E2BIG;
	free(btf->words);
	free(btf->offs);
	btf->words = words;
	btf->nwords = btf->words_cap = nwords;
	btf->offs = offs;
	btf->nr = btf->offs_cap = nr;
	return 0;
}

/* Start a new type of nwords words; returns its ID and a pointer to it. */
static int btf_new_type(struct d2b_btf *btf, size_t nwords, struct d2b_type **ret)
{
	uint32_t id;
	int err;

	*ret = NULL;

	err = unshare(btf);
	if (!err)
		err = VEC_RESERVE(btf->words, btf->words_cap, btf->nwords, nwords);
	if (err)
		return err;
	if (btf->define_id) {
		id = btf->define_id;
		btf->define_id = 0;
	} else {
		int r = btf_reserve(btf);

		if (r < 0)
			return r;
		id = r;
	}
	btf->offs[id - btf->start_id] = btf->nwords;
	*ret = (struct d2b_type *)(btf->words + btf->nwords);
	memset(*ret, 0, nwords * 4);
	btf->nwords += nwords;
	btf->open_id = 0;
	return id;
}

/* Grow the open type (the last one written) by nwords trailing words. */
/* The type accepting members, values or parameters, or NULL. */
static inline struct d2b_type *open_type(struct d2b_btf *btf)
{
	uint32_t i = btf->open_id - btf->start_id;

	if (!btf->open_id || btf->open_id < btf->start_id || i >= btf->nr ||
	    btf->offs[i] == BTF_OFF_RESERVED)
		return NULL;
	return (struct d2b_type *)(btf->words + btf->offs[i]);
}

/* (inline: nwords is a constant at each call, one per member or value) */
static inline int btf_extend_open(struct d2b_btf *btf, unsigned int kind_mask, size_t nwords,
				  struct d2b_type **ret_t, uint32_t **ret_tail)
{
	struct d2b_type *t;
	size_t off;
	int err;

	t = open_type(btf);
	if (!t || d2b_kind(t) > D2B_KIND_LAST || !(kind_mask & (1u << d2b_kind(t))))
		return -EINVAL;
	if (d2b_vlen(t) >= btf_kind_max_vlen(d2b_kind(t)))
		return -E2BIG;
	off = (uint32_t *)t - btf->words;
	err = VEC_RESERVE(btf->words, btf->words_cap, btf->nwords, nwords);
	if (err)
		return err;
	t = (struct d2b_type *)(btf->words + off);
	*ret_tail = btf->words + btf->nwords;
	memset(*ret_tail, 0, nwords * 4);
	btf->nwords += nwords;
	t->info = d2b_info(d2b_kind(t), d2b_kflag(t), d2b_vlen(t) + 1);
	*ret_t = t;
	return 0;
}

/* A type named name_off (a string offset, or the negative errno of adding
 * the name: returned as it is) */
static int btf_simple_off(struct d2b_btf *btf, int name_off, uint32_t info, uint32_t size_or_type,
			  size_t nwords, struct d2b_type **ret)
{
	struct d2b_type *t;
	int id;

	if (name_off < 0)
		return name_off;
	id = btf_new_type(btf, nwords, &t);
	if (id < 0)
		return id;
	t->name_off = name_off;
	t->info = info;
	t->size = size_or_type;
	if (ret)
		*ret = t;
	return id;
}

static int btf_simple(struct d2b_btf *btf, const char *name, uint32_t info, uint32_t size_or_type,
		      size_t nwords, struct d2b_type **ret)
{
	return btf_simple_off(btf, d2b_btf__add_str(btf, name), info, size_or_type, nwords, ret);
}

int btf_add_type(struct d2b_btf *btf, const char *name, uint32_t info, uint32_t size_or_type,
		 size_t nwords, struct d2b_type **ret)
{
	return btf_simple(btf, name, info, size_or_type, nwords, ret);
}

void btf_set_open(struct d2b_btf *btf, uint32_t id)
{
	btf->open_id = id;
}

int btf_grow_open(struct d2b_btf *btf, unsigned int kind_mask, size_t nwords, uint32_t **ret_tail)
{
	struct d2b_type *t;

	return btf_extend_open(btf, kind_mask, nwords, &t, ret_tail);
}

/*
 * Each builder of a named kind comes twice: d2b_btf__add_*() of a name,
 * which it checks, with its other arguments, before it adds it, and
 * btf_add_*_off() of a name a str_adder added (its offset, or its negative
 * errno: returned as it is), checked the same.  An offset is 0 exactly for
 * NULL and "".
 */
static bool int_ok(uint32_t size, unsigned int encoding)
{
	return size && size <= BTF_MAX_INT_SIZE &&
	       !(encoding & ~(unsigned int)(D2B_INT_SIGNED | D2B_INT_CHAR | D2B_INT_BOOL));
}

int btf_add_int_off(struct d2b_btf *btf, int name_off, uint32_t size, unsigned int encoding)
{
	struct d2b_type *t;
	int id;

	if (name_off <= 0 || !int_ok(size, encoding))
		return name_off < 0 ? name_off : -EINVAL;
	id = btf_simple_off(btf, name_off, d2b_info(D2B_KIND_INT, false, 0), size, 4, &t);
	if (id >= 0)
		*(uint32_t *)(t + 1) = encoding << 24 | size * 8;
	return id;
}

int d2b_btf__add_int(struct d2b_btf *btf, const char *name, uint32_t size, unsigned int encoding)
{
	if (!name || !*name || !int_ok(size, encoding))
		return -EINVAL;
	return btf_add_int_off(btf, d2b_btf__add_str(btf, name), size, encoding);
}

static bool float_ok(uint32_t size)
{
	return size == 2 || size == 4 || size == 8 || size == 12 || size == 16;
}

int btf_add_float_off(struct d2b_btf *btf, int name_off, uint32_t size)
{
	if (name_off <= 0 || !float_ok(size))
		return name_off < 0 ? name_off : -EINVAL;
	return btf_simple_off(btf, name_off, d2b_info(D2B_KIND_FLOAT, false, 0), size, 3, NULL);
}

int d2b_btf__add_float(struct d2b_btf *btf, const char *name, uint32_t size)
{
	if (!name || !*name || !float_ok(size))
		return -EINVAL;
	return btf_add_float_off(btf, d2b_btf__add_str(btf, name), size);
}

/* A reference of kind, named or not (TYPEDEF and TYPE_TAG must be, the
 * others must not) */
static bool ref_ok(enum d2b_kind kind, bool has_name)
{
	bool named = kind == D2B_KIND_TYPEDEF || kind == D2B_KIND_TYPE_TAG;

	return (kind == D2B_KIND_PTR || kind == D2B_KIND_TYPEDEF || btf_kind_is_modifier(kind)) &&
	       named == has_name;
}

int btf_add_ref_off(struct d2b_btf *btf, enum d2b_kind kind, int name_off, uint32_t type)
{
	if (name_off < 0)
		return name_off;
	if (!ref_ok(kind, name_off != 0))
		return -EINVAL;
	return btf_simple_off(btf, name_off, d2b_info(kind, false, 0), type, 3, NULL);
}

int d2b_btf__add_ref(struct d2b_btf *btf, enum d2b_kind kind, const char *name, uint32_t type)
{
	if (!ref_ok(kind, name && *name))
		return -EINVAL;
	return btf_add_ref_off(btf, kind, d2b_btf__add_str(btf, name), type);
}

int d2b_btf__add_type_tag(struct d2b_btf *btf, const char *value, uint32_t type)
{
	return d2b_btf__add_ref(btf, D2B_KIND_TYPE_TAG, value, type);
}

int d2b_btf__add_array(struct d2b_btf *btf, uint32_t elem_type, uint32_t index_type, uint32_t nelems)
{
	struct d2b_type *t;
	int id = btf_simple(btf, NULL, d2b_info(D2B_KIND_ARRAY, false, 0), 0, 6, &t);

	if (id >= 0) {
		struct d2b_array *a = (struct d2b_array *)(t + 1);

		a->type = elem_type;
		a->index_type = index_type;
		a->nelems = nelems;
	}
	return id;
}

int btf_add_composite_off(struct d2b_btf *btf, enum d2b_kind kind, int name_off, uint32_t size)
{
	int id;

	if (name_off < 0)
		return name_off;
	if (!btf_kind_is_composite(kind))
		return -EINVAL;
	id = btf_simple_off(btf, name_off, d2b_info(kind, false, 0), size, 3, NULL);
	if (id >= 0)
		btf->open_id = id;
	return id;
}

int d2b_btf__add_composite(struct d2b_btf *btf, enum d2b_kind kind, const char *name, uint32_t size)
{
	if (!btf_kind_is_composite(kind))
		return -EINVAL;
	return btf_add_composite_off(btf, kind, d2b_btf__add_str(btf, name), size);
}

int d2b_btf__add_member(struct d2b_btf *btf, const char *name, uint32_t type,
			uint32_t bit_offset, uint32_t bitfield_size)
{
	int name_off = d2b_btf__add_str(btf, name);

	if (name_off < 0)
		return name_off;
	return btf_add_member_off(btf, (uint32_t)name_off, type, bit_offset, bitfield_size);
}

int btf_add_member_off(struct d2b_btf *btf, uint32_t name_off, uint32_t type,
		       uint32_t bit_offset, uint32_t bitfield_size)
{
	struct d2b_type *t;
	uint32_t *m;
	int err;

	if (bitfield_size > BTF_MAX_BITFIELD_SIZE ||
	    (bitfield_size && bit_offset > BTF_MAX_BITFIELD_OFFSET))
		return -EINVAL;
	/* kind_flag offsets have 24 bits: refuse, before adding anything, a
	 * member that cannot be encoded (the caller may encode the struct
	 * without kind_flag: bitfields as INTs of their width) */
	t = open_type(btf);
	if (t && btf_kind_is_composite(d2b_kind(t)) && (bitfield_size || d2b_kflag(t))) {
		const struct d2b_member *mm = btf_members(t);
		unsigned int i, n = d2b_kflag(t) ? 0 : d2b_vlen(t);

		if (bit_offset > BTF_MAX_BITFIELD_OFFSET)
			return -E2BIG;
		/* switching to kind_flag mode re-encodes earlier members */
		for (i = 0; i < n; i++) {
			if (mm[i].offset > BTF_MAX_BITFIELD_OFFSET)
				return -E2BIG;
		}
	}
	err = btf_extend_open(btf, 1u << D2B_KIND_STRUCT | 1u << D2B_KIND_UNION, 3, &t, &m);
	if (err)
		return err;
	m[0] = name_off;
	m[1] = type;
	if (bitfield_size || d2b_kflag(t)) {
		t->info |= 1u << 31;
		m[2] = bitfield_size << 24 | bit_offset;
	} else {
		m[2] = bit_offset;
	}
	return 0;
}

int btf_add_fwd_off(struct d2b_btf *btf, int name_off, bool is_union)
{
	if (name_off <= 0)
		return name_off < 0 ? name_off : -EINVAL;
	return btf_simple_off(btf, name_off, d2b_info(D2B_KIND_FWD, is_union, 0), 0, 3, NULL);
}

int d2b_btf__add_fwd(struct d2b_btf *btf, const char *name, bool is_union)
{
	if (!name || !*name)
		return -EINVAL;
	return btf_add_fwd_off(btf, d2b_btf__add_str(btf, name), is_union);
}

static bool enum_size_ok(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* kind: ENUM or ENUM64 */
int btf_add_enum_off(struct d2b_btf *btf, enum d2b_kind kind, int name_off, uint32_t size,
		     bool is_signed)
{
	int id;

	if (name_off < 0)
		return name_off;
	if (!btf_kind_is_enum(kind) || !enum_size_ok(size))
		return -EINVAL;
	id = btf_simple_off(btf, name_off, d2b_info(kind, is_signed, 0), size, 3, NULL);
	if (id >= 0)
		btf->open_id = id;
	return id;
}

int d2b_btf__add_enum(struct d2b_btf *btf, const char *name, uint32_t size, bool is_signed)
{
	if (!enum_size_ok(size))
		return -EINVAL;
	return btf_add_enum_off(btf, D2B_KIND_ENUM, d2b_btf__add_str(btf, name), size, is_signed);
}

int d2b_btf__add_enum64(struct d2b_btf *btf, const char *name, uint32_t size, bool is_signed)
{
	if (!enum_size_ok(size))
		return -EINVAL;
	return btf_add_enum_off(btf, D2B_KIND_ENUM64, d2b_btf__add_str(btf, name), size, is_signed);
}

int d2b_btf__add_enum_value(struct d2b_btf *btf, const char *name, int64_t value)
{
	if (!name || !*name)
		return -EINVAL;
	return btf_add_enum_value_off(btf, d2b_btf__add_str(btf, name), value);
}

int btf_add_enum_value_off(struct d2b_btf *btf, int name_off, int64_t value)
{
	struct d2b_type *t;
	uint32_t *w;
	int err;

	if (name_off <= 0)
		return name_off < 0 ? name_off : -EINVAL;
	if (!btf->open_id)
		return -EINVAL;
	t = btf_type_mut(btf, btf->open_id);
	if (!t)
		return -EINVAL;
	if (d2b_kind(t) == D2B_KIND_ENUM) {
		if (value < INT32_MIN || value > UINT32_MAX)
			return -E2BIG;
		err = btf_extend_open(btf, 1u << D2B_KIND_ENUM, 2, &t, &w);
		if (err)
			return err;
		w[0] = name_off;
		w[1] = (uint32_t)value;
	} else {
		err = btf_extend_open(btf, 1u << D2B_KIND_ENUM64, 3, &t, &w);
		if (err)
			return err;
		w[0] = name_off;
		w[1] = (uint32_t)value;
		w[2] = (uint32_t)((uint64_t)value >> 32);
	}
	return 0;
}

int d2b_btf__add_func_proto(struct d2b_btf *btf, uint32_t ret_type)
{
	int id = btf_simple(btf, NULL, d2b_info(D2B_KIND_FUNC_PROTO, false, 0), ret_type, 3, NULL);

	if (id >= 0)
		btf->open_id = id;
	return id;
}

int d2b_btf__add_param(struct d2b_btf *btf, const char *name, uint32_t type)
{
	return btf_add_param_off(btf, d2b_btf__add_str(btf, name), type);
}

int btf_add_param_off(struct d2b_btf *btf, int name_off, uint32_t type)
{
	struct d2b_type *t;
	uint32_t *w;
	int err;

	if (name_off < 0)
		return name_off;
	err = btf_extend_open(btf, 1u << D2B_KIND_FUNC_PROTO, 2, &t, &w);
	if (err)
		return err;
	w[0] = name_off;
	w[1] = type;
	return 0;
}

int btf_add_func_off(struct d2b_btf *btf, int name_off, enum d2b_linkage linkage, uint32_t proto)
{
	if (name_off <= 0 || linkage > D2B_LINKAGE_EXTERN)
		return name_off < 0 ? name_off : -EINVAL;
	return btf_simple_off(btf, name_off, d2b_info(D2B_KIND_FUNC, false, linkage), proto, 3,
			      NULL);
}

int d2b_btf__add_func(struct d2b_btf *btf, const char *name, enum d2b_linkage linkage, uint32_t proto)
{
	if (!name || !*name || linkage > D2B_LINKAGE_EXTERN)
		return -EINVAL;
	return btf_add_func_off(btf, d2b_btf__add_str(btf, name), linkage, proto);
}

int d2b_btf__add_var(struct d2b_btf *btf, const char *name, enum d2b_linkage linkage, uint32_t type)
{
	struct d2b_type *t;
	int id;

	if (!name || !*name || linkage > D2B_LINKAGE_EXTERN)
		return -EINVAL;
	id = btf_simple(btf, name, d2b_info(D2B_KIND_VAR, false, 0), type, 4, &t);
	if (id >= 0)
		((struct d2b_var *)(t + 1))->linkage = linkage;
	return id;
}

int d2b_btf__add_datasec(struct d2b_btf *btf, const char *name, uint32_t size)
{
	int id;

	if (!name || !*name)
		return -EINVAL;
	id = btf_simple(btf, name, d2b_info(D2B_KIND_DATASEC, false, 0), size, 3, NULL);
	if (id >= 0)
		btf->open_id = id;
	return id;
}

int d2b_btf__add_datasec_var(struct d2b_btf *btf, uint32_t var, uint32_t offset, uint32_t size)
{
	struct d2b_type *t;
	uint32_t *w;
	int err = btf_extend_open(btf, 1u << D2B_KIND_DATASEC, 3, &t, &w);

	if (err)
		return err;
	w[0] = var;
	w[1] = offset;
	w[2] = size;
	return 0;
}

int d2b_btf__add_decl_tag(struct d2b_btf *btf, const char *value, uint32_t target, int component_idx)
{
	if (!value || !*value || component_idx < -1)
		return -EINVAL;
	return btf_add_decl_tag_off(btf, d2b_btf__add_str(btf, value), target, component_idx);
}

int btf_add_decl_tag_off(struct d2b_btf *btf, int value_off, uint32_t target, int component_idx)
{
	struct d2b_type *t;
	int id;

	if (value_off <= 0 || component_idx < -1)
		return value_off < 0 ? value_off : -EINVAL;
	id = btf_simple_off(btf, value_off, d2b_info(D2B_KIND_DECL_TAG, false, 0), target, 4, &t);
	if (id >= 0)
		((struct d2b_decl_tag *)(t + 1))->component_idx = component_idx;
	return id;
}

int d2b_btf__add_raw(struct d2b_btf *btf, const struct d2b_type *src)
{
	size_t n = btf_type_words(src);
	struct d2b_type *t;
	int id;

	if (d2b_kind(src) > D2B_KIND_LAST)
		return -EINVAL;
	id = btf_new_type(btf, n, &t);
	if (id >= 0)
		memcpy(t, src, n * 4);
	return id;
}

int btf_add_copy(struct d2b_btf *dst, const struct d2b_btf *src, uint32_t id, const uint32_t *map)
{
	return btf_add_copy_memo(dst, src, id, map, NULL);
}

int btf_add_copy_memo(struct d2b_btf *dst, const struct d2b_btf *src, uint32_t id,
		      const uint32_t *map, uint32_t *smemo)
{
	const struct d2b_type *t = d2b_btf__type(src, id);
	uint32_t *f, start_str = btf_start_str(src), end_str = btf_end_str(src);
	struct btf_field_iter it;
	struct d2b_type *nt;
	size_t n;
	int r, nid;

	if (!t || id == 0)
		return -EINVAL;
	n = btf_type_words(t);
	/* strings live apart from types: adding them leaves nt in place */
	nid = btf_new_type(dst, n, &nt);
	if (nid < 0)
		return nid;
	memcpy(nt, t, n * 4);
	btf_field_iter__init(&it, nt, BTF_FIELD_IDS);
	while ((f = btf_field_iter__next(&it)) != NULL)
		*f = map[*f];
	btf_field_iter__init(&it, nt, BTF_FIELD_STRS);
	while ((f = btf_field_iter__next(&it)) != NULL) {
		if (!*f)
			continue;	/* "" is "" everywhere */
		/* (own strings only: a base's is looked up each time) */
		if (smemo && *f >= start_str && *f < end_str && smemo[*f - start_str]) {
			*f = smemo[*f - start_str];
			continue;
		}
		r = d2b_btf__add_str(dst, d2b_btf__str(src, *f));
		if (r < 0)
			return r;
		if (smemo && *f >= start_str && *f < end_str)
			smemo[*f - start_str] = (uint32_t)r;
		*f = (uint32_t)r;
	}
	return nid;
}
