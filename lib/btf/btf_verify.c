// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Checking BTF against the kernel's rules before it is written.
 *
 * The kernel (kernel/bpf/btf.c) refuses a whole BTF for one bad type, and
 * at boot or module load that means no BTF at all.  A converter that wrote
 * such a file and exited 0 would hide a damaged input (a corrupt
 * .debug_str gives invalid names, a corrupt .debug_info misplaced members)
 * or a bug of ours.  So every BTF is checked here first, with the rules
 * BPF_BTF_LOAD applies (/work/shared/notes/kernel-btf-rules.md), read in
 * kernel/bpf/btf.c of 6.1, 6.12 and 7.3 and held against a 6.18 kernel by
 * tests/unit/test_verify_kernel.c.  Where the kernels differ, the
 * strictest rule is the one checked:
 *   - a type's info word with bits outside kind, vlen and kind_flag: 6.1
 *     to 6.18 refuse it (7.3 no longer looks);
 *   - TYPE_TAGs after another modifier or typedef of a chain, and chains
 *     of modifiers longer than 32: 6.1 to 6.18 refuse them (7.3 dropped
 *     btf_check_type_tags);
 * except two, which follow the newer kernels:
 *   - DATASEC names: 6.1 wants an identifier (dots allowed), 6.12 and
 *     later any printable run.  Section names are the ELF file's, not the
 *     DWARF's, and user-space ones have other characters
 *     (".note.ABI-tag" in glibc): printable ASCII without blanks;
 *   - a kind_flag on TYPE_TAG and DECL_TAG (an attribute, not a tag) is
 *     refused by 6.1 and 6.12, but it is only ever written for kernels
 *     that asked for attributes.
 * A few rules are stricter than every kernel, on purpose (the differential
 * test lists them): INT sizes of 1 to 16 bytes, names of ASCII only (the
 * kernel's isalpha() takes Latin-1 letters) and under 512 bytes, no
 * pointer or modifier to a FUNC (the kernel takes one when the FUNC has
 * the lower ID, resolved to its FUNC_PROTO before).  Where
 * the kernel uses its own sizeof(void *) (pointer members, the alignment
 * of float members), the BTF's pointer size stands for it: the target's
 * kernel is the one that loads it.
 *
 *   Pass 1, per type ("meta"): the info word (kind, kind_flag and vlen
 *     where the kind allows them), names (identifiers where the kernel
 *     wants them, with dots; a name offset other than 0 names something,
 *     and an empty string is no name), the kind's fixed fields, referenced
 *     IDs inside the BTF, enum and float sizes, FUNC linkage and named
 *     parameters, DECL_TAG targets; members as btf_struct_resolve() checks
 *     them: by the kind their type resolves to, with the struct's
 *     kind_flag (a bitfield only of a regular INT or an enum; a float
 *     aligned to its size, up to a pointer's); arrays: a regular INT
 *     index, no array of irregular INT, at most 4 GiB.
 *   An empty BTF (not split) is refused too ("No type found").
 *   Pass 2, references: nothing but a DATASEC references a VAR; nothing
 *     references a DECL_TAG or a DATASEC; an ARRAY's element, a member, a
 *     return type are not of the kinds the kernel refuses there.
 *   Pass 3, chains: from each modifier (qualifier, TYPE_TAG, TYPEDEF), at
 *     most 32 modifiers and TYPE_TAGs first, up to one of a lower ID.
 *   Pass 4, resolution as btf_check_all_types() does it: types in ID
 *     order, each that needs resolving walked depth first on a stack of
 *     at most 32; a walk begun at a pointer follows only pointers and
 *     modifiers, one begun at a struct or array only modifiers, structs
 *     and arrays (what stops a walk is already sized), so a loop is a
 *     loop of modifiers and pointers, or of modifiers, structs and arrays
 *     (a struct holding itself), and a deep nest of types whose IDs grow
 *     inward is refused as the kernel refuses it.  A DECL_TAG waits for
 *     its target.  A DATASEC entry's size is compared with its variable's
 *     here, and only where the kernel compares it: when the VAR was
 *     resolved before (check_entry_fits()).  Only the first loop or too
 *     deep a nest is reported: the kernel stops there too.
 *   The layout section, if any (Linux 7.1+ reads it, checking only its
 *     place and that it holds whole records, which encoding ensures):
 *     each record of a kind we know says what that kind is (libbpf 1.8
 *     steps over kinds it does not know by these records), flags zero.
 * The bpf tree's kernels (2026) also load the inline-site kinds, LOC_PARAM,
 * LOC_PROTO and LOCSEC, and read a 24-bit vlen and a 7-bit kind; every 6.x
 * kernel refuses both.  So they are refused too, unless D2B_VERIFY_LOC_KINDS
 * says the BTF is for such a kernel; then its rules (kernel/bpf/btf.c,
 * btf_loc_param_check_meta() and the loc_proto and locsec checks): a
 * LOC_PARAM nameless, of 1 to 16 bytes, with flags it knows and a vlen they
 * allow (btf_loc.c); a LOC_PROTO nameless, of no type, its parameters none
 * or LOC_PARAMs; a LOCSEC of a section name and no size, each site a FUNC
 * over a FUNC_PROTO and a LOC_PROTO of as many parameters; none of them
 * with a kind_flag, and nothing else refers to them (a LOC_PARAM has no
 * size; the other two are only sources) -- while a LOCSEC may refer to a
 * FUNC.  They resolve at once: nothing they refer to needs a walk.
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
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/btf_loc.h"

enum {
	VERIFY_MAX_NAME = 512,		/* KSYM_NAME_LEN: names are shorter */
	VERIFY_MAX_CHAIN = 32,		/* btf_check_type_tags()' chain limit */
	VERIFY_MAX_DEPTH = 32,		/* MAX_RESOLVE_DEPTH: the resolve stack */
	VERIFY_MAX_REPORTS = 1000,	/* the rest are only counted */
	VERIFY_INT_MAX_BITS = 128,
	VERIFY_ENUM_KFLAG_BITS = 32,	/* a kind_flag enum member counts an int */
};

/* Apart: values past INT_MAX give their whole enum an unsigned type (GCC 15
 * and later, clang 22), and "n < VERIFY_MAX_DEPTH" with an int n would then
 * compare signed with unsigned */
enum {
	VERIFY_INFO_UNUSED = 0x60ff0000u,	/* ~BTF_INFO_MASK */
	VERIFY_INT_UNUSED = 0xf0000000u,	/* ~BTF_INT_MASK */
};

struct verify {
	const struct d2b_btf *btf;
	bool cxx_names;		/* D2B_VERIFY_CXX_NAMES */
	bool loc_kinds;		/* D2B_VERIFY_LOC_KINDS: the bpf tree's kernel */
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

/* A name where the kernel wants an identifier (a VAR's too) */
static bool name_ok(const struct verify *v, const char *s)
{
	return btf_name_is_ident(s) || (v->cxx_names && is_cxx_name(s));
}

/* A DATASEC name: any printable run without blanks (".data..percpu",
 * ".note.ABI-tag"): btf_name_valid_section() of 6.12 and later */
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

/* TYPEDEF, a qualifier or a TYPE_TAG: the kernel's "modifier" */
static bool is_modifier(unsigned int kind)
{
	return btf_kind_is_modifier(kind) || kind == D2B_KIND_TYPEDEF;
}

/* The type id stands for, through typedefs and modifiers (bounded) */
static uint32_t skip_mods(struct verify *v, uint32_t id)
{
	int n;

	for (n = 0; n < VERIFY_MAX_DEPTH; n++) {
		const struct d2b_type *t = type_at(v, id);

		if (!t || !is_modifier(d2b_kind(t)))
			return id;
		id = t->type;
	}
	return id;
}

/* An INT the kernel calls regular: whole bytes, 1, 2, 4, 8 or 16 of them,
 * at bit offset 0 (__btf_type_int_is_regular) */
static bool int_is_regular(const struct d2b_type *t)
{
	uint32_t w = btf_int_word(t);
	unsigned int bits = d2b_int_bits(w), bytes = bits / 8;

	return bits % 8 == 0 && d2b_int_offset(w) == 0 && bytes && bytes <= 16 &&
	       !(bytes & (bytes - 1));
}

/* Kinds whose kind_flag means something; the kernel refuses it elsewhere */
static bool kflag_allowed(unsigned int kind)
{
	switch (kind) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
	case D2B_KIND_FWD:
	case D2B_KIND_TYPE_TAG:		/* an attribute: 6.16+ */
	case D2B_KIND_DECL_TAG:
		return true;
	default:
		return false;
	}
}

/* Kinds with no trailing records, whose vlen must be 0 ("vlen != 0") */
static bool vlen_must_be_zero(unsigned int kind)
{
	switch (kind) {
	case D2B_KIND_INT:
	case D2B_KIND_PTR:
	case D2B_KIND_ARRAY:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_CONST:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_TYPE_TAG:
	case D2B_KIND_FWD:
	case D2B_KIND_VAR:
	case D2B_KIND_FLOAT:
	case D2B_KIND_DECL_TAG:
		return true;
	default:
		return false;
	}
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
	case D2B_KIND_LOC_PARAM:
	case D2B_KIND_LOC_PROTO:
		if (t->name_off)	/* even one of an empty string */
			bad(v, id, "must have no name");
		break;
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_FWD:
	case D2B_KIND_FUNC:
	case D2B_KIND_VAR:
		if (!name_ok(v, name))
			bad(v, id, "invalid name: needs an identifier");
		break;
	case D2B_KIND_DATASEC:
	case D2B_KIND_LOCSEC:
		if (!is_section_name(name))
			bad(v, id, "invalid section name");
		break;
	case D2B_KIND_TYPE_TAG:
	case D2B_KIND_DECL_TAG:
		if (!*name)
			bad(v, id, "needs a value");
		break;
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
		break;		/* any name: "long unsigned int" */
	default:	/* STRUCT UNION ENUM ENUM64: none (offset 0) or an identifier */
		if (t->name_off && !name_ok(v, name))
			bad(v, id, "invalid name");
		break;
	}
}

static void check_int(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	uint32_t w = btf_int_word(t);
	unsigned int enc = d2b_int_encoding(w), bits = d2b_int_bits(w), off = d2b_int_offset(w);

	if (w & VERIFY_INT_UNUSED)
		bad(v, id, "unused bits set in the INT word 0x%x", w);
	if (t->size == 0 || t->size > 16)
		bad(v, id, "size %u", t->size);
	if (bits + off > VERIFY_INT_MAX_BITS || bits + off > (uint64_t)t->size * 8)
		bad(v, id, "%u bits at offset %u do not fit its %u bytes", bits, off, t->size);
	if (enc & ~(unsigned int)(D2B_INT_SIGNED | D2B_INT_CHAR | D2B_INT_BOOL) ||
	    (enc & (enc - 1)))
		bad(v, id, "encoding 0x%x", enc);
}

/* ---- members: btf_struct_resolve()'s check_member/check_kflag_member ---- */

struct member {
	const struct d2b_type *t;	/* the struct */
	const char *name;
	uint64_t off;			/* bit offset */
	uint32_t bsz;			/* bitfield size (kind_flag only) */
};

/* bytes [off / 8, off / 8 + bytes) inside the struct? */
static bool member_fits(const struct member *m, uint64_t bytes)
{
	return m->off / 8 + bytes <= m->t->size;
}

/* An INT member (btf_int_check_member, btf_int_check_kflag_member) */
static void check_int_member(struct verify *v, uint32_t id, const struct member *m,
			     const struct d2b_type *r)
{
	uint32_t w = btf_int_word(r);
	uint64_t off = m->off, nbits;

	if (!d2b_kflag(m->t)) {
		/* BTF's first bitfield encoding: an INT of the field's width
		 * and bit offset, at any bit of the struct */
		off += d2b_int_offset(w);
		nbits = d2b_int_bits(w);
	} else if (!int_is_regular(r)) {
		bad(v, id, "member '%s': a kind_flag member of an irregular INT", m->name);
		return;
	} else if (!m->bsz) {
		if (off % 8) {
			bad(v, id, "member '%s' is not byte aligned", m->name);
			return;
		}
		nbits = d2b_int_bits(w);
	} else if (m->bsz > d2b_int_bits(w)) {
		bad(v, id, "bitfield '%s' of %u bits is wider than its %u-bit INT", m->name,
		    m->bsz, d2b_int_bits(w));
		return;
	} else {
		nbits = m->bsz;
	}
	if (nbits + off % 8 > VERIFY_INT_MAX_BITS)
		bad(v, id, "member '%s' spans more than 128 bits", m->name);
	else if (off / 8 + (nbits + off % 8 + 7) / 8 > m->t->size)
		bad(v, id, "member '%s' ends past the %u bytes of the type", m->name, m->t->size);
}

/* An enum member (btf_enum_check_member, btf_enum_check_kflag_member): in
 * a kind_flag struct, one that is not a bitfield counts 32 bits, whatever
 * its size */
static void check_enum_member(struct verify *v, uint32_t id, const struct member *m,
			      const struct d2b_type *r)
{
	uint32_t nbits = m->bsz;

	if (!nbits && m->off % 8) {
		bad(v, id, "member '%s' is not byte aligned", m->name);
		return;
	}
	if (!d2b_kflag(m->t)) {
		if (!member_fits(m, r->size))
			bad(v, id, "member '%s' ends past the %u bytes of the type", m->name,
			    m->t->size);
		return;
	}
	if (!nbits)
		nbits = VERIFY_ENUM_KFLAG_BITS;
	else if (nbits > VERIFY_ENUM_KFLAG_BITS)
		bad(v, id, "bitfield '%s' of an enum is wider than 32 bits", m->name);
	if ((m->off + nbits + 7) / 8 > m->t->size)
		bad(v, id, "member '%s' (an enum, taken for %u bits) ends past the %u bytes of "
		    "the type", m->name, nbits, m->t->size);
}

/* A member of a kind that is never a bitfield: PTR ARRAY STRUCT UNION FLOAT */
static void check_whole_member(struct verify *v, uint32_t id, const struct member *m,
			       uint32_t rid, const struct d2b_type *r)
{
	unsigned int k = d2b_kind(r);
	uint64_t align = 8, size;
	int64_t s;

	if (m->bsz) {
		bad(v, id, "bitfield '%s' of kind %s", m->name, d2b_kind_name(k));
		return;
	}
	if (k == D2B_KIND_PTR) {
		size = d2b_btf__pointer_size(v->btf);
	} else if (k == D2B_KIND_ARRAY) {
		s = d2b_btf__resolve_size(v->btf, rid);
		if (s < 0) {
			bad(v, id, "member '%s' has a type of no size", m->name);
			return;
		}
		size = (uint64_t)s;
	} else {
		size = r->size;
	}
	/* a float is aligned to its size, up to a pointer's (the minimum
	 * of every architecture: btf_float_check_member) */
	if (k == D2B_KIND_FLOAT)
		align = 8ull * (size < d2b_btf__pointer_size(v->btf) ? size
								     : d2b_btf__pointer_size(v->btf));
	if (align && m->off % align)
		bad(v, id, "member '%s' is not %s aligned", m->name,
		    k == D2B_KIND_FLOAT ? "properly" : "byte");
	else if (!member_fits(m, size))
		bad(v, id, "member '%s' ends past the %u bytes of the type", m->name, m->t->size);
}

static void check_member(struct verify *v, uint32_t id, const struct member *m, uint32_t type)
{
	const struct d2b_type *r = type_at(v, type);
	uint32_t rid = type;

	if (!type) {
		bad(v, id, "member '%s' is void", m->name);
		return;
	}
	if (!r) {
		bad(v, id, "member '%s' is a type that does not exist", m->name);
		return;
	}
	if (is_modifier(d2b_kind(r))) {
		rid = skip_mods(v, type);
		r = type_at(v, rid);
		if (!rid || !r) {
			bad(v, id, "member '%s' is void through a typedef or modifier", m->name);
			return;
		}
	}
	switch (d2b_kind(r)) {
	case D2B_KIND_INT:
		check_int_member(v, id, m, r);
		break;
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		check_enum_member(v, id, m, r);
		break;
	case D2B_KIND_PTR:
	case D2B_KIND_ARRAY:
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_FLOAT:
		check_whole_member(v, id, m, rid, r);
		break;
	case D2B_KIND_FWD:
		bad(v, id, "member '%s' is a forward declaration", m->name);
		break;
	default:	/* FUNC FUNC_PROTO VAR DATASEC DECL_TAG, a modifier loop */
		bad(v, id, "member '%s' is %s", m->name, d2b_kind_name(d2b_kind(r)));
		break;
	}
}

static void check_composite(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	bool is_union = d2b_kind(t) == D2B_KIND_UNION;
	uint64_t prev = 0;
	unsigned int i, n = d2b_vlen(t);

	for (i = 0; i < n; i++) {
		const struct d2b_member *dm = &btf_members(t)[i];
		struct member m = {
			.t = t, .name = d2b_btf__str(v->btf, dm->name_off),
			.off = d2b_member_bit_offset(t, dm), .bsz = d2b_member_bitfield_size(t, dm),
		};

		if (!m.name || (dm->name_off && !name_ok(v, m.name))) {
			bad(v, id, "member %u ('%.100s'): invalid name", i, m.name ? m.name : "");
			continue;
		}
		if (is_union && m.off)
			bad(v, id, "union member '%s' at bit offset %llu", m.name,
			    (unsigned long long)m.off);
		if (!is_union && m.off < prev)
			bad(v, id, "member '%s' at bit %llu, before the previous member",
			    m.name, (unsigned long long)m.off);
		prev = m.off;
		if ((m.off + 7) / 8 > t->size) {
			bad(v, id, "member '%s' starts past the %u bytes of the type", m.name,
			    t->size);
			continue;
		}
		check_member(v, id, &m, dm->type);
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
			bad(v, id, "enumerator %u ('%.100s'): invalid name", i,
			    d2b_btf__str(v->btf, off) ? d2b_btf__str(v->btf, off) : "");
	}
}

/* An ARRAY (btf_array_check_meta, btf_array_resolve) */
static void check_array(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	const struct d2b_array *a = btf_array(t);
	const struct d2b_type *e = type_at(v, a->type), *x;
	int64_t esize;

	if (t->size)
		bad(v, id, "size field %u, not 0", t->size);
	if (!e || !a->type || d2b_kind(e) == D2B_KIND_FWD ||
	    d2b_kind(e) == D2B_KIND_FUNC || d2b_kind(e) == D2B_KIND_FUNC_PROTO ||
	    d2b_kind(e) == D2B_KIND_VAR || d2b_kind(e) == D2B_KIND_DATASEC ||
	    d2b_kind(e) == D2B_KIND_DECL_TAG) {
		bad(v, id, "element type [%u] not allowed", a->type);
	} else {
		e = type_at(v, skip_mods(v, a->type));
		esize = d2b_btf__resolve_size(v->btf, a->type);
		if (esize < 0)	/* "const void", a typedef of a FWD: btf_type_id_size() */
			bad(v, id, "element type [%u] has no size", a->type);
		else if (e && d2b_kind(e) == D2B_KIND_INT && !int_is_regular(e))
			bad(v, id, "an array of an irregular INT");
		else if (esize >= 0 && a->nelems && (uint64_t)esize > UINT32_MAX / a->nelems)
			bad(v, id, "%u elements of %lld bytes exceed 4 GiB", a->nelems,
			    (long long)esize);
	}
	x = type_at(v, skip_mods(v, a->index_type));
	if (!a->index_type || !x || d2b_kind(x) != D2B_KIND_INT || !int_is_regular(x))
		bad(v, id, "index type [%u] is not a regular INT", a->index_type);
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
		if (!pname || (p->name_off && !name_ok(v, pname)))
			bad(v, id, "parameter %u ('%.100s'): invalid name", i, pname ? pname : "");
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

		if (!var || !e->type || d2b_kind(var) != D2B_KIND_VAR) {
			bad(v, id, "entry %u is not a VAR", i);
			continue;
		}
		if (e->offset < end)
			bad(v, id, "entry %u overlaps the one before", i);
		if ((uint64_t)e->offset + e->size > t->size || !e->size)
			bad(v, id, "entry %u (offset %u size %u) outside the section", i, e->offset,
			    e->size);
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

/* ---- the inline-site kinds (the bpf tree's kernels only) ---- */

/* A LOC_PROTO: no type, each parameter none or a LOC_PARAM
 * (btf_loc_proto_resolve) */
static void check_loc_proto(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	uint32_t i, n = d2b_vlen(t);

	if (t->type)
		bad(v, id, "type field %u, not 0", t->type);
	for (i = 0; i < n; i++) {
		uint32_t p = d2b_loc_proto_params(t)[i];
		const struct d2b_type *r = type_at(v, p);

		if (p && (!r || d2b_kind(r) != D2B_KIND_LOC_PARAM))
			bad(v, id, "parameter %u: [%u] is not a LOC_PARAM", i, p);
	}
}

/* A LOCSEC: no size, each site a FUNC (over a FUNC_PROTO) and a LOC_PROTO
 * of as many parameters (btf_locsec_check_meta, btf_locsec_resolve) */
static void check_locsec(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	uint32_t i, n = d2b_vlen(t);

	if (t->size)
		bad(v, id, "size field %u, not 0", t->size);
	for (i = 0; i < n; i++) {
		const struct d2b_loc *l = &d2b_locsec_locs(t)[i];
		const struct d2b_type *f = l->func ? type_at(v, l->func) : NULL;
		const struct d2b_type *p = l->loc_proto ? type_at(v, l->loc_proto) : NULL;
		const struct d2b_type *fp = f ? type_at(v, f->type) : NULL;

		if (!f || d2b_kind(f) != D2B_KIND_FUNC || !fp ||
		    d2b_kind(fp) != D2B_KIND_FUNC_PROTO) {
			bad(v, id, "site %u: [%u] is not a FUNC", i, l->func);
			continue;
		}
		if (!p || d2b_kind(p) != D2B_KIND_LOC_PROTO)
			bad(v, id, "site %u: [%u] is not a LOC_PROTO", i, l->loc_proto);
		else if (d2b_vlen(p) != d2b_vlen(fp))
			bad(v, id, "site %u: LOC_PROTO [%u] has %u parameters, its FUNC %u", i,
			    l->loc_proto, d2b_vlen(p), d2b_vlen(fp));
	}
}

static void check_loc(struct verify *v, uint32_t id, const struct d2b_type *t)
{
	const char *why;

	switch (d2b_kind(t)) {
	case D2B_KIND_LOC_PARAM:
		if ((why = btf_loc_param_problem(t)))
			bad(v, id, "%s (flags 0x%x, size %u, vlen %u)", why,
			    d2b_loc_param_flags(t), t->size, d2b_vlen(t));
		break;
	case D2B_KIND_LOC_PROTO:
		check_loc_proto(v, id, t);
		break;
	default:
		check_locsec(v, id, t);
		break;
	}
}

/* Pass 1: the info word, then the kind's own rules */
static void check_type(struct verify *v, uint32_t id)
{
	const struct d2b_type *t = type_at(v, id);
	unsigned int k = d2b_kind(t);

	/* (the bpf tree reads all of them: a 24-bit vlen, a 7-bit kind) */
	if ((t->info & VERIFY_INFO_UNUSED) && !v->loc_kinds)
		bad(v, id, "unused info bits set");
	if (btf_kind_is_loc(k) && !v->loc_kinds) {
		bad(v, id, "kind %s (%u): inline sites, which only kernels of the bpf tree load",
		    d2b_kind_name(k), k);
		return;
	}
	if (k == D2B_KIND_UNKN || k > D2B_KIND_LAST) {
		bad(v, id, "unknown kind %u", k);
		return;
	}
	if (d2b_kflag(t) && !kflag_allowed(k))
		bad(v, id, "kind_flag set");
	if (d2b_vlen(t) && vlen_must_be_zero(k))
		bad(v, id, "vlen %u, not 0", d2b_vlen(t));
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
		check_array(v, id, t);
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
		if (t->type)
			bad(v, id, "size field %u, not 0", t->type);
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
	default:	/* LOC_PARAM LOC_PROTO LOCSEC */
		check_loc(v, id, t);
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
		if (d2b_kind(r) == D2B_KIND_FUNC && k != D2B_KIND_DECL_TAG && k != D2B_KIND_LOCSEC)
			bad(v, id, "refers to FUNC [%u]", *f);
		/* a LOC_PARAM has no size, the others are only sources */
		if ((d2b_kind(r) == D2B_KIND_LOC_PARAM && k != D2B_KIND_LOC_PROTO) ||
		    (d2b_kind(r) == D2B_KIND_LOC_PROTO && k != D2B_KIND_LOCSEC) ||
		    d2b_kind(r) == D2B_KIND_LOCSEC)
			bad(v, id, "refers to %s [%u]", d2b_kind_name(d2b_kind(r)), *f);
	}
}

/*
 * Pass 3 (btf_check_type_tags, 6.1 to 6.18): from a modifier, at most 32
 * modifiers, TYPE_TAGs first.  As the kernel, a walk stops at a type of a
 * lower ID, whose own walk checked the rest of the chain: a long chain
 * whose IDs fall is fine, one whose IDs grow is not.
 */
static void check_chain(struct verify *v, uint32_t id)
{
	const struct d2b_type *t = type_at(v, id);
	bool in_tags = d2b_kind(t) == D2B_KIND_TYPE_TAG;
	uint32_t cur = id;
	int n;

	for (n = 0; t && cur && is_modifier(d2b_kind(t)); n++) {
		if (n == VERIFY_MAX_CHAIN) {
			bad(v, id, "chain of more than %d modifiers, or a loop", VERIFY_MAX_CHAIN);
			return;
		}
		if (d2b_kind(t) != D2B_KIND_TYPE_TAG) {
			in_tags = false;
		} else if (!in_tags) {
			bad(v, id, "a TYPE_TAG follows a modifier or typedef");
			return;
		}
		if (cur < id)
			return;
		cur = t->type;
		t = type_at(v, cur);
	}
}

/* ---- pass 4: resolution order, loops and depth ---- */

enum resolve_mode { MODE_ANY, MODE_PTR, MODE_STRUCT };
enum { NOT_VISITED, ON_STACK, RESOLVED };

struct resolve {
	struct verify *v;
	uint32_t start;
	uint8_t *state;		/* per own type */
	struct { uint32_t id, next; } stack[VERIFY_MAX_DEPTH];
	int top;
	enum resolve_mode mode;
};

/* Kinds the kernel resolves (btf_type_needs_resolve) */
static bool needs_resolve(unsigned int k)
{
	return is_modifier(k) || k == D2B_KIND_PTR || btf_kind_is_composite(k) ||
	       k == D2B_KIND_ARRAY || k == D2B_KIND_VAR || k == D2B_KIND_FUNC ||
	       k == D2B_KIND_DECL_TAG || k == D2B_KIND_DATASEC;
}

/* A type the walk stops at, in its mode (env_type_is_resolve_sink) */
static bool is_sink(const struct resolve *rs, unsigned int k)
{
	switch (rs->mode) {
	case MODE_PTR:
		return !is_modifier(k) && k != D2B_KIND_PTR;
	case MODE_STRUCT:
		return !is_modifier(k) && k != D2B_KIND_ARRAY && !btf_kind_is_composite(k);
	default:
		return !needs_resolve(k);
	}
}

/* The i-th type a type's resolution waits for; false past the last */
static bool resolve_child(const struct d2b_type *t, uint32_t i, uint32_t *ret)
{
	unsigned int k = d2b_kind(t);

	if (btf_kind_is_composite(k) || k == D2B_KIND_DATASEC) {
		if (i >= d2b_vlen(t))
			return false;
		*ret = k == D2B_KIND_DATASEC ? btf_secinfos(t)[i].type : btf_members(t)[i].type;
		return true;
	}
	if (k == D2B_KIND_ARRAY) {
		*ret = i == 0 ? btf_array(t)->index_type : btf_array(t)->type;
		return i < 2;
	}
	if (k == D2B_KIND_FUNC)
		return false;	/* no walk beyond: FUNC_PROTOs are sinks */
	*ret = t->type;		/* a DECL_TAG waits for its target, as a modifier does */
	return i == 0;
}

/*
 * A DATASEC entry's size against its variable's, checked only where the
 * kernel checks it (btf_datasec_resolve()): when the entry's VAR is
 * resolved already.  A VAR not yet resolved (a higher ID than the
 * DATASEC's, named by no earlier DATASEC or DECL_TAG) is resolved first,
 * and the kernel goes on at the next entry, so that entry's size is never
 * compared (6.1 to 7.3 alike).  Our encoder writes each DATASEC after its
 * VARs; only a damaged or foreign BTF meets the difference.
 */
static void check_entry_fits(struct verify *v, uint32_t id, const struct d2b_type *t, uint32_t i)
{
	const struct d2b_var_secinfo *e = &btf_secinfos(t)[i];
	const struct d2b_type *var = type_at(v, e->type);
	int64_t vsize;

	if (!var || !e->type || d2b_kind(var) != D2B_KIND_VAR)
		return;		/* pass 1 said so */
	vsize = d2b_btf__resolve_size(v->btf, var->type);
	if (vsize < 0 || (uint64_t)vsize > e->size)
		bad(v, id, "entry %u: its variable does not fit", i);
}

/* Resolve id and what it waits for; false on a loop or too deep a stack */
static bool resolve_one(struct resolve *rs, uint32_t id)
{
	rs->mode = MODE_ANY;
	rs->top = 0;
	rs->stack[rs->top].id = id;
	rs->stack[rs->top++].next = 0;
	rs->state[id - rs->start] = ON_STACK;
	while (rs->top) {
		uint32_t cur = rs->stack[rs->top - 1].id, child;
		const struct d2b_type *t = type_at(rs->v, cur), *c;

		if (!resolve_child(t, rs->stack[rs->top - 1].next++, &child)) {
			rs->state[cur - rs->start] = RESOLVED;
			rs->top--;
			continue;
		}
		c = type_at(rs->v, child);
		if (!c || child < rs->start || is_sink(rs, d2b_kind(c)) ||
		    rs->state[child - rs->start] == RESOLVED) {
			if (d2b_kind(t) == D2B_KIND_DATASEC)
				check_entry_fits(rs->v, cur, t, rs->stack[rs->top - 1].next - 1);
			continue;
		}
		if (rs->state[child - rs->start] == ON_STACK) {
			bad(rs->v, id, "a loop through [%u]", child);
			return false;
		}
		if (rs->top == VERIFY_MAX_DEPTH) {
			bad(rs->v, id, "resolving it nests deeper than %d types", VERIFY_MAX_DEPTH);
			return false;
		}
		if (rs->mode == MODE_ANY && d2b_kind(c) == D2B_KIND_PTR)
			rs->mode = MODE_PTR;
		else if (rs->mode == MODE_ANY &&
			 (d2b_kind(c) == D2B_KIND_ARRAY || btf_kind_is_composite(d2b_kind(c))))
			rs->mode = MODE_STRUCT;
		rs->state[child - rs->start] = ON_STACK;
		rs->stack[rs->top].id = child;
		rs->stack[rs->top++].next = 0;
	}
	return true;
}

/* Pass 4; stops at the first failure, as the kernel does */
static int check_resolve(struct verify *v)
{
	struct resolve rs = { .v = v, .start = d2b_btf__start_id(v->btf) };
	uint32_t id, end = d2b_btf__end_id(v->btf);

	if (end == rs.start)
		return 0;
	rs.state = calloc(end - rs.start, 1);
	if (!rs.state)
		return -ENOMEM;
	for (id = rs.start; id < end; id++) {
		unsigned int k = d2b_kind(type_at(v, id));

		if (needs_resolve(k) && rs.state[id - rs.start] == NOT_VISITED &&
		    !resolve_one(&rs, id))
			break;
	}
	free(rs.state);
	return 0;
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
		.btf = btf, .cxx_names = flags & D2B_VERIFY_CXX_NAMES,
		.loc_kinds = flags & D2B_VERIFY_LOC_KINDS, .report = report, .arg = arg,
	};
	uint32_t id, start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf);
	int err;

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
	err = check_resolve(&v);
	return err < 0 ? err : v.count;
}
