// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Comparing two BTF graphs by meaning.
 *
 * Theory.  Two converters (or two runs) produce the same types under
 * different IDs and in a different order, so IDs cannot be compared.  What
 * can be compared is what a type *says*:
 *
 *  - A named type (INT FLOAT STRUCT UNION ENUM ENUM64 FWD TYPEDEF FUNC VAR
 *    DATASEC LOCSEC with a name) is identified by its key: a kind class and
 *    its name.  ENUM and ENUM64 share a class, C having one enum name space.
 *    A LOCSEC's body is the multiset of its inline sites, each its FUNC (by
 *    name), offset and LOC_PROTO's meaning, in whatever order.
 *  - A *reference* to a named type is its key, nothing more: "struct foo"
 *    means the same in both graphs whatever its ID, and comparing foo's body
 *    is foo's own business.  This cuts every cycle of named types.
 *  - An anonymous type (pointers, modifiers, arrays, prototypes, tags,
 *    unnamed structs, unions and enums, LOC_PARAM and LOC_PROTO) has no
 *    identity but its structure,
 *    so a reference to it is expanded: its meaning is its kind and fields
 *    with the meanings of what it references.
 *
 * Meanings are 64-bit hashes of that canonical form (a Merkle hash: the
 * hash of a type covers the hashes of its referenced meanings), computed
 * once per type ID and memoized, so the whole pass is linear.  Anonymous
 * types can in principle form a cycle among themselves (no C program makes
 * one, a crafted file can); the walk keeps the anonymous types in progress
 * on a stack and a back edge hashes as its distance up the stack.  A
 * result that depends on a type above the one being hashed is not
 * memoized.  Nesting is bounded (-ELOOP) and so is the work (-E2BIG).
 *
 * Pass 1 (per side; btf_meaning.c): hash every own type; build one entry per named type
 *	(class, name, hash, ID) and one per anonymous type (kind, hash, ID).
 * Pass 2: sort both entry lists and merge them.  Per key, the variants on
 *	each side form a multiset of hashes (a kernel can hold two different
 *	`struct foo`): equal multisets are equal keys; a key on one side only
 *	is ONLY_A/ONLY_B; one unmatched variant per side is CHANGED and gets a
 *	field-by-field explanation; anything else is VARIANTS.  Anonymous
 *	hashes per kind are compared as multisets (ANON).
 * Pass 3 (only for CHANGED keys): walk both definitions side by side and
 *	name each difference (member type, offset, bitfield size, enum value,
 *	parameter...), descending into anonymous members and prototypes.
 *
 * A 64-bit hash can collide; two different types would then compare equal.
 * With ~10^5 types per side the odds are ~10^-9: accepted for a diagnostic.
 *
 * Options make known, deliberate encoder differences invisible: chained
 * arrays flatten (int[5][6] as int[30], which is what pahole emits; the
 * inner arrays that exist only as elements are then not counted), a FWD
 * reference means the struct or union of that name, array index types and
 * FUNC/VAR linkage can be ignored, and ONLY_A/ONLY_B of chosen kinds (FUNC,
 * VAR: which ones an encoder emits is policy) are counted without a callback.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/btf_loc.h"
#include "btf/compare_internal.h"
#include "base/hmap.h"
#include "base/vec.h"

/* ---- rendering types for messages ---- */

struct sbuf {
	char *p;
	size_t len, pos;
};

static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->pos + 1 >= b->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->pos, b->len - b->pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->pos += (size_t)n;
	if (b->pos >= b->len)
		b->pos = b->len - 1;
}

static const char *kw_of(const struct d2b_type *t, bool fwd_as_struct)
{
	switch (d2b_kind(t)) {
	case D2B_KIND_STRUCT:
		return "struct";
	case D2B_KIND_UNION:
		return "union";
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		return "enum";
	case D2B_KIND_FWD:
		if (fwd_as_struct)
			return d2b_kflag(t) ? "union" : "struct";
		return d2b_kflag(t) ? "fwd union" : "fwd struct";
	default:
		return NULL;
	}
}

static uint64_t enum_value(const struct d2b_type *t, uint32_t i);
static uint32_t enum_name_off(const struct d2b_type *t, uint32_t i);

/* A C-like spelling: "const char *", "int[5][6]", "int (*)(void *p, long)". */
static void render(const struct cmp_side *s, uint32_t id, struct sbuf *b, int depth);

static void render_params(const struct cmp_side *s, const struct d2b_type *t, struct sbuf *b,
			  int depth)
{
	unsigned int i, vlen = d2b_vlen(t);

	sb_printf(b, "(");
	for (i = 0; i < vlen; i++) {
		const struct d2b_param *p = btf_params(t) + i;
		const char *n = d2b_btf__str(s->btf, p->name_off);

		if (i)
			sb_printf(b, ", ");
		if (!p->type && (!n || !*n)) {
			sb_printf(b, "...");
			continue;
		}
		render(s, p->type, b, depth + 1);
		if (n && *n)
			sb_printf(b, b->pos && b->p[b->pos - 1] == '*' ? "%s" : " %s", n);
	}
	sb_printf(b, vlen ? ")" : "void)");
}

static void render(const struct cmp_side *s, uint32_t id, struct sbuf *b, int depth)
{
	const struct d2b_type *t = id < s->end ? d2b_btf__type(s->btf, id) : NULL;
	const struct d2b_type *in;
	const char *kw, *name;
	uint32_t dims[MAX_ARRAY_CHAIN];
	int i, nd;

	if (id == 0) {
		sb_printf(b, "void");
		return;
	}
	if (!t) {
		sb_printf(b, "<bad type %u>", id);
		return;
	}
	if (depth > MAX_RENDER_DEPTH) {
		sb_printf(b, "...");
		return;
	}
	name = cmp_type_name(s, t);
	kw = kw_of(t, s->fwd_as_struct);
	switch (d2b_kind(t)) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
	case D2B_KIND_FWD:
		if (*name)
			sb_printf(b, "%s %s", kw, name);
		else
			sb_printf(b, "%s {...}", kw);
		break;
	case D2B_KIND_PTR:
		in = d2b_btf__type(s->btf, t->type);
		if (in && d2b_kind(in) == D2B_KIND_FUNC_PROTO) {
			render(s, in->type, b, depth + 1);
			sb_printf(b, " (*)");
			render_params(s, in, b, depth);
		} else {
			render(s, t->type, b, depth + 1);
			sb_printf(b, b->pos && b->p[b->pos - 1] == '*' ? "*" : " *");
		}
		break;
	case D2B_KIND_CONST:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_RESTRICT:
		kw = d2b_kind(t) == D2B_KIND_CONST ? "const" :
		     d2b_kind(t) == D2B_KIND_VOLATILE ? "volatile" : "restrict";
		in = d2b_btf__type(s->btf, t->type);
		if (in && d2b_kind(in) == D2B_KIND_PTR) {
			render(s, t->type, b, depth + 1);
			sb_printf(b, " %s", kw);
		} else {
			sb_printf(b, "%s ", kw);
			render(s, t->type, b, depth + 1);
		}
		break;
	case D2B_KIND_TYPE_TAG:
		sb_printf(b, d2b_kflag(t) ? "__attribute__((%s)) " : "__tag(%s) ", name);
		render(s, t->type, b, depth + 1);
		break;
	case D2B_KIND_ARRAY:
		for (nd = 0, in = t; in && d2b_kind(in) == D2B_KIND_ARRAY && nd < MAX_ARRAY_CHAIN; nd++) {
			dims[nd] = btf_array(in)->nelems;
			id = btf_array(in)->type;
			in = d2b_btf__type(s->btf, id);
		}
		render(s, id, b, depth + 1);
		for (i = 0; i < nd; i++)
			sb_printf(b, "[%u]", dims[i]);
		break;
	case D2B_KIND_FUNC_PROTO:
		render(s, t->type, b, depth + 1);
		sb_printf(b, " ");
		render_params(s, t, b, depth);
		break;
	case D2B_KIND_DECL_TAG:
		sb_printf(b, d2b_kflag(t) ? "decl_attr '%s' on " : "decl_tag '%s' on ", name);
		render(s, t->type, b, depth + 1);
		if (btf_decl_tag_idx(t) >= 0)
			sb_printf(b, " #%d", btf_decl_tag_idx(t));
		break;
	case D2B_KIND_FUNC:
		sb_printf(b, "func %s", name);
		break;
	case D2B_KIND_VAR:
		sb_printf(b, "var %s", name);
		break;
	case D2B_KIND_DATASEC:
		sb_printf(b, "datasec %s", name);
		break;
	case D2B_KIND_LOC_PARAM: {
		char value[96];

		btf_loc_param_format(t, value, sizeof(value));
		sb_printf(b, "loc %u bytes '%s'", t->size, value);
		break;
	}
	case D2B_KIND_LOC_PROTO:
		sb_printf(b, "loc_proto(");
		for (i = 0; i < (int)d2b_vlen(t) && b->pos + 1 < b->len; i++) {
			sb_printf(b, i ? ", " : "");
			if (d2b_loc_proto_params(t)[i])
				render(s, d2b_loc_proto_params(t)[i], b, depth + 1);
			else
				sb_printf(b, "none");
		}
		sb_printf(b, ")");
		break;
	default:
		sb_printf(b, "%s", *name ? name : d2b_kind_name(d2b_kind(t)));
		break;
	}
}

/* An anonymous struct, union or enum with its first level spelled out:
 * "struct {int x; long y:3; union {...} u;}", "enum {A = 1, B = 2}". */
static void render_body(const struct cmp_side *s, const struct d2b_type *t, struct sbuf *b)
{
	unsigned int i, vlen = d2b_vlen(t), kind = d2b_kind(t);

	sb_printf(b, "%s {", kw_of(t, false));
	for (i = 0; i < vlen && b->pos + 1 < b->len; i++) {
		if (btf_kind_is_composite(kind)) {
			const struct d2b_member *m = btf_members(t) + i;
			const char *n = d2b_btf__str(s->btf, m->name_off);

			render(s, m->type, b, MAX_RENDER_DEPTH - 1);
			if (n && *n)
				sb_printf(b, " %s", n);
			if (d2b_member_bitfield_size(t, m))
				sb_printf(b, ":%u", d2b_member_bitfield_size(t, m));
			sb_printf(b, ";%s", i + 1 < vlen ? " " : "");
		} else {
			const char *n = d2b_btf__str(s->btf, enum_name_off(t, i));
			uint64_t v = enum_value(t, i);

			if (d2b_kflag(t))
				sb_printf(b, "%s = %" PRId64, n ? n : "", (int64_t)v);
			else
				sb_printf(b, "%s = %" PRIu64, n ? n : "", v);
			sb_printf(b, "%s", i + 1 < vlen ? ", " : "");
		}
	}
	sb_printf(b, "}");
}

static const char *type_str(const struct cmp_side *s, uint32_t id, char *buf, size_t len)
{
	struct sbuf b = { .p = buf, .len = len };

	buf[0] = '\0';
	render(s, id, &b, 0);
	return buf;
}

/* type_str(), but an anonymous struct, union or enum shows its members */
static void anon_str(const struct cmp_side *s, uint32_t id, char *buf, size_t len)
{
	const struct d2b_type *t = d2b_btf__type(s->btf, id);
	struct sbuf b = { .p = buf, .len = len };
	unsigned int kind = t ? d2b_kind(t) : 0;

	buf[0] = '\0';
	if (btf_kind_is_composite(kind) || btf_kind_is_enum(kind))
		render_body(s, t, &b);
	else
		render(s, id, &b, 0);
}

/* ---- reporting ---- */

/*
 * Record err (< 0) unless an error is recorded already: the first one
 * stays, so a callback that said stop is never called again.  Returns
 * whether an error is recorded now.
 */
static bool set_err(struct cmp *c, int err)
{
	if (err < 0 && !c->err)
		c->err = err;
	return c->err != 0;
}

static void report(struct cmp *c, const struct d2b_compare_diff *d)
{
	bool quiet = (d->what == D2B_DIFF_ONLY_A || d->what == D2B_DIFF_ONLY_B) &&
		     d->kind <= D2B_KIND_MAX && (c->opts.quiet_presence & (1u << d->kind));
	int err;

	if (c->sum.nr_diffs < UINT32_MAX)
		c->sum.nr_diffs++;
	if (quiet || !c->cb || c->err)
		return;
	err = c->cb(d, c->arg);
	set_err(c, err);
}


/* ---- pass 3: explaining a CHANGED key ---- */

struct explain {
	struct cmp *c;
	const struct d2b_type *ta;	/* the key's type in A, for the reports */
	uint32_t ida, idb;
	unsigned int depth;		/* nested explanations (crafted cycles) */
};

static void __attribute__((format(printf, 3, 4)))
explain_emit(struct explain *e, const char *ctx, const char *fmt, ...)
{
	struct cmp *c = e->c;
	struct sbuf b = { .p = c->detail, .len = sizeof(c->detail) };
	struct d2b_compare_diff d = {
		.what = D2B_DIFF_CHANGED, .kind = d2b_kind(e->ta),
		.name = cmp_type_name(&c->side[0], e->ta), .id_a = e->ida, .id_b = e->idb,
		.count_a = 1, .count_b = 1, .detail = c->detail,
	};
	va_list ap;

	c->detail[0] = '\0';
	if (ctx && *ctx)
		sb_printf(&b, "%s: ", ctx);
	va_start(ap, fmt);
	if (b.pos + 1 < b.len)
		vsnprintf(b.p + b.pos, b.len - b.pos, fmt, ap);
	va_end(ap);
	c->ndetail++;
	report(c, &d);
}

/* "outer: inner" context for nested explanations */
static void ctx_join(char *buf, size_t len, const char *ctx, const char *label)
{
	snprintf(buf, len, "%s%s%s", ctx, *ctx && *label ? ": " : "", label);
}

/*
 * Pair the items of two lists by name: ma[i] is the index in B of A's item
 * i, or -1; mb likewise.  Unnamed items pair in order of appearance.
 */
static int match_by_name(const char **na, uint32_t nra, const char **nb, uint32_t nrb,
			 int32_t *ma, int32_t *mb)
{
	struct hmap m;
	uint32_t i, k;
	int err = 0;

	hmap__init(&m, false);
	for (i = 0; i < nra; i++)
		ma[i] = -1;
	for (i = 0; i < nrb; i++) {
		mb[i] = -1;
		err = hmap__add(&m, hash_str(nb[i]), i);
		if (err)
			goto out;
	}
	for (i = 0, k = 0; i < nra; i++) {
		struct hmap_iter it;
		uint64_t v;

		if (!*na[i]) {
			while (k < nrb && *nb[k])
				k++;
			if (k < nrb) {
				ma[i] = k;
				mb[k++] = i;
			}
			continue;
		}
		hmap__iter_init(&m, hash_str(na[i]), &it);
		while (hmap__next(&m, &it, &v)) {
			if (mb[v] < 0 && !strcmp(na[i], nb[v])) {
				ma[i] = v;
				mb[v] = i;
				break;
			}
		}
	}
out:
	hmap__release(&m);
	return err;
}

static void explain_composite(struct explain *e, const char *ctx, const struct d2b_type *ta,
			      const struct d2b_type *tb);
static void explain_enum(struct explain *e, const char *ctx, const struct d2b_type *ta,
			 const struct d2b_type *tb);
static void explain_proto(struct explain *e, const char *ctx, const struct d2b_type *ta,
			  const struct d2b_type *tb);

/*
 * Explain why references a (in A) and b (in B) differ.  label names the
 * referrer ("member 'x'", "param #1 'p'", "" for a typedef's target).
 * Pointers, modifiers and equal-length arrays are peeled in step so that a
 * difference inside an anonymous struct or a prototype is named precisely.
 */
static void explain_ref(struct explain *e, const char *ctx, const char *label,
			uint32_t a, uint32_t b)
{
	struct cmp *c = e->c;
	struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	uint32_t pa = a, pb = b;
	char bufa[TYPE_STR_LEN], bufb[TYPE_STR_LEN], sub[DETAIL_LEN / 2];
	int steps;

	if (cmp_ref_meaning(c, sa, a) == cmp_ref_meaning(c, sb, b))
		return;
	if (e->depth >= MAX_RENDER_DEPTH)
		goto plain;
	for (steps = 0; steps < MAX_RENDER_DEPTH * 4; steps++) {
		const struct d2b_type *ta = pa < sa->end ? d2b_btf__type(sa->btf, pa) : NULL;
		const struct d2b_type *tb = pb < sb->end ? d2b_btf__type(sb->btf, pb) : NULL;
		unsigned int kind;
		uint32_t na, nb;

		if (!pa || !pb || !ta || !tb || d2b_kind(ta) != d2b_kind(tb) ||
		    cmp_type_is_named(sa, ta) || cmp_type_is_named(sb, tb))
			break;
		kind = d2b_kind(ta);
		ctx_join(sub, sizeof(sub), ctx, label);
		if (btf_kind_is_composite(kind) || btf_kind_is_enum(kind) ||
		    kind == D2B_KIND_FUNC_PROTO) {
			e->depth++;
			if (kind == D2B_KIND_FUNC_PROTO)
				explain_proto(e, sub, ta, tb);
			else if (btf_kind_is_composite(kind))
				explain_composite(e, sub, ta, tb);
			else
				explain_enum(e, sub, ta, tb);
			e->depth--;
			return;
		}
		if (kind == D2B_KIND_ARRAY) {
			if (btf_array(ta)->nelems != btf_array(tb)->nelems)
				break;
			na = btf_array(ta)->type;
			nb = btf_array(tb)->type;
		} else if (kind == D2B_KIND_PTR || btf_kind_is_qualifier(kind) ||
			   (kind == D2B_KIND_TYPE_TAG && d2b_kflag(ta) == d2b_kflag(tb) &&
			    !strcmp(cmp_type_name(sa, ta), cmp_type_name(sb, tb)))) {
			na = ta->type;
			nb = tb->type;
		} else {
			break;
		}
		/* the difference is at this level (an index type, say) */
		if (cmp_ref_meaning(c, sa, na) == cmp_ref_meaning(c, sb, nb))
			break;
		pa = na;
		pb = nb;
	}
plain:
	explain_emit(e, ctx, "%s%stype '%s' vs '%s'", label, *label ? " " : "",
		     type_str(sa, a, bufa, sizeof(bufa)), type_str(sb, b, bufb, sizeof(bufb)));
}

static void explain_composite(struct explain *e, const char *ctx, const struct d2b_type *ta,
			      const struct d2b_type *tb)
{
	struct cmp *c = e->c;
	struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	uint32_t i, nra = d2b_vlen(ta), nrb = d2b_vlen(tb);
	const char **na = calloc(nra + 1, sizeof(*na)), **nb = calloc(nrb + 1, sizeof(*nb));
	int32_t *ma = calloc(nra + 1, sizeof(*ma)), *mb = calloc(nrb + 1, sizeof(*mb));
	unsigned int before = c->ndetail;
	char label[DETAIL_LEN / 4];

	if (!na || !nb || !ma || !mb) {
		set_err(c, -ENOMEM);
		goto out;
	}
	if (d2b_kind(ta) != d2b_kind(tb))
		explain_emit(e, ctx, "kind %s vs %s", d2b_kind_name(d2b_kind(ta)),
			     d2b_kind_name(d2b_kind(tb)));
	if (ta->size != tb->size)
		explain_emit(e, ctx, "size %u vs %u", ta->size, tb->size);
	for (i = 0; i < nra; i++)
		na[i] = d2b_btf__str(sa->btf, btf_members(ta)[i].name_off) ?: "";
	for (i = 0; i < nrb; i++)
		nb[i] = d2b_btf__str(sb->btf, btf_members(tb)[i].name_off) ?: "";
	if (set_err(c, match_by_name(na, nra, nb, nrb, ma, mb)))
		goto out;
	for (i = 0; i < nra; i++) {
		const struct d2b_member *m = btf_members(ta) + i, *n;
		char tbuf[TYPE_STR_LEN];

		if (*na[i])
			snprintf(label, sizeof(label), "member '%s'", na[i]);
		else
			snprintf(label, sizeof(label), "anonymous member #%u", i);
		if (ma[i] < 0) {
			explain_emit(e, ctx, "%s (%s) only in A", label,
				     type_str(sa, m->type, tbuf, sizeof(tbuf)));
			continue;
		}
		n = btf_members(tb) + ma[i];
		if (d2b_member_bit_offset(ta, m) != d2b_member_bit_offset(tb, n))
			explain_emit(e, ctx, "%s offset %u vs %u (bits)", label,
				     d2b_member_bit_offset(ta, m), d2b_member_bit_offset(tb, n));
		if (d2b_member_bitfield_size(ta, m) != d2b_member_bitfield_size(tb, n))
			explain_emit(e, ctx, "%s bitfield size %u vs %u", label,
				     d2b_member_bitfield_size(ta, m), d2b_member_bitfield_size(tb, n));
		explain_ref(e, ctx, label, m->type, n->type);
	}
	for (i = 0; i < nrb; i++) {
		char tbuf[TYPE_STR_LEN];

		if (mb[i] >= 0)
			continue;
		if (*nb[i])
			snprintf(label, sizeof(label), "member '%s'", nb[i]);
		else
			snprintf(label, sizeof(label), "anonymous member #%u", i);
		explain_emit(e, ctx, "%s (%s) only in B", label,
			     type_str(sb, btf_members(tb)[i].type, tbuf, sizeof(tbuf)));
	}
	if (c->ndetail != before)
		goto out;
	for (i = 0; i < nra; i++) {
		if (ma[i] != (int32_t)i) {
			explain_emit(e, ctx, "member order differs: '%s' is #%u vs #%d",
				     na[i], i, ma[i]);
			break;
		}
	}
out:
	free(na);
	free(nb);
	free(ma);
	free(mb);
}

/* An enumerator's value as a 64-bit pattern, honouring ENUM's signedness. */
static uint64_t enum_value(const struct d2b_type *t, uint32_t i)
{
	if (d2b_kind(t) == D2B_KIND_ENUM64)
		return btf_enum64_val(btf_enums64(t) + i);
	if (d2b_kflag(t))
		return (uint64_t)(int64_t)btf_enums(t)[i].val;
	return (uint32_t)btf_enums(t)[i].val;
}

static uint32_t enum_name_off(const struct d2b_type *t, uint32_t i)
{
	if (d2b_kind(t) == D2B_KIND_ENUM64)
		return btf_enums64(t)[i].name_off;
	return btf_enums(t)[i].name_off;
}

static void explain_enum(struct explain *e, const char *ctx, const struct d2b_type *ta,
			 const struct d2b_type *tb)
{
	struct cmp *c = e->c;
	struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	uint32_t i, nra = d2b_vlen(ta), nrb = d2b_vlen(tb);
	const char **na = calloc(nra + 1, sizeof(*na)), **nb = calloc(nrb + 1, sizeof(*nb));
	int32_t *ma = calloc(nra + 1, sizeof(*ma)), *mb = calloc(nrb + 1, sizeof(*mb));
	unsigned int before = c->ndetail;
	bool sgn_a = d2b_kflag(ta), sgn_b = d2b_kflag(tb);

	if (!na || !nb || !ma || !mb) {
		set_err(c, -ENOMEM);
		goto out;
	}
	if (d2b_kind(ta) != d2b_kind(tb))
		explain_emit(e, ctx, "kind %s vs %s", d2b_kind_name(d2b_kind(ta)),
			     d2b_kind_name(d2b_kind(tb)));
	if (ta->size != tb->size)
		explain_emit(e, ctx, "size %u vs %u", ta->size, tb->size);
	if (d2b_kflag(ta) != d2b_kflag(tb))
		explain_emit(e, ctx, "%s vs %s", sgn_a ? "signed" : "unsigned",
			     sgn_b ? "signed" : "unsigned");
	for (i = 0; i < nra; i++)
		na[i] = d2b_btf__str(sa->btf, enum_name_off(ta, i)) ?: "";
	for (i = 0; i < nrb; i++)
		nb[i] = d2b_btf__str(sb->btf, enum_name_off(tb, i)) ?: "";
	if (set_err(c, match_by_name(na, nra, nb, nrb, ma, mb)))
		goto out;
	for (i = 0; i < nra; i++) {
		uint64_t va = enum_value(ta, i), vb;

		if (ma[i] < 0) {
			explain_emit(e, ctx, "value '%s' only in A", na[i]);
			continue;
		}
		vb = enum_value(tb, ma[i]);
		if (va == vb)
			continue;
		if (sgn_a && sgn_b)
			explain_emit(e, ctx, "value '%s' %" PRId64 " vs %" PRId64, na[i],
				     (int64_t)va, (int64_t)vb);
		else
			explain_emit(e, ctx, "value '%s' %" PRIu64 " vs %" PRIu64, na[i], va, vb);
	}
	for (i = 0; i < nrb; i++)
		if (mb[i] < 0)
			explain_emit(e, ctx, "value '%s' only in B", nb[i]);
	if (c->ndetail != before)
		goto out;
	for (i = 0; i < nra; i++) {
		if (ma[i] != (int32_t)i) {
			explain_emit(e, ctx, "value order differs: '%s' is #%u vs #%d",
				     na[i], i, ma[i]);
			break;
		}
	}
out:
	free(na);
	free(nb);
	free(ma);
	free(mb);
}

static void explain_proto(struct explain *e, const char *ctx, const struct d2b_type *ta,
			  const struct d2b_type *tb)
{
	struct cmp *c = e->c;
	uint32_t i, nra = d2b_vlen(ta), nrb = d2b_vlen(tb);
	char label[DETAIL_LEN / 4];

	explain_ref(e, ctx, "return", ta->type, tb->type);
	if (nra != nrb)
		explain_emit(e, ctx, "%u vs %u params", nra, nrb);
	for (i = 0; i < nra && i < nrb; i++) {
		const struct d2b_param *p = btf_params(ta) + i, *q = btf_params(tb) + i;
		const char *pn = d2b_btf__str(c->side[0].btf, p->name_off) ?: "";
		const char *qn = d2b_btf__str(c->side[1].btf, q->name_off) ?: "";

		if (strcmp(pn, qn))
			explain_emit(e, ctx, "param #%u name '%s' vs '%s'", i, pn, qn);
		snprintf(label, sizeof(label), "param #%u '%s'", i, pn);
		explain_ref(e, ctx, label, p->type, q->type);
	}
}

static void explain_datasec(struct explain *e, const struct d2b_type *ta, const struct d2b_type *tb)
{
	struct cmp *c = e->c;
	struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	uint32_t i, nra = d2b_vlen(ta), nrb = d2b_vlen(tb);
	const char **na = calloc(nra + 1, sizeof(*na)), **nb = calloc(nrb + 1, sizeof(*nb));
	int32_t *ma = calloc(nra + 1, sizeof(*ma)), *mb = calloc(nrb + 1, sizeof(*mb));

	if (!na || !nb || !ma || !mb) {
		set_err(c, -ENOMEM);
		goto out;
	}
	if (ta->size != tb->size)
		explain_emit(e, "", "size %u vs %u", ta->size, tb->size);
	for (i = 0; i < nra; i++)
		na[i] = d2b_btf__name(sa->btf, btf_secinfos(ta)[i].type) ?: "";
	for (i = 0; i < nrb; i++)
		nb[i] = d2b_btf__name(sb->btf, btf_secinfos(tb)[i].type) ?: "";
	if (set_err(c, match_by_name(na, nra, nb, nrb, ma, mb)))
		goto out;
	for (i = 0; i < nra; i++) {
		const struct d2b_var_secinfo *v = btf_secinfos(ta) + i, *w;

		if (ma[i] < 0) {
			explain_emit(e, "", "var '%s' only in A", na[i]);
			continue;
		}
		w = btf_secinfos(tb) + ma[i];
		if (v->offset != w->offset)
			explain_emit(e, "", "var '%s' offset %u vs %u", na[i], v->offset, w->offset);
		if (v->size != w->size)
			explain_emit(e, "", "var '%s' size %u vs %u", na[i], v->size, w->size);
	}
	for (i = 0; i < nrb; i++)
		if (mb[i] < 0)
			explain_emit(e, "", "var '%s' only in B", nb[i]);
out:
	free(na);
	free(nb);
	free(ma);
	free(mb);
}

static const char *linkage_name(uint32_t l)
{
	return l == D2B_LINKAGE_STATIC ? "static" : l == D2B_LINKAGE_GLOBAL ? "global" :
	       l == D2B_LINKAGE_EXTERN ? "extern" : "unknown";
}

static const char *int_encoding_name(unsigned int enc)
{
	static const char *const names[] = {
		"none", "signed", "char", "signed|char", "bool", "signed|bool", "char|bool",
		"signed|char|bool",
	};

	return enc < 8 ? names[enc] : "invalid";
}

/* A LOCSEC's sites, keyed "func+0xoffset" (*ret: the keys, in one block) */
static int locsec_keys(const struct cmp_side *s, const struct d2b_type *t, const char ***ret)
{
	enum { KEY_MAX = 160 };
	uint32_t i, n = d2b_vlen(t);
	const char **keys = calloc(n + 1, sizeof(*keys) + KEY_MAX);
	char *buf = (char *)(keys + n + 1);

	*ret = keys;
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct d2b_loc *l = d2b_locsec_locs(t) + i;
		const char *name = d2b_btf__name(s->btf, l->func);

		snprintf(buf + (size_t)i * KEY_MAX, KEY_MAX, "%.120s+0x%x", name ? name : "?",
			 l->offset);
		keys[i] = buf + (size_t)i * KEY_MAX;
	}
	return 0;
}

/* Sites by function and offset: in one only, or their locations differ */
static void explain_locsec(struct explain *e, const struct d2b_type *ta, const struct d2b_type *tb)
{
	struct cmp *c = e->c;
	struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	uint32_t i, nra = d2b_vlen(ta), nrb = d2b_vlen(tb);
	int32_t *ma = calloc(nra + 1, sizeof(*ma)), *mb = calloc(nrb + 1, sizeof(*mb));
	const char **ka = NULL, **kb = NULL;

	if (!ma || !mb || set_err(c, locsec_keys(sa, ta, &ka)) ||
	    set_err(c, locsec_keys(sb, tb, &kb)) ||
	    set_err(c, match_by_name(ka, nra, kb, nrb, ma, mb))) {
		set_err(c, -ENOMEM);
		goto out;
	}
	for (i = 0; i < nra; i++) {
		if (ma[i] < 0)
			explain_emit(e, "", "site '%s' only in A", ka[i]);
		else if (cmp_ref_meaning(c, sa, d2b_locsec_locs(ta)[i].loc_proto) !=
			 cmp_ref_meaning(c, sb, d2b_locsec_locs(tb)[ma[i]].loc_proto))
			explain_emit(e, "", "site '%s': its parameters' locations differ", ka[i]);
	}
	for (i = 0; i < nrb; i++)
		if (mb[i] < 0)
			explain_emit(e, "", "site '%s' only in B", kb[i]);
out:
	free(ka);
	free(kb);
	free(ma);
	free(mb);
}

static void explain_named(struct cmp *c, uint32_t ida, uint32_t idb)
{
	const struct d2b_type *ta = d2b_btf__type(c->side[0].btf, ida);
	const struct d2b_type *tb = d2b_btf__type(c->side[1].btf, idb);
	struct explain e = { .c = c, .ta = ta, .ida = ida, .idb = idb };
	unsigned int kind = d2b_kind(ta);
	uint32_t wa, wb;

	c->ndetail = 0;
	if (kind != d2b_kind(tb) && !btf_kind_is_enum(kind))
		explain_emit(&e, "", "kind %s vs %s", d2b_kind_name(kind), d2b_kind_name(d2b_kind(tb)));
	else switch (kind) {
	case D2B_KIND_INT:
		wa = btf_int_word(ta);
		wb = btf_int_word(tb);
		if (ta->size != tb->size)
			explain_emit(&e, "", "size %u vs %u", ta->size, tb->size);
		if (d2b_int_encoding(wa) != d2b_int_encoding(wb))
			explain_emit(&e, "", "encoding %s vs %s", int_encoding_name(d2b_int_encoding(wa)),
				     int_encoding_name(d2b_int_encoding(wb)));
		if (d2b_int_bits(wa) != d2b_int_bits(wb))
			explain_emit(&e, "", "bits %u vs %u", d2b_int_bits(wa), d2b_int_bits(wb));
		if (d2b_int_offset(wa) != d2b_int_offset(wb))
			explain_emit(&e, "", "bit offset %u vs %u", d2b_int_offset(wa),
				     d2b_int_offset(wb));
		break;
	case D2B_KIND_FLOAT:
		if (ta->size != tb->size)
			explain_emit(&e, "", "size %u vs %u", ta->size, tb->size);
		break;
	case D2B_KIND_FWD:
		explain_emit(&e, "", "%s vs %s", kw_of(ta, false), kw_of(tb, false));
		break;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		explain_composite(&e, "", ta, tb);
		break;
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		explain_enum(&e, "", ta, tb);
		break;
	case D2B_KIND_TYPEDEF:
		explain_ref(&e, "", "", ta->type, tb->type);
		break;
	case D2B_KIND_FUNC:
		if (d2b_vlen(ta) != d2b_vlen(tb) && !c->opts.ignore_linkage)
			explain_emit(&e, "", "linkage %s vs %s", linkage_name(d2b_vlen(ta)),
				     linkage_name(d2b_vlen(tb)));
		explain_ref(&e, "", "", ta->type, tb->type);
		break;
	case D2B_KIND_VAR:
		if (btf_var_linkage(ta) != btf_var_linkage(tb) && !c->opts.ignore_linkage)
			explain_emit(&e, "", "linkage %s vs %s", linkage_name(btf_var_linkage(ta)),
				     linkage_name(btf_var_linkage(tb)));
		explain_ref(&e, "", "", ta->type, tb->type);
		break;
	case D2B_KIND_DATASEC:
		explain_datasec(&e, ta, tb);
		break;
	case D2B_KIND_LOCSEC:
		explain_locsec(&e, ta, tb);
		break;
	default:
		break;
	}
	if (!c->ndetail && !c->err)
		explain_emit(&e, "", "definitions differ");
}

/* ---- pass 2: merging ---- */

static struct d2b_compare_kind_stats *stats_of(struct cmp *c, unsigned int kind)
{
	return &c->sum.kind[kind > D2B_KIND_MAX ? 0 : kind];
}

/* One key: the variants a[0..na) and b[0..nb), each sorted by hash. */
static void compare_key(struct cmp *c, const struct named_ent *a, size_t na,
			const struct named_ent *b, size_t nb)
{
	struct d2b_compare_diff d = { .detail = "" };
	size_t i = 0, j = 0, common = 0, ua = 0, ub = 0;
	const struct named_ent *fa = NULL, *fb = NULL;

	if (!nb || !na) {
		const struct named_ent *x = na ? a : b;

		d.what = na ? D2B_DIFF_ONLY_A : D2B_DIFF_ONLY_B;
		d.kind = x->kind;
		d.name = x->name;
		d.id_a = na ? a->id : 0;
		d.id_b = nb ? b->id : 0;
		d.count_a = na;
		d.count_b = nb;
		if (na)
			stats_of(c, x->kind)->only_a++;
		else
			stats_of(c, x->kind)->only_b++;
		report(c, &d);
		return;
	}
	while (i < na || j < nb) {
		if (j == nb || (i < na && a[i].hash < b[j].hash)) {
			if (!ua++)
				fa = &a[i];
			i++;
		} else if (i == na || b[j].hash < a[i].hash) {
			if (!ub++)
				fb = &b[j];
			j++;
		} else {
			common++;
			i++;
			j++;
		}
	}
	if (!ua && !ub) {
		stats_of(c, a->kind)->same++;
		return;
	}
	stats_of(c, a->kind)->changed++;
	if (ua == 1 && ub == 1) {
		explain_named(c, fa->id, fb->id);
		return;
	}
	snprintf(c->detail, sizeof(c->detail), "%zu in A, %zu in B, %zu in common", na, nb, common);
	d.what = D2B_DIFF_VARIANTS;
	d.kind = a->kind;
	d.name = a->name;
	d.id_a = fa ? fa->id : a->id;
	d.id_b = fb ? fb->id : b->id;
	d.count_a = na;
	d.count_b = nb;
	d.detail = c->detail;
	report(c, &d);
}

static void compare_named(struct cmp *c)
{
	const struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	size_t i = 0, j = 0;

	while ((i < sa->nnamed || j < sb->nnamed) && !c->err) {
		size_t i1 = i, j1 = j;
		int r;

		if (i == sa->nnamed)
			r = 1;
		else if (j == sb->nnamed)
			r = -1;
		else
			r = cmp_key_order(&sa->named[i], &sb->named[j]);
		if (r <= 0)
			while (i1 < sa->nnamed && !cmp_key_order(&sa->named[i1], &sa->named[i]))
				i1++;
		if (r >= 0)
			while (j1 < sb->nnamed && !cmp_key_order(&sb->named[j1], &sb->named[j]))
				j1++;
		compare_key(c, sa->named + i, i1 - i, sb->named + j, j1 - j);
		i = i1;
		j = j1;
	}
}

static void compare_anon(struct cmp *c)
{
	const struct cmp_side *sa = &c->side[0], *sb = &c->side[1];
	size_t i = 0, j = 0;

	while ((i < sa->nanon || j < sb->nanon) && !c->err) {
		const struct anon_ent *x;
		size_t i1 = i, j1 = j, ca, cb;
		int r;

		if (i == sa->nanon)
			r = 1;
		else if (j == sb->nanon)
			r = -1;
		else
			r = cmp_anon_key_order(&sa->anon[i], &sb->anon[j]);
		x = r <= 0 ? &sa->anon[i] : &sb->anon[j];
		while (i1 < sa->nanon && !cmp_anon_key_order(&sa->anon[i1], x))
			i1++;
		while (j1 < sb->nanon && !cmp_anon_key_order(&sb->anon[j1], x))
			j1++;
		ca = i1 - i;
		cb = j1 - j;
		if (c->opts.anon_sets) {
			ca = ca ? 1 : 0;
			cb = cb ? 1 : 0;
		}
		if (ca != cb) {
			struct d2b_compare_diff d = {
				.what = D2B_DIFF_ANON, .kind = x->kind, .name = "",
				.id_a = i1 > i ? sa->anon[i].id : 0,
				.id_b = j1 > j ? sb->anon[j].id : 0,
				.count_a = i1 - i, .count_b = j1 - j, .detail = c->detail,
			};

			if (ca > cb)
				stats_of(c, x->kind)->anon_extra_a += ca - cb;
			else
				stats_of(c, x->kind)->anon_extra_b += cb - ca;
			anon_str(d.id_a ? sa : sb, d.id_a ? d.id_a : d.id_b, c->detail,
				 sizeof(c->detail));
			report(c, &d);
		}
		i = i1;
		j = j1;
	}
}

/* ---- the API ---- */

int d2b_btf__compare(const struct d2b_btf *a, const struct d2b_btf *b,
		     const struct d2b_compare_opts *opts, d2b_compare_fn cb, void *arg,
		     struct d2b_compare_summary *ret)
{
	struct cmp *c;
	int err, i;

	if (!a || !b)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (opts)
		c->opts = *opts;
	c->cb = cb;
	c->arg = arg;
	c->side[0].btf = a;
	c->side[1].btf = b;
	c->budget = BUDGET_PER_TYPE * ((uint64_t)d2b_btf__end_id(a) + d2b_btf__end_id(b)) +
		    BUDGET_MIN;
	for (i = 0; i < 2; i++) {
		struct cmp_side *s = &c->side[i];

		err = cmp_side_hash(c, s);
		if (err)
			goto out;
		if (s->nnamed)
			qsort(s->named, s->nnamed, sizeof(*s->named), cmp_named_sort);
		if (s->nanon)
			qsort(s->anon, s->nanon, sizeof(*s->anon), cmp_anon_sort);
	}
	compare_named(c);
	if (!c->err)
		compare_anon(c);
	err = c->err ? c->err : (int)(c->sum.nr_diffs > INT_MAX ? INT_MAX : c->sum.nr_diffs);
out:
	if (ret)
		*ret = c->sum;
	cmp_side_release(&c->side[0]);
	cmp_side_release(&c->side[1]);
	free(c);
	return err;
}

int d2b_compare_diff__format(const struct d2b_compare_diff *d, char *buf, size_t len)
{
	const char *kind = d2b_kind_name(d->kind);
	const char *name = d->name && *d->name ? d->name : "(anon)";

	switch (d->what) {
	case D2B_DIFF_ONLY_A:
	case D2B_DIFF_ONLY_B:
		return snprintf(buf, len, "%s %s only in %s", kind, name,
				d->what == D2B_DIFF_ONLY_A ? "A" : "B");
	case D2B_DIFF_CHANGED:
		return snprintf(buf, len, "%s %s differs: %s", kind, name, d->detail);
	case D2B_DIFF_VARIANTS:
		return snprintf(buf, len, "%s %s: same-name variants differ (%s)", kind, name,
				d->detail);
	case D2B_DIFF_ANON:
		return snprintf(buf, len, "%s '%s': %u in A, %u in B", kind, d->detail,
				d->count_a, d->count_b);
	}
	return snprintf(buf, len, "%s %s: unknown difference", kind, name);
}
