// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Checking BTF against the kernel's rules before it is written.
 *
 * The kernel (kernel/bpf/btf.c) refuses a whole BTF for one bad type, and
 * at boot or module load that means no BTF at all.  A converter that wrote
 * such a file and exited 0 would hide a damaged input (a corrupt
 * .debug_str gives invalid names, a corrupt .debug_info misplaced members)
 * or a bug of ours.  So every BTF is checked here first, with the rules of
 * /work/shared/notes/kernel-btf-rules.md, the ones BPF_BTF_LOAD applies:
 *
 *   Pass 1, per type ("meta"): names (identifiers where the kernel wants
 *     them; dots allowed in VAR and DATASEC names, and in the others as
 *     6.5+ kernels allow), the kind's fixed fields, referenced IDs inside
 *     the BTF, member and DATASEC entry layout, enum and float sizes, FUNC
 *     linkage and named parameters, DECL_TAG targets.
 *   An empty BTF (not split) is refused too ("No type found").
 *   Pass 2, references: nothing but a DATASEC references a VAR; nothing
 *     references a DECL_TAG or a DATASEC; an ARRAY's element, a member, a
 *     return type are not of the kinds the kernel refuses there.
 *   Pass 3, chains: following PTR-free reference chains (modifiers,
 *     typedefs, arrays) from each type, no loop and no more than the
 *     kernel's depth; TYPE_TAGs come before the other modifiers and
 *     typedefs of a chain.
 *   The layout section, if any (Linux 7.1+ reads it, checking only its
 *     place and that it holds whole records, which encoding ensures):
 *     each record of a kind we know says what that kind is (libbpf 1.8
 *     steps over kinds it does not know by these records), flags zero.
 * With D2B_VERIFY_CXX_NAMES, a C++ name ("geo::Box<int>": printable ASCII)
 * is accepted wherever the kernel wants an identifier: BTF for user-space
 * tools, which the kernel itself would refuse (see dwarf2btf.h).
 * Own types only are checked; references into a base are checked for
 * existence and kind.  Each violation is reported with the type's ID;
 * the count is returned.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "btf/btf.h"

enum {
	VERIFY_MAX_NAME = 512,		/* KSYM_NAME_LEN: names are shorter */
	VERIFY_MAX_DEPTH = 32,		/* the kernel's resolve depth */
	VERIFY_MAX_REPORTS = 1000,	/* the rest are only counted */
};

struct verify {
	const struct d2b_btf *btf;
	bool cxx_names;		/* D2B_VERIFY_CXX_NAMES */
	d2b_verify_fn report;
	void *arg;
	int count;
};

static void bad(struct verify *v, uint32_t id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(struct verify *v, uint32_t id, const char *fmt, ...)
{
	const struct d2b_type *t = d2b_btf__type(v->btf, id);
	const char *name = t ? d2b_btf__str(v->btf, t->name_off) : NULL;
	char msg[512], line[768];
	va_list ap;

	if (v->count++ >= VERIFY_MAX_REPORTS || !v->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "type [%u] %s%s%.100s%s: %s", id,
		 t ? d2b_kind_name(d2b_kind(t)) : "?", name && *name ? " '" : "",
		 name && *name ? name : "", name && *name ? "'" : "", msg);
	v->report(v->arg, id, line);
}

/* An identifier: [A-Za-z_.][A-Za-z0-9_.]*, shorter than KSYM_NAME_LEN. */
bool btf_name_is_ident(const char *s)
{
	size_t i;

	if (!s || !*s ||
	    !(s[0] == '_' || s[0] == '.' || ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z')))
		return false;
	for (i = 1; s[i]; i++) {
		char c = s[i];

		if (i >= VERIFY_MAX_NAME - 1)
			return false;
		if (!(c == '_' || c == '.' || (c >= '0' && c <= '9') ||
		      ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))
			return false;
	}
	return true;
}

/*
 * A C++ name as DWARF spells it, where D2B_VERIFY_CXX_NAMES allows one in
 * place of an identifier: "geo::Box<int>", "operator<<", "_vptr$base".
 * Printable ASCII, not starting with a blank, of any length: still not
 * the bytes of a damaged string section.
 */
static bool is_cxx_name(const char *s)
{
	size_t i;

	if (!s || !*s || *s == ' ')
		return false;
	for (i = 0; s[i]; i++) {
		if (s[i] < ' ' || s[i] > '~')
			return false;
	}
	return true;
}

/* A name where the kernel wants an identifier. */
static bool name_ok(const struct verify *v, const char *s)
{
	return btf_name_is_ident(s) || (v->cxx_names && is_cxx_name(s));
}

/* A VAR or DATASEC name: any printable run without blanks (".data..percpu") */
static bool is_section_name(const char *s)
{
	size_t i;

	if (!s || !*s)
		return false;
	for (i = 0; s[i]; i++) {
		if (i >= VERIFY_MAX_NAME - 1 || s[i] <= ' ' || s[i] > '~')
			return false;
	}
	return true;
}

static const struct d2b_type *type_at(struct verify *v, uint32_t id)
{
	return d2b_btf__type(v->btf, id);
}

/* The type id stands for, through typedefs and modifiers (bounded) */
static uint32_t skip_mods(struct verify *v, uint32_t id)
{
	int n;

	for (n = 0; n < VERIFY_MAX_DEPTH; n++) {
		const struct d2b_type *t = type_at(v, id);

		if (!t || !(btf_kind_is_modifier(d2b_kind(t)) || d2b_kind(t) == D2B_KIND_TYPEDEF))
			return id;
		id = t->type;
	}
	return id;
}

static bool kind_is(struct verify *v, uint32_t id, unsigned int kind)
{
	const struct d2b_type *t = type_at(v, id);

	return t && id && d2b_kind(t) == kind;
}

static void check_name(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	const char *name = d2b_btf__str(v->btf, t->name_off);
	unsigned int k = d2b_kind(t);

	if (!name) {
		bad(v, id, "name offset %u outside the string section", t->name_off);
		return;
	}
	switch (k) {
	case D2B_KIND_PTR:
	case D2B_KIND_ARRAY:
	case D2B_KIND_CONST:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_FUNC_PROTO:
		if (*name)
			bad(v, id, "must have no name");
		break;
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_FWD:
	case D2B_KIND_FUNC:
		if (!name_ok(v, name))
			bad(v, id, "needs a valid identifier as name");
		break;
	case D2B_KIND_VAR:
	case D2B_KIND_DATASEC:
		if (!is_section_name(name) &&
		    !(k == D2B_KIND_VAR && v->cxx_names && is_cxx_name(name)))
			bad(v, id, "invalid name");
		break;
	case D2B_KIND_TYPE_TAG:
	case D2B_KIND_DECL_TAG:
		if (!*name)
			bad(v, id, "needs a value");
		break;
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
		break;		/* any name: "long unsigned int" */
	default:	/* STRUCT UNION ENUM ENUM64: empty or identifier */
		if (*name && !name_ok(v, name))
			bad(v, id, "invalid name");
		break;
	}
}

static void check_int(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	uint32_t w = btf_int_word(t);
	unsigned int enc = d2b_int_encoding(w), bits = d2b_int_bits(w), off = d2b_int_offset(w);

	if (t->size == 0 || t->size > 16)
		bad(v, id, "size %u", t->size);
	if (bits + off > 128 || bits + off > t->size * 8u)
		bad(v, id, "%u bits at offset %u do not fit its %u bytes", bits, off, t->size);
	if (enc & ~(unsigned int)(D2B_INT_SIGNED | D2B_INT_CHAR | D2B_INT_BOOL) ||
	    (enc & (enc - 1)))
		bad(v, id, "encoding 0x%x", enc);
}

/* Member types the kernel refuses: void, FWD, FUNC, FUNC_PROTO (and VAR,
 * DATASEC, DECL_TAG, which only those may be). */
static const char *bad_member_type(struct verify *v, uint32_t type)
{
	const struct d2b_type *t = type_at(v, type);

	if (!type)
		return "void";
	if (!t)
		return "a type that does not exist";
	switch (d2b_kind(t)) {
	case D2B_KIND_FWD:
		return "a forward declaration";
	case D2B_KIND_FUNC:
	case D2B_KIND_FUNC_PROTO:
	case D2B_KIND_VAR:
	case D2B_KIND_DATASEC:
	case D2B_KIND_DECL_TAG:
		return d2b_kind_name(d2b_kind(t));
	default:
		return NULL;
	}
}

static void check_composite(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	bool is_union = d2b_kind(t) == D2B_KIND_UNION;
	uint64_t prev = 0, size_bits = (uint64_t)t->size * 8;
	unsigned int i, n = d2b_vlen(t);

	for (i = 0; i < n; i++) {
		const struct d2b_member *m = &btf_members(t)[i];
		const char *mname = d2b_btf__str(v->btf, m->name_off), *why;
		const struct d2b_type *r;
		uint64_t off = d2b_member_bit_offset(t, m);
		uint32_t bsz = d2b_member_bitfield_size(t, m);
		int64_t msize;

		if (!mname || (*mname && !name_ok(v, mname))) {
			bad(v, id, "member %u: invalid name", i);
			continue;
		}
		why = bad_member_type(v, m->type);
		if (why) {
			bad(v, id, "member '%s' is %s", mname, why);
			continue;
		}
		if (is_union && off)
			bad(v, id, "union member '%s' at bit offset %llu", mname, (unsigned long long)off);
		if (!is_union && off < prev)
			bad(v, id, "member '%s' at bit %llu, before the previous member",
			    mname, (unsigned long long)off);
		prev = off;
		if (bsz) {
			if (off + bsz > size_bits)
				bad(v, id, "bitfield '%s' ends past the struct", mname);
			continue;
		}
		r = type_at(v, skip_mods(v, m->type));
		if (!d2b_kflag(t) && r && d2b_kind(r) == D2B_KIND_INT) {
			/* BTF's first bitfield encoding: a member of an INT of
			 * the field's width, at any bit (btf_int_check_member) */
			uint32_t copy = d2b_int_bits(btf_int_word(r)) + off % 8;

			if (copy > 128)
				bad(v, id, "member '%s' spans more than 128 bits", mname);
			else if (off / 8 + (copy + 7) / 8 > t->size)
				bad(v, id, "member '%s' ends past the %u bytes of the type", mname,
				    t->size);
			continue;
		}
		if (off % 8)
			bad(v, id, "member '%s' is not byte aligned", mname);
		/* btf_enum_check_kflag_member: a kind_flag member of enum type
		 * that is not a bitfield counts 32 bits, whatever its size */
		if (d2b_kflag(t) && r && btf_kind_is_enum(d2b_kind(r)) && off + 32 > size_bits) {
			bad(v, id, "member '%s' (an enum, taken for 32 bits) ends past the %u "
			    "bytes of the type", mname, t->size);
			continue;
		}
		msize = d2b_btf__resolve_size(v->btf, m->type);
		if (msize < 0)
			bad(v, id, "member '%s' has a type of no size", mname);
		else if (off + (uint64_t)msize * 8 > size_bits)
			bad(v, id, "member '%s' ends past the %u bytes of the type", mname, t->size);
	}
}

static void check_enum(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	bool e64 = d2b_kind(t) == D2B_KIND_ENUM64;
	unsigned int i, n = d2b_vlen(t);

	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
		bad(v, id, "size %u", t->size);
	for (i = 0; i < n; i++) {
		uint32_t off = e64 ? btf_enums64(t)[i].name_off : btf_enums(t)[i].name_off;

		if (!name_ok(v, d2b_btf__str(v->btf, off)))
			bad(v, id, "enumerator %u has no valid name", i);
	}
}

/*
 * What a return or parameter type (not void itself) resolves to, through
 * typedefs and modifiers, if that has no size, which the kernel refuses
 * there: void, a FWD, a FUNC_PROTO (and the kinds nothing may name).
 */
static const char *sizeless_kind(struct verify *v, uint32_t type)
{
	uint32_t r = skip_mods(v, type);
	const struct d2b_type *t = type_at(v, r);

	if (!r)
		return "void through a typedef or modifier";
	if (!t)
		return NULL;	/* said elsewhere */
	switch (d2b_kind(t)) {
	case D2B_KIND_FWD:
	case D2B_KIND_FUNC_PROTO:
	case D2B_KIND_FUNC:
	case D2B_KIND_VAR:
	case D2B_KIND_DECL_TAG:
	case D2B_KIND_DATASEC:
		return d2b_kind_name(d2b_kind(t));
	default:
		return NULL;
	}
}

static void check_proto(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	unsigned int i, n = d2b_vlen(t);
	const struct d2b_type *r = type_at(v, skip_mods(v, t->type));
	const char *why;

	if (!r)
		bad(v, id, "return type [%u] does not exist", t->type);
	else if (t->type && (why = sizeless_kind(v, t->type)))
		bad(v, id, "returns %s", why);
	for (i = 0; i < n; i++) {
		const struct d2b_param *p = &btf_params(t)[i];
		const char *pname = d2b_btf__str(v->btf, p->name_off);

		if (!p->type) {
			if (i != n - 1 || p->name_off)
				bad(v, id, "parameter %u is void", i);
			continue;
		}
		if (!pname || (*pname && !name_ok(v, pname)))
			bad(v, id, "parameter %u: invalid name", i);
		if (!type_at(v, p->type))
			bad(v, id, "parameter %u: type [%u] does not exist", i, p->type);
		else if ((why = sizeless_kind(v, p->type)))
			bad(v, id, "parameter %u is %s", i, why);
	}
}

static void check_func(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	const struct d2b_type *p = type_at(v, t->type);
	unsigned int i, n;

	if (d2b_vlen(t) > D2B_LINKAGE_GLOBAL)
		bad(v, id, "linkage %u", d2b_vlen(t));
	if (!p || d2b_kind(p) != D2B_KIND_FUNC_PROTO) {
		bad(v, id, "is not over a FUNC_PROTO");
		return;
	}
	n = d2b_vlen(p);
	for (i = 0; i < n; i++) {
		const struct d2b_param *pa = &btf_params(p)[i];

		if (pa->type && !pa->name_off)
			bad(v, id, "parameter %u has no name", i);
	}
}

static void check_datasec(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	unsigned int i, n = d2b_vlen(t);
	uint64_t end = 0;

	if (!t->size)
		bad(v, id, "size 0");
	for (i = 0; i < n; i++) {
		const struct d2b_var_secinfo *e = &btf_secinfos(t)[i];
		const struct d2b_type *var = type_at(v, e->type);
		int64_t vsize;

		if (!var || !e->type || d2b_kind(var) != D2B_KIND_VAR) {
			bad(v, id, "entry %u is not a VAR", i);
			continue;
		}
		if (e->offset < end)
			bad(v, id, "entry %u overlaps the one before", i);
		if ((uint64_t)e->offset + e->size > t->size || !e->size)
			bad(v, id, "entry %u (offset %u size %u) outside the section", i, e->offset,
			    e->size);
		vsize = d2b_btf__resolve_size(v->btf, var->type);
		if (vsize < 0 || (uint64_t)vsize > e->size)
			bad(v, id, "entry %u: its variable does not fit", i);
		end = (uint64_t)e->offset + e->size;
	}
}

static void check_decl_tag(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	const struct d2b_type *target = type_at(v, t->type);
	int32_t idx = btf_decl_tag_idx(t);
	unsigned int k;

	if (!target || !t->type) {
		bad(v, id, "target [%u] does not exist", t->type);
		return;
	}
	k = d2b_kind(target);
	if (idx < -1)
		bad(v, id, "component %d", idx);
	switch (k) {
	case D2B_KIND_VAR:
	case D2B_KIND_TYPEDEF:
		if (idx != -1)
			bad(v, id, "component %d on a %s", idx, d2b_kind_name(k));
		break;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		if (idx >= (int32_t)d2b_vlen(target))
			bad(v, id, "component %d past the members", idx);
		break;
	case D2B_KIND_FUNC:
		target = type_at(v, target->type);
		if (target && idx >= (int32_t)d2b_vlen(target))
			bad(v, id, "component %d past the parameters", idx);
		break;
	default:
		bad(v, id, "on a %s", d2b_kind_name(k));
	}
}

/* Pass 1 */
static void check_type(struct verify *v, uint32_t id)
{
	const struct d2b_type *t = type_at(v, id);
	unsigned int k = d2b_kind(t);
	const struct d2b_type *e;

	if (t->info & 0x60ff0000u)
		bad(v, id, "unused info bits set");
	if (k == D2B_KIND_UNKN || k > D2B_KIND_MAX) {
		bad(v, id, "unknown kind %u", k);
		return;
	}
	check_name(v, id, t);
	switch (k) {
	case D2B_KIND_INT:
		check_int(v, id, t);
		break;
	case D2B_KIND_PTR:
	case D2B_KIND_CONST:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_TYPE_TAG:
		if (!type_at(v, t->type))
			bad(v, id, "refers to [%u], which does not exist", t->type);
		break;
	case D2B_KIND_ARRAY:
		e = type_at(v, btf_array(t)->type);
		if (!e || !btf_array(t)->type || d2b_kind(e) == D2B_KIND_FWD ||
		    d2b_kind(e) == D2B_KIND_FUNC || d2b_kind(e) == D2B_KIND_FUNC_PROTO ||
		    d2b_kind(e) == D2B_KIND_VAR || d2b_kind(e) == D2B_KIND_DATASEC ||
		    d2b_kind(e) == D2B_KIND_DECL_TAG)
			bad(v, id, "element type [%u] not allowed", btf_array(t)->type);
		if (!kind_is(v, btf_array(t)->index_type, D2B_KIND_INT))
			bad(v, id, "index type [%u] is not an INT", btf_array(t)->index_type);
		break;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		check_composite(v, id, t);
		break;
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		check_enum(v, id, t);
		break;
	case D2B_KIND_FWD:
		break;
	case D2B_KIND_FUNC:
		check_func(v, id, t);
		break;
	case D2B_KIND_FUNC_PROTO:
		check_proto(v, id, t);
		break;
	case D2B_KIND_VAR:
		if (btf_var_linkage(t) > D2B_LINKAGE_GLOBAL)
			bad(v, id, "linkage %u", btf_var_linkage(t));
		if (d2b_btf__resolve_size(v->btf, t->type) < 0)
			bad(v, id, "type [%u] has no size", t->type);
		break;
	case D2B_KIND_DATASEC:
		check_datasec(v, id, t);
		break;
	case D2B_KIND_FLOAT:
		if (t->size != 2 && t->size != 4 && t->size != 8 && t->size != 12 && t->size != 16)
			bad(v, id, "size %u", t->size);
		break;
	case D2B_KIND_DECL_TAG:
		check_decl_tag(v, id, t);
		break;
	}
}

/* Pass 2: what may refer to what */
static void check_refs(struct verify *v, uint32_t id)
{
	struct btf_field_iter it;
	unsigned int k = d2b_kind(type_at(v, id));
	uint32_t *f;

	btf_field_iter__init(&it, (struct d2b_type *)type_at(v, id), BTF_FIELD_IDS);
	while ((f = btf_field_iter__next(&it)) != NULL) {
		const struct d2b_type *r = type_at(v, *f);

		if (!*f || !r)
			continue;
		if (d2b_kind(r) == D2B_KIND_VAR && k != D2B_KIND_DATASEC && k != D2B_KIND_DECL_TAG)
			bad(v, id, "refers to VAR [%u]", *f);
		if (d2b_kind(r) == D2B_KIND_DATASEC || d2b_kind(r) == D2B_KIND_DECL_TAG)
			bad(v, id, "refers to %s [%u]", d2b_kind_name(d2b_kind(r)), *f);
		if (d2b_kind(r) == D2B_KIND_FUNC && k != D2B_KIND_DECL_TAG)
			bad(v, id, "refers to FUNC [%u]", *f);
	}
}

/* Pass 3: chains from id through modifiers, typedefs and arrays: bounded,
 * loop-free, TYPE_TAGs first. */
static void check_chain(struct verify *v, uint32_t id)
{
	uint32_t cur = id;
	bool seen_mod = false;
	int depth;

	for (depth = 0; depth <= VERIFY_MAX_DEPTH; depth++) {
		const struct d2b_type *t = type_at(v, cur);
		unsigned int k;

		if (!t || !cur)
			return;
		k = d2b_kind(t);
		if (k == D2B_KIND_TYPE_TAG) {
			if (seen_mod) {
				bad(v, id, "a TYPE_TAG follows a modifier or typedef");
				return;
			}
		} else if (btf_kind_is_qualifier(k) || k == D2B_KIND_TYPEDEF) {
			seen_mod = true;
		} else if (k == D2B_KIND_ARRAY) {
			seen_mod = false;
			cur = btf_array(t)->type;
			continue;
		} else {
			return;
		}
		cur = t->type;
	}
	bad(v, id, "reference chain longer than %d, or a loop", VERIFY_MAX_DEPTH);
}

/* The layout section: every kind we know described as it is. */
static void check_layout(struct verify *v)
{
	const struct d2b_layout *l, *want;
	uint32_t nr, k;
	char msg[160];

	l = d2b_btf__layout(v->btf, &nr);
	for (k = 0; k < nr; k++) {
		want = btf_kind_layout(k);
		if (!l[k].flags && (!want || (l[k].info_sz == want->info_sz &&
					      l[k].elem_sz == want->elem_sz)))
			continue;
		v->count++;
		if (!v->report || v->count > VERIFY_MAX_REPORTS)
			continue;
		if (l[k].flags)
			snprintf(msg, sizeof(msg), "layout section: kind %u has flags 0x%x (none are defined)",
				 k, l[k].flags);
		else
			snprintf(msg, sizeof(msg), "layout section: kind %u (%s) is given info_sz=%u elem_sz=%u, "
				 "not %u and %u", k, d2b_kind_name(k), l[k].info_sz, l[k].elem_sz,
				 want->info_sz, want->elem_sz);
		v->report(v->arg, 0, msg);
	}
}

int d2b_btf__verify(const struct d2b_btf *btf, unsigned int flags, d2b_verify_fn report,
		    void *arg)
{
	struct verify v = {
		.btf = btf, .cxx_names = flags & D2B_VERIFY_CXX_NAMES, .report = report, .arg = arg,
	};
	uint32_t id, start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf);

	/* "No type found": an empty BTF is refused, unless it is split */
	if (start == end && !d2b_btf__base(btf)) {
		v.count++;
		if (report)
			report(arg, 0, "no type at all");
	}
	check_layout(&v);
	for (id = start; id < end; id++) {
		if (!d2b_btf__type(btf, id))
			return -EINVAL;
		check_type(&v, id);
		check_refs(&v, id);
		check_chain(&v, id);
	}
	return v.count;
}
