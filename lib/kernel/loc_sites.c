// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Inline sites as the bpf tree encodes them (2026): theory
 *
 * The units record each inlined call with an address (unit/cu_sites.c):
 * the function inlined (its name and declared prototype), the site's ELF
 * section and offset, and what the DWARF says of each parameter there.
 * They are gathered here as units are merged, their prototypes'
 * IDs renumbered with the output (loc_sites__remap(); the pruning of FUNCs
 * keeps the prototypes sites name: loc_sites__keep_protos()), and once
 * the output is otherwise whole, appended to it in three passes:
 *
 * Pass 1, locations: each parameter's facts become a LOC_PARAM (flags,
 *   size, values: loc_param()), or 0 where nothing can be said; equal
 *   LOC_PARAMs are one type (a hash of size, flags and values), and so are
 *   equal LOC_PROTOs (a hash of their IDs).
 * Pass 2, functions: a site's FUNC is the output's FUNC of the function's
 *   name and prototype where it has one (its out-of-line copy's); else
 *   one is added, once per name and prototype: after the LOC kinds, so
 *   that everything from the first LOC_PARAM on is the inline part
 *   (d2b_btf__split_inline()).  A function the kernel's policy gave
 *   another prototype (a changed signature) gets a FUNC of its declared
 *   one: the LOC_PROTO follows the declared parameters.
 * Pass 3, sections: one LOCSEC per ELF section, named as the section (the
 *   bpf tree's tests and resolve_btfids name ".text"'s ".text", where its
 *   header says "inline.text"), its entries sorted as resolve_btfids
 *   sorts them: by FUNC, then offset, then LOC_PROTO.  More entries than a
 *   vlen holds make several LOCSECs of the same name.
 *
 * The encoding of a location (loc_param()): a register REG [r]; two
 * registers (pieces of one size) REG [r1, r2]; memory at register +
 * offset REG|DEREF [r] or REG|DEREF|OFFSET [r, off]; register + offset
 * REG|OFFSET [r, off]; the frame base as register D2B_LOC_PARAM_FBREG; a
 * constant CONST [lo] or [lo, hi] when it needs 64 bits; an address
 * CONST|ADDR, relative to the start of .text (of a relocatable file, only
 * an address in .text); a register's entry value only where the site is
 * at the entry of the function around it (the register then still holds
 * it).  SIGNED marks a negative offset or signed constant.  The size is the
 * parameter's type's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "btf/btf.h"
#include "kernel/loc_sites.h"

struct site_fn {
	uint32_t name_off;	/* in names */
	uint32_t proto;		/* output type ID; 0: gone */
	uint32_t nr_params;
	bool external;
};

struct site {
	uint32_t fn;		/* index into fns */
	uint32_t locs_start;	/* index into locs */
	uint32_t shndx;
	bool at_fn_entry;
	uint64_t offset;
};

struct loc_sites {
	struct strtab *names;
	struct site_fn *fns;
	size_t nr_fns, fns_cap;
	struct site *sites;
	size_t nr_sites, sites_cap;
	struct unit_loc *locs;
	size_t nr_locs, locs_cap;
	struct loc_sites_stats st;
};

/* What pass 1 and 2 make of a site, for pass 3 */
struct site_out {
	uint32_t shndx, func, offset, loc_proto;
};

struct loc_sites *loc_sites__new(void)
{
	struct loc_sites *ls = calloc(1, sizeof(*ls));

	if (ls && !(ls->names = strtab__new(false))) {
		free(ls);
		return NULL;
	}
	return ls;
}

void loc_sites__free(struct loc_sites *ls)
{
	if (!ls)
		return;
	strtab__free(ls->names);
	free(ls->fns);
	free(ls->sites);
	free(ls->locs);
	free(ls);
}

int loc_sites__add_unit(struct loc_sites *ls, const struct unit *u, const uint32_t *map,
			const char *strs)
{
	size_t fn_base = ls->nr_fns, locs_base = ls->nr_locs, i;
	int err;

	err = VEC_RESERVE(ls->fns, ls->fns_cap, ls->nr_fns, u->nr_site_fns);
	if (!err)
		err = VEC_RESERVE(ls->sites, ls->sites_cap, ls->nr_sites, u->nr_sites);
	if (!err)
		err = VEC_RESERVE(ls->locs, ls->locs_cap, ls->nr_locs, u->nr_locs);
	if (err)
		return err;
	for (i = 0; i < u->nr_site_fns; i++) {
		const struct unit_site_fn *f = &u->site_fns[i];
		const char *name = strs ? strs + f->name_off : d2b_btf__str(u->btf, f->name_off);
		int64_t off = name ? strtab__add(ls->names, name) : -EINVAL;

		if (off < 0)
			return (int)off;
		ls->fns[ls->nr_fns++] = (struct site_fn){
			.name_off = (uint32_t)off, .proto = map[f->proto],
			.nr_params = f->nr_params, .external = f->external,
		};
	}
	for (i = 0; i < u->nr_sites; i++) {
		const struct unit_site *s = &u->sites[i];

		if (s->shndx > UINT32_MAX)
			continue;
		ls->sites[ls->nr_sites++] = (struct site){
			.fn = (uint32_t)(fn_base + s->fn),
			.locs_start = (uint32_t)(locs_base + s->locs_start),
			.shndx = (uint32_t)s->shndx, .at_fn_entry = s->at_fn_entry,
			.offset = s->offset,
		};
	}
	memcpy(ls->locs + ls->nr_locs, u->locs, u->nr_locs * sizeof(*u->locs));
	ls->nr_locs += u->nr_locs;
	return 0;
}

void loc_sites__remap(struct loc_sites *ls, const uint32_t *map)
{
	size_t i;

	for (i = 0; i < ls->nr_fns; i++)
		ls->fns[i].proto = map[ls->fns[i].proto];
}

void loc_sites__keep_protos(const struct loc_sites *ls, uint8_t *drop, uint32_t start,
			    uint32_t end, uint8_t keep)
{
	size_t i;

	for (i = 0; i < ls->nr_fns; i++) {
		uint32_t p = ls->fns[i].proto;

		if (p >= start && p < end && !drop[p - start])
			drop[p - start] = keep;
	}
}

/* The largest value a LOC_PARAM describes (the bpf tree's rule) */
enum { LOC_MAX_SIZE = 16 };

/* The index of the section called name, or SIZE_MAX. */
static size_t section_named(const struct loc_sites_opts *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nr_secs; i++)
		if (o->secs[i].name && !strcmp(o->secs[i].name, name))
			return i;
	return SIZE_MAX;
}

/* A constant (or address) v of a value of size bytes (1 to 8): vals and *n. */
static void const_values(uint64_t v, bool is_signed, uint32_t size, uint32_t *flags,
			 uint32_t *vals, unsigned int *n)
{
	if (size < 8)
		v &= (UINT64_C(1) << (8 * size)) - 1;
	if (is_signed && size < 8 && (v >> (8 * size - 1) & 1))
		v |= ~UINT64_C(0) << (8 * size);	/* (sign-extended back) */
	if (is_signed && (int64_t)v < 0)
		*flags |= D2B_LOC_PARAM_SIGNED;
	vals[0] = (uint32_t)v;
	vals[1] = (uint32_t)(v >> 32);
	*n = size > 4 ? 2 : 1;	/* the value's width */
}

/* A register and an offset (REG|OFFSET, REG|DEREF|OFFSET): false if the
 * offset needs more than 32 bits. */
static bool reg_offset(uint32_t reg, int64_t off, uint32_t *flags, uint32_t *vals,
		       unsigned int *n)
{
	vals[0] = reg;
	*n = 1;
	if (!off)
		return true;
	if (off < INT32_MIN || off > INT32_MAX)
		return false;
	*flags |= D2B_LOC_PARAM_OFFSET | (off < 0 ? D2B_LOC_PARAM_SIGNED : 0);
	vals[1] = (uint32_t)(int32_t)off;
	*n = 2;
	return true;
}

/*
 * Location l of a site (at_entry: at its function's entry) as a
 * LOC_PARAM's flags and values: false where none can be said.
 */
static bool loc_param(const struct unit_loc *l, bool at_entry, const struct loc_sites_opts *o,
		      size_t text, uint32_t *flags, uint32_t *vals, unsigned int *n)
{
	uint64_t v;

	*flags = 0;
	if (!l->size || l->size > LOC_MAX_SIZE)
		return false;
	switch (l->kind) {
	case DIE_VAL_ENTRY_REG:
		if (!at_entry)
			return false;
		/* fall through */
	case DIE_VAL_REG:
		*flags = D2B_LOC_PARAM_REG;
		vals[0] = l->reg;
		*n = 1;
		return true;
	case DIE_VAL_REG_PAIR:
		*flags = D2B_LOC_PARAM_REG;
		vals[0] = l->reg;
		vals[1] = l->reg2;
		*n = 2;
		return true;
	case DIE_VAL_MEM:
		*flags = D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF;
		return reg_offset(l->reg, (int64_t)l->value, flags, vals, n);
	case DIE_VAL_REG_OFF:
		*flags = D2B_LOC_PARAM_REG;
		return reg_offset(l->reg, (int64_t)l->value, flags, vals, n);
	case DIE_VAL_CONST:
		if (l->size > 8)
			return false;
		*flags = D2B_LOC_PARAM_CONST;
		const_values(l->value, l->is_signed, l->size, flags, vals, n);
		return true;
	case DIE_VAL_ADDR:
		if (text == SIZE_MAX || l->reg >= o->nr_secs || (o->rel && l->reg != text))
			return false;
		v = o->secs[l->reg].addr + l->value;
		if (v < o->secs[text].addr)
			return false;
		*flags = D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_ADDR;
		const_values(v - o->secs[text].addr, false, 8, flags, vals, n);
		return true;
	default:
		return false;
	}
}

/* State of the emission: the dedup maps */
struct emit {
	struct loc_sites *ls;
	struct d2b_btf *btf;
	const struct loc_sites_opts *o;
	size_t text;		/* .text's index, SIZE_MAX: none */
	struct hmap params, protos;	/* hash -> LOC_PARAM, LOC_PROTO IDs */
	uint32_t *ids;		/* one site's LOC_PARAM IDs */
	size_t ids_cap;
};

static uint64_t hash_words(const uint32_t *w, size_t n, uint64_t h)
{
	return hash_combine(h, hash_bytes(w, n * sizeof(*w), n));
}

/* The LOC_PARAM of flags, size, values vals[0 .. n): made once. */
static int param_id(struct emit *e, uint32_t size, uint32_t flags, const uint32_t *vals,
		    unsigned int n)
{
	uint64_t h = hash_words(vals, n, hash_combine(size, flags)), id;
	struct hmap_iter it;
	int err, r;

	hmap__iter_init(&e->params, h, &it);
	while (hmap__next(&e->params, &it, &id)) {
		const struct d2b_type *t = d2b_btf__type(e->btf, (uint32_t)id);

		if (t->size == size && d2b_vlen(t) == n && d2b_loc_param_flags(t) == flags &&
		    !memcmp(d2b_loc_param_values(t), vals, n * sizeof(*vals)))
			return (int)id;
	}
	r = d2b_btf__add_loc_param(e->btf, size, flags, vals, n);
	if (r < 0)
		return r;
	err = hmap__add(&e->params, h, (uint64_t)r);
	e->ls->st.loc_params++;
	return err ? err : r;
}

/* The LOC_PROTO of the IDs e->ids[0 .. n): made once. */
static int proto_id(struct emit *e, size_t n)
{
	uint64_t h = hash_words(e->ids, n, 0x10c), id;
	struct hmap_iter it;
	size_t i;
	int err, r;

	hmap__iter_init(&e->protos, h, &it);
	while (hmap__next(&e->protos, &it, &id)) {
		const struct d2b_type *t = d2b_btf__type(e->btf, (uint32_t)id);

		if (d2b_vlen(t) == n && !memcmp(d2b_loc_proto_params(t), e->ids, n * sizeof(*e->ids)))
			return (int)id;
	}
	r = d2b_btf__add_loc_proto(e->btf);
	for (i = 0; r >= 0 && i < n; i++) {
		err = d2b_btf__add_loc_proto_param(e->btf, e->ids[i]);
		if (err < 0)
			return err;
	}
	if (r < 0)
		return r;
	err = hmap__add(&e->protos, h, (uint64_t)r);
	e->ls->st.loc_protos++;
	return err ? err : r;
}

/* Pass 1 for site s: its LOC_PROTO, or 0 if it is left out. */
static int site_locs(struct emit *e, const struct site *s)
{
	struct loc_sites *ls = e->ls;
	const struct site_fn *f = &ls->fns[s->fn];
	const struct d2b_type *proto;
	size_t i, located = 0;
	int err;

	if (!f->proto)
		return 0;	/* its prototype could not be said (finish/sizeless.c) */
	proto = d2b_btf__type(e->btf, f->proto);
	if (!proto || d2b_kind(proto) != D2B_KIND_FUNC_PROTO || d2b_vlen(proto) != f->nr_params)
		return 0;
	err = VEC_RESERVE(e->ids, e->ids_cap, 0, f->nr_params);
	if (err)
		return err;
	for (i = 0; i < f->nr_params; i++) {
		const struct unit_loc *l = &ls->locs[s->locs_start + i];
		uint32_t flags, vals[2];
		unsigned int n = 0;
		int id = 0;

		if (loc_param(l, s->at_fn_entry, e->o, e->text, &flags, vals, &n)) {
			id = param_id(e, l->size, flags, vals, n);
			if (id < 0)
				return id;
			located++;
		}
		e->ids[i] = (uint32_t)id;
	}
	ls->st.params += f->nr_params;
	ls->st.located += located;
	ls->st.complete += located == f->nr_params;
	return proto_id(e, f->nr_params);
}

/* The output's FUNCs, by name and prototype: hash -> ID */
static int index_funcs(const struct d2b_btf *btf, struct hmap *m)
{
	uint32_t id, end = d2b_btf__end_id(btf);
	int err;

	for (id = 1; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (d2b_kind(t) != D2B_KIND_FUNC)
			continue;
		err = hmap__add(m, hash_combine(hash_str(d2b_btf__str(btf, t->name_off)), t->type), id);
		if (err)
			return err;
	}
	return 0;
}

/* The FUNC named name of prototype proto in the index, or 0. */
static uint32_t find_func(const struct d2b_btf *btf, const struct hmap *m, const char *name,
			  uint32_t proto)
{
	struct hmap_iter it;
	uint64_t id;

	hmap__iter_init(m, hash_combine(hash_str(name), proto), &it);
	while (hmap__next(m, &it, &id)) {
		const struct d2b_type *t = d2b_btf__type(btf, (uint32_t)id);

		if (t->type == proto && !strcmp(d2b_btf__str(btf, t->name_off), name))
			return (uint32_t)id;
	}
	return 0;
}

/* Pass 2: each site's FUNC (out[i].func; out[i].loc_proto 0: left out). */
static int site_funcs(struct emit *e, struct site_out *out, uint32_t *func_of_fn)
{
	struct loc_sites *ls = e->ls;
	struct hmap existing, made;
	size_t i;
	int err;

	hmap__init(&existing, false);
	hmap__init(&made, false);
	err = index_funcs(e->btf, &existing);
	for (i = 0; !err && i < ls->nr_sites; i++) {
		const struct site *s = &ls->sites[i];
		const struct site_fn *f = &ls->fns[s->fn];
		const char *name = strtab__str(ls->names, f->name_off);
		uint64_t key = (uint64_t)f->name_off << 32 | f->proto, id;
		int r;

		if (!out[i].loc_proto)
			continue;
		if (!func_of_fn[s->fn] && hmap__find(&made, key, &id))
			func_of_fn[s->fn] = (uint32_t)id;
		if (!func_of_fn[s->fn])
			func_of_fn[s->fn] = find_func(e->btf, &existing, name, f->proto);
		if (!func_of_fn[s->fn]) {
			r = d2b_btf__add_func(e->btf, name, f->external && !e->o->static_linkage ?
					      D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC, f->proto);
			if (r < 0) {
				err = r;
				break;
			}
			ls->st.funcs_added++;
			func_of_fn[s->fn] = (uint32_t)r;
			err = hmap__add(&made, key, (uint64_t)r);
		}
		out[i].func = func_of_fn[s->fn];
	}
	hmap__release(&existing);
	hmap__release(&made);
	return err;
}

static int cmp_out(const void *pa, const void *pb)
{
	const struct site_out *a = pa, *b = pb;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->loc_proto != b->loc_proto)
		return a->loc_proto < b->loc_proto ? -1 : 1;
	return 0;
}

/* Pass 3: the LOCSECs of the n sites out (sorted here). */
static int locsecs(struct emit *e, struct site_out *out, size_t n)
{
	struct hmap funcs;
	size_t i, in_sec = 0;
	int err = 0;
	uint64_t v;

	qsort(out, n, sizeof(*out), cmp_out);
	hmap__init(&funcs, false);
	for (i = 0; i < n && err >= 0; i++) {
		if (!i || out[i].shndx != out[i - 1].shndx || in_sec == D2B_MAX_VLEN_WIDE) {
			err = d2b_btf__add_locsec(e->btf, e->o->secs[out[i].shndx].name);
			in_sec = 0;
			e->ls->st.sections++;
		}
		if (err >= 0)
			err = d2b_btf__add_locsec_loc(e->btf, out[i].func, out[i].loc_proto,
						      out[i].offset);
		in_sec++;
		if (err >= 0 && !hmap__find(&funcs, out[i].func, &v)) {
			err = hmap__add(&funcs, out[i].func, 0);
			e->ls->st.funcs++;
		}
	}
	e->ls->st.sites = n;
	hmap__release(&funcs);
	return err < 0 ? err : 0;
}

/* Passes 1-3 over e, into out (a site_out per site). */
static int emit_all(struct emit *e, struct site_out *out, uint32_t *func_of_fn)
{
	struct loc_sites *ls = e->ls;
	size_t i, n = 0;
	int err, r;

	for (i = 0; i < ls->nr_sites; i++) {
		const struct site *s = &ls->sites[i];

		memset(&out[i], 0, sizeof(out[i]));
		if (s->shndx >= e->o->nr_secs || !e->o->secs[s->shndx].name ||
		    s->offset > UINT32_MAX)
			continue;
		r = site_locs(e, s);
		if (r < 0)
			return r;
		out[i].shndx = s->shndx;
		out[i].offset = (uint32_t)s->offset;
		out[i].loc_proto = (uint32_t)r;
	}
	err = site_funcs(e, out, func_of_fn);
	if (err)
		return err;
	for (i = 0; i < ls->nr_sites; i++)
		if (out[i].loc_proto)
			out[n++] = out[i];
	return locsecs(e, out, n);
}

int loc_sites__emit(struct loc_sites *ls, struct d2b_btf *btf, const struct loc_sites_opts *o,
		    struct diag *diag)
{
	struct emit e = { .ls = ls, .btf = btf, .o = o, .text = section_named(o, ".text") };
	struct site_out *out = calloc(ls->nr_sites ? ls->nr_sites : 1, sizeof(*out));
	uint32_t *func_of_fn = calloc(ls->nr_fns ? ls->nr_fns : 1, sizeof(*func_of_fn));
	int err = -ENOMEM;

	memset(&ls->st, 0, sizeof(ls->st));
	/* the LOC kinds are for kernels that read 24-bit vlen: a LOCSEC of
	 * vmlinux's .text has hundreds of thousands of entries */
	btf_set_vlen24(btf, true);
	hmap__init(&e.params, false);
	hmap__init(&e.protos, false);
	if (out && func_of_fn)
		err = emit_all(&e, out, func_of_fn);
	if (err)
		diag__say(diag, D2B_ERROR, "cannot add the inline sites: %s", strerror(-err));
	hmap__release(&e.params);
	hmap__release(&e.protos);
	free(e.ids);
	free(out);
	free(func_of_fn);
	return err;
}

void loc_sites__stats(const struct loc_sites *ls, struct loc_sites_stats *ret)
{
	*ret = ls->st;
}

static bool is_loc_kind(unsigned int kind)
{
	return kind == D2B_KIND_LOC_PARAM || kind == D2B_KIND_LOC_PROTO || kind == D2B_KIND_LOCSEC;
}

/* Copy btf's types [from, to) into dst, their IDs as they are. */
static int copy_range(struct d2b_btf *dst, const struct d2b_btf *btf, uint32_t from, uint32_t to,
		      const uint32_t *same, uint32_t *smemo)
{
	uint32_t id;
	int r;

	for (id = from; id < to; id++) {
		r = btf_add_copy_memo(dst, btf, id, same, smemo);
		if (r < 0)
			return r;
		if ((uint32_t)r != id)
			return -EINVAL;
	}
	return 0;
}

/*
 * The inline part of btf starts at its first LOC kind (loc_sites__emit()
 * appends it after every other type), and nothing before refers into it.
 */
static int inline_start(const struct d2b_btf *btf, uint32_t *ret)
{
	uint32_t start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf), id, b = end;

	for (id = start; id < end; id++) {
		if (is_loc_kind(d2b_kind(d2b_btf__type(btf, id)))) {
			b = id;
			break;
		}
	}
	for (id = start; id < b; id++) {
		struct btf_field_iter it;
		uint32_t *f;

		btf_field_iter__init(&it, (struct d2b_type *)d2b_btf__type(btf, id), BTF_FIELD_IDS);
		while ((f = btf_field_iter__next(&it)) != NULL)
			if (*f >= b)
				return -EINVAL;
	}
	*ret = b;
	return 0;
}

int d2b_btf__split_inline(const struct d2b_btf *btf, struct d2b_btf **ret_main,
			  struct d2b_btf **ret_inline)
{
	uint32_t end = d2b_btf__end_id(btf), b, id, *same = NULL, *smemo = NULL;
	struct d2b_btf *main_btf = NULL, *inl = NULL;
	int err;

	*ret_main = *ret_inline = NULL;
	err = inline_start(btf, &b);
	if (err)
		return err;
	err = -ENOMEM;
	same = malloc(end * sizeof(*same));
	smemo = calloc(btf_end_str(btf) - btf_start_str(btf) + 1, sizeof(*smemo));
	main_btf = d2b_btf__new(d2b_btf__base(btf));
	if (!same || !smemo || !main_btf)
		goto out;
	for (id = 0; id < end; id++)
		same[id] = id;
	btf_copy_model(main_btf, btf);
	err = copy_range(main_btf, btf, d2b_btf__start_id(btf), b, same, smemo);
	if (err)
		goto out;
	err = -ENOMEM;
	inl = d2b_btf__new(main_btf);
	if (!inl)
		goto out;
	btf_copy_model(inl, btf);
	/* (strings: inl's own, not main's offsets) */
	memset(smemo, 0, (btf_end_str(btf) - btf_start_str(btf) + 1) * sizeof(*smemo));
	err = copy_range(inl, btf, b, end, same, smemo);
out:
	free(same);
	free(smemo);
	if (err) {
		d2b_btf__free(inl);
		d2b_btf__free(main_btf);
		return err;
	}
	*ret_main = main_btf;
	*ret_inline = inl;
	return 0;
}
