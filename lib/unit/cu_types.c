// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF type DIEs to BTF types, for one compile unit.
 *
 * One dispatcher (cu_types__type) on the DIE's tag, one translator per
 * tag, and a map from DIE to BTF ID, filled for every DIE it has seen, so
 * that each DIE is translated once.  The map is an array indexed by the
 * DIE's offset in its unit (struct unit_walker's, reused from unit to
 * unit), and a hash map for the rare DIEs of other units.
 *
 * Cycles.  C type graphs are cyclic only through structs and unions
 * (struct list_head { struct list_head *next; }).  A composite's ID is
 * reserved when it is first met and the DIE is put on a worklist; its
 * members are walked later by cu_types__drain().  So recursion only follows
 * chains of pointers, modifiers, typedefs, arrays and prototypes, which are
 * short, and never the long pointer chains between structs.  A cycle that
 * does not pass through a composite (malformed DWARF) is met as an
 * IN_PROGRESS mark in the map and becomes void, with a diagnostic.
 *
 * Two passes over children.  A composite's members (and a prototype's
 * parameters) must follow it contiguously in BTF, but walking their types
 * may add other types.  So the first pass walks every child's type (filling
 * the map), the second writes the members, getting each type from the map
 * without adding anything.
 *
 * Type tags.  The kernel (up to 6.18) wants TYPE_TAGs first in any chain of
 * modifiers and typedefs.  Whenever a CONST, VOLATILE, RESTRICT or TYPEDEF
 * would be put above a TYPE_TAG, the tags are lifted above it instead
 * (hoisted_ref).  Pointers, members, parameters and variables may point at
 * a tag chain as is.  So clang 23's "typedef struct s __a s_t", whose tag
 * is the struct's (LLVM's BPF backend: TYPEDEF s_t -> TYPE_TAG a -> STRUCT
 * s), becomes TYPE_TAG a -> TYPEDEF s_t -> STRUCT s.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "dwarf/dwarf_ext.h"
#include "unit/cu_annot.h"
#include "unit/cu_scope.h"
#include "unit/cu_types.h"
#include "base/vec.h"

enum {
	MAX_DEPTH = 512,
	MAX_DIMS = 64,
};

/* The map's entries: type ID + 1; 0: not seen. */
enum { MAP_IN_PROGRESS = UINT32_MAX };

/* The map entry of die, if it is set; 0: not seen. */
static uint32_t map_get(struct cu *w, const struct cu_die *die)
{
	uint64_t v;

	if (die->du == w->du)
		return w->uw->ids[die->d.off - w->unit_off];
	return hmap__find(&w->far_ids, cu__far_key(w, die), &v) ? (uint32_t)v : 0;
}

static int map_set(struct cu *w, const struct cu_die *die, uint32_t v)
{
	struct unit_walker *uw = w->uw;
	uint32_t *slot;
	int err;

	if (die->du != w->du)
		return hmap__set(&w->far_ids, cu__far_key(w, die), v);
	slot = &uw->ids[die->d.off - w->unit_off];
	if (!*slot) {
		err = VEC_RESERVE(uw->touched, uw->touched_cap, uw->nr_touched, 1);
		if (err)
			return err;
		uw->touched[uw->nr_touched++] = (uint32_t)(die->d.off - w->unit_off);
	}
	*slot = v;
	return 0;
}

static int int_type(struct cu *w)
{
	int id;

	if (w->int_id)
		return w->int_id;
	id = btf_add_int_off(w->btf, cu__add_str(w, "int"), 4, D2B_INT_SIGNED);
	if (id > 0)
		w->int_id = id;
	return id;
}

static int unsigned_char(struct cu *w)
{
	return btf_add_int_off(w->btf, cu__add_str(w, "unsigned char"), 1, 0);
}

/* Type DIEs have no abstract origin: their own attributes, not integrated. */
static bool attr_udata(struct cu *w, const struct cu_die *die, unsigned int name, uint64_t *ret)
{
	return cu__attr_udata(w, die, name, ret);
}

/*
 * The map entry of the DIE that reference a of owner points at, if it is
 * in the unit walked and set: most references are to types met before,
 * whose DIEs need not be read again.  0 if not known.
 */
static uint32_t map_get_ref(struct cu *w, const struct cu_die *owner, const struct die_attr *a)
{
	uint64_t rel = a->u - w->unit_off;

	if (owner->du != w->du || rel >= w->unit_size ||
	    (!die_form_is_unit_ref(a->form) && a->form != DW_FORM_ref_addr))
		return 0;
	return w->uw->ids[rel];
}

int cu_types__type_of(struct cu *w, const struct cu_die *die)
{
	struct cu_die type, owner;
	struct die_attr a;
	uint32_t v;

	if (!cu__attr_integrate(w, die, DW_AT_type, &a, &owner))
		return 0;
	v = map_get_ref(w, &owner, &a);
	if (v && v != MAP_IN_PROGRESS)
		return (int)(v - 1);
	if (!cu__ref(w, &owner, &a, &type)) {
		cu__diag(w, D2B_WARN, die, "DW_AT_type does not reference a DIE: %s", cu__why(w));
		return 0;
	}
	return cu_types__type(w, &type);
}

/* A type BTF cannot express keeps its size as an array of bytes. */
static int byte_array(struct cu *w, const struct cu_die *die, uint64_t size, const char *why)
{
	int uc, idx;

	cu__diag(w, D2B_INFO, die, "%s '%s' (%" PRIu64 " bytes) has no BTF equivalent: %s",
		      die->d.tag == DW_TAG_base_type ? "base type" : "type",
		      cu__name(w, die) ?: "(anon)", size, why);
	if (size == 0 || size > UINT32_MAX)
		return 0;
	uc = unsigned_char(w);
	if (uc < 0)
		return uc;
	idx = int_type(w);
	if (idx < 0)
		return idx;
	return d2b_btf__add_array(w->btf, uc, idx, (uint32_t)size);
}

static bool float_size_ok(uint64_t size)
{
	return size == 2 || size == 4 || size == 8 || size == 12 || size == 16;
}

/* "complex float" -> "float": the name of one component. */
static const char *complex_component_name(const char *name)
{
	static const char prefix[] = "complex ";

	if (name && !strncmp(name, prefix, sizeof(prefix) - 1))
		return name + sizeof(prefix) - 1;
	if (name && !strncmp(name, "_Complex ", 9))
		return name + 9;
	return NULL;
}

static int base_type(struct cu *w, const struct cu_die *die)
{
	const char *name = cu__name(w, die);
	uint64_t size = 0, enc = 0, bits = 0;
	unsigned int btf_enc = 0;

	attr_udata(w, die, DW_AT_byte_size, &size);
	attr_udata(w, die, DW_AT_encoding, &enc);
	if (!attr_udata(w, die, DW_AT_bit_size, &bits))
		bits = size * 8;
	if (!name || !*name)
		name = "(anon)";

	switch (enc) {
	case DW_ATE_float:
		if (!float_size_ok(size))
			return byte_array(w, die, size, "unsupported float size");
		if (w->opts->no_float)
			break;
		return btf_add_float_off(w->btf, cu__add_str(w, name), (uint32_t)size);
	case DW_ATE_complex_float: {
		const char *comp = complex_component_name(name);
		int f, idx;

		if (w->opts->no_float || !comp || size % 2 || !float_size_ok(size / 2))
			return byte_array(w, die, size, "complex type");
		/* documented choice: _Complex T is an array of two T */
		f = btf_add_float_off(w->btf, cu__add_str(w, comp), (uint32_t)(size / 2));
		if (f < 0)
			return f;
		idx = int_type(w);
		if (idx < 0)
			return idx;
		return d2b_btf__add_array(w->btf, f, idx, 2);
	}
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		btf_enc = D2B_INT_SIGNED;
		break;
	case DW_ATE_boolean:
		btf_enc = D2B_INT_BOOL;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		break;
	default:
		return byte_array(w, die, size, "unsupported DW_AT_encoding");
	}
	if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
		return byte_array(w, die, size, "integer size not 1, 2, 4, 8 or 16");
	if (bits == 0 || bits > size * 8)
		return byte_array(w, die, size, "bit size out of range");
	{
		int id = btf_add_int_off(w->btf, cu__add_str(w, name), (uint32_t)size, btf_enc);
		struct d2b_type *t;

		/* the unit's own int doubles as the array index type */
		if (id > 0 && !w->int_id && size == 4 && bits == 32 && btf_enc == D2B_INT_SIGNED &&
		    !strcmp(name, "int"))
			w->int_id = id;
		if (id > 0 && bits != size * 8) {
			t = btf_type_mut(w->btf, id);
			*(uint32_t *)(t + 1) = btf_enc << 24 | (uint32_t)bits;
		}
		return id;
	}
}

/*
 * kind over target, with any TYPE_TAGs at the top of target lifted above
 * it; *ret_core gets the ID of the new modifier itself.
 */
static int hoisted_ref(struct cu *w, enum d2b_kind kind, const char *name, uint32_t target,
		       uint32_t *ret_core)
{
	uint32_t tags[UNIT_MAX_TAGS];
	const struct d2b_type *t;
	int n = 0, id;

	while (n < UNIT_MAX_TAGS && (t = d2b_btf__type(w->btf, target)) && target &&
	       d2b_kind(t) == D2B_KIND_TYPE_TAG) {
		tags[n++] = target;
		target = t->type;
	}
	id = btf_add_ref_off(w->btf, kind, cu__add_str(w, name), target);
	if (id < 0)
		return id;
	if (ret_core)
		*ret_core = id;
	/* re-wrap innermost first; names are read now, after any string growth */
	while (n-- > 0) {
		id = btf_add_ref_off(w->btf, D2B_KIND_TYPE_TAG,
				     cu__add_str(w, d2b_btf__name(w->btf, tags[n])), id);
		if (id < 0)
			return id;
	}
	return id;
}

static int pointer_type(struct cu *w, const struct cu_die *die)
{
	struct cu_die target_die, owner;
	struct die_attr a;
	bool has_target = cu__attr_integrate(w, die, DW_AT_type, &a, &owner) &&
			  cu__ref(w, &owner, &a, &target_die);
	uint64_t size;
	int target = 0;

	/* BTF has one pointer size (the unit's address size) for every PTR */
	if (attr_udata(w, die, DW_AT_byte_size, &size) && size != w->ptr_size)
		cu__diag(w, D2B_WARN, die, "DW_TAG_pointer_type of %" PRIu64 " bytes encoded as "
			 "one of %u, the unit's address size", size, w->ptr_size);
	if (has_target) {
		target = cu_types__type(w, &target_die);
		if (target < 0)
			return target;
	}
	target = cu_annot__wrap_under(w, die, target);
	if (target < 0)
		return target;
	return d2b_btf__add_ref(w->btf, D2B_KIND_PTR, NULL, target);
}

static int modifier_type(struct cu *w, const struct cu_die *die, enum d2b_kind kind)
{
	int target = cu_types__type_of(w, die);

	if (target < 0)
		return target;
	return hoisted_ref(w, kind, NULL, target, NULL);
}

static int typedef_type(struct cu *w, const struct cu_die *die)
{
	const char *name;
	int target = cu_types__type_of(w, die), id, err;
	uint32_t core;

	if (target < 0)
		return target;
	name = cu_scope__type_name(w, die, &err);
	if (err)
		return err;
	if (!name || !*name) {
		cu__diag(w, D2B_INFO, die, "DW_TAG_typedef without a name: using its type");
		return cu_annot__wrap_under(w, die, target);
	}
	id = hoisted_ref(w, D2B_KIND_TYPEDEF, name, target, &core);
	if (id < 0)
		return id;
	/* clang 23's tags on a typedef are its type's: wrapped around the
	 * typedef now, outside any tags hoisted_ref lifted, which is where
	 * lifting them would put them, and none is left unused below it */
	id = cu_annot__wrap_under(w, die, id);
	if (id < 0)
		return id;
	err = cu_annot__decl_tags(w, die, core, -1);
	return err < 0 ? err : id;
}

/* Number of elements of one DW_TAG_subrange_type: 0 for flexible and
 * variable-length arrays. */
static uint64_t subrange_count(struct cu *w, const struct cu_die *sub)
{
	struct die_attr attr;
	uint64_t count, uupper, ulower = 0;
	unsigned int form;

	if (cu__attr(w, sub, DW_AT_count, &attr)) {
		if (attr.form == DW_FORM_exprloc || !cu__udata(&attr, &count))
			return 0;
		return count;
	}
	if (!cu__attr(w, sub, DW_AT_upper_bound, &attr))
		return 0;
	form = attr.form;
	switch (form) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		/* older gcc wrote [0] as upper bound -1 */
		if (attr.s < 0)
			return 0;
		uupper = (uint64_t)attr.s;
		break;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
		/* dataN is unsigned here (libdw's formsdata would sign-extend
		 * u8[256]'s bound 0xff); all ones is the old gcc [0] */
		if (!cu__udata(&attr, &uupper) ||
		    (form == DW_FORM_data8 && uupper == UINT64_MAX) ||
		    (form == DW_FORM_data4 && uupper == UINT32_MAX))
			return 0;
		break;
	default:	/* a reference or an expression: a VLA */
		return 0;
	}
	if (cu__attr(w, sub, DW_AT_lower_bound, &attr) && !cu__udata(&attr, &ulower))
		return 0;
	if (uupper < ulower)
		return 0;
	return uupper - ulower + 1;
}

static int array_type(struct cu *w, const struct cu_die *die)
{
	uint64_t dims[MAX_DIMS];
	int elem, idx, id, ndims = 0, i;
	struct cu_die child;

	elem = cu_types__type_of(w, die);
	if (elem < 0)
		return elem;
	if (elem == 0) {
		cu__diag(w, D2B_INFO, die, "array of void: using an array of bytes");
		elem = unsigned_char(w);
		if (elem < 0)
			return elem;
	}
	if (cu__child(w, die, &child)) {
		do {
			unsigned int tag = child.d.tag;

			if (tag != DW_TAG_subrange_type && tag != DW_TAG_enumeration_type)
				continue;
			if (ndims == MAX_DIMS) {
				cu__diag(w, D2B_WARN, die, "array with more than %d dimensions", MAX_DIMS);
				break;
			}
			dims[ndims++] = tag == DW_TAG_subrange_type ? subrange_count(w, &child) : 0;
		} while (cu__next(w, &child));
	}
	if (ndims == 0)
		dims[ndims++] = 0;
	if (w->opts->flatten_arrays && ndims > 1) {
		uint64_t total = 1;

		for (i = 0; i < ndims; i++)
			total = dims[i] && total <= UINT64_MAX / dims[i] ? total * dims[i] : 0;
		dims[0] = total;
		ndims = 1;
	}
	idx = int_type(w);
	if (idx < 0)
		return idx;
	/* int a[5][6]: ARRAY 5 of ARRAY 6 of int, innermost made first */
	id = elem;
	for (i = ndims - 1; i >= 0; i--) {
		if (dims[i] > UINT32_MAX) {
			cu__diag(w, D2B_WARN, die, "array dimension %" PRIu64 " too large for BTF", dims[i]);
			dims[i] = 0;
		}
		id = d2b_btf__add_array(w->btf, id, idx, (uint32_t)dims[i]);
		if (id < 0)
			return id;
	}
	return id;
}

static int composite_type(struct cu *w, const struct cu_die *die, unsigned int tag)
{
	const char *name;
	int id, err;

	if (cu__flag(w, die, DW_AT_declaration)) {
		name = cu_scope__type_name(w, die, &err);
		if (err)
			return err;
		if (!name || !*name) {
			cu__diag(w, D2B_INFO, die, "anonymous declaration: void");
			return 0;
		}
		return btf_add_fwd_off(w->btf, cu__add_str(w, name), tag == DW_TAG_union_type);
	}
	id = btf_reserve(w->btf);
	if (id < 0)
		return id;
	err = VEC_RESERVE(w->pending.v, w->pending.cap, w->pending.nr, 1);
	if (err)
		return err;
	w->pending.v[w->pending.nr].die = *die;
	w->pending.v[w->pending.nr].id = id;
	w->pending.nr++;
	return id;
}

/*
 * A DW_AT_data_member_location expression that is one constant,
 * DW_OP_plus_uconst N or DW_OP_constu N (DWARF 2's way to say N).
 */
static bool location_constant(const struct die_attr *a, const struct cu_die *m, uint64_t *ret)
{
	const uint8_t *p = a->block, *end;

	if (!cu__is_expr(m, a) || a->len < 2 || (*p != DW_OP_plus_uconst && *p != DW_OP_constu))
		return false;
	end = p + a->len;
	p++;
	return cu__uleb(&p, end, ret) && p == end;
}

/* Bit offset of a member from the start of its struct, in any of the
 * encodings DWARF versions have used. */
static int member_bit_offset(struct cu *w, const struct cu_die *m, uint32_t type, uint64_t bit_size,
			     uint64_t *ret)
{
	struct die_attr attr;
	uint64_t byte_off = 0, bit_off, storage;

	if (attr_udata(w, m, DW_AT_data_bit_offset, ret))
		return 0;
	if (cu__attr(w, m, DW_AT_data_member_location, &attr) && !cu__udata(&attr, &byte_off) &&
	    !location_constant(&attr, m, &byte_off)) {
		cu__diag(w, D2B_INFO, m, "member location is not a constant");
		return -ENOENT;
	}
	if (!bit_size || !attr_udata(w, m, DW_AT_bit_offset, &bit_off)) {
		*ret = byte_off * 8;
		return 0;
	}
	/* DWARF 2/3: DW_AT_bit_offset counts from the most significant bit
	 * of a storage unit of DW_AT_byte_size bytes */
	if (!attr_udata(w, m, DW_AT_byte_size, &storage)) {
		int64_t s = d2b_btf__resolve_size(w->btf, type);

		storage = s > 0 ? (uint64_t)s : 0;
	}
	if (w->big_endian)
		*ret = byte_off * 8 + bit_off;
	else if (storage * 8 >= bit_off + bit_size)
		*ret = byte_off * 8 + storage * 8 - bit_off - bit_size;
	else
		return -ENOENT;
	return 0;
}

/*
 * A member of the struct's layout.  C++ static members are DW_TAG_member
 * declarations in DWARF 4 (DW_TAG_variable in DWARF 5): not members.  A
 * base class (DW_TAG_inheritance) is an unnamed member of its type at its
 * offset, as C11 embeds an anonymous struct: its members read as the
 * derived class's own (libbpf's CO-RE looks through unnamed members too).
 */
static bool is_data_member(struct cu *w, const struct cu_die *child)
{
	if (child->d.tag == DW_TAG_inheritance)
		return true;
	return child->d.tag == DW_TAG_member && !cu__flag(w, child, DW_AT_declaration) &&
	       !cu__flag(w, child, DW_AT_external);
}

static bool is_param(struct cu *w, const struct cu_die *child)
{
	(void)w;
	return child->d.tag == DW_TAG_formal_parameter;
}

/* a prototype's parameter, or the member of one that stands for it
 * (cu_types__proto_of()) */
static bool is_proto_kid(struct cu *w, const struct cu_die *child)
{
	return is_param(w, child) || child->d.tag == DW_TAG_member;
}

static bool is_param_or_varargs(struct cu *w, const struct cu_die *child)
{
	(void)w;
	return child->d.tag == DW_TAG_formal_parameter ||
	       child->d.tag == DW_TAG_unspecified_parameters;
}

/*
 * The children of die that want() picks, read once for the passes over
 * them: pushed on the walker's stack of DIEs, where they are
 * kids[*ret_base .. nr_kids).  A stack, because walking a member's type
 * may read another DIE's children; pop them with pop_kids().  Index it
 * afresh after any call that may push: it may move.
 */
static int push_kids(struct cu *w, const struct cu_die *die,
		     bool (*want)(struct cu *, const struct cu_die *), size_t *ret_base)
{
	struct unit_walker *uw = w->uw;
	struct cu_die child;
	int err;

	*ret_base = uw->nr_kids;
	if (!cu__child(w, die, &child))
		return 0;
	do {
		if (!want(w, &child))
			continue;
		err = VEC_RESERVE(uw->kids, uw->kids_cap, uw->nr_kids, 1);
		if (!err)
			err = VEC_RESERVE(uw->kid_types, uw->kid_types_cap, uw->nr_kids, 1);
		if (err)
			return err;
		uw->kid_types[uw->nr_kids] = 0;
		uw->kids[uw->nr_kids++] = child;
	} while (cu__next(w, &child));
	return 0;
}

static void pop_kids(struct cu *w, size_t base)
{
	w->uw->nr_kids = base;
}

/* Pass 1 of a composite or prototype: walk the types of kids [base,
 * base + n) that want() picks, so that pass 2 finds them all made, and
 * keep their IDs in kid_types[] (0 for the others), for pass 2. */
static int walk_kid_types(struct cu *w, size_t base, size_t n,
			  bool (*want)(struct cu *, const struct cu_die *))
{
	struct cu_die kid;
	size_t i;
	int type;

	for (i = 0; i < n; i++) {
		kid = w->uw->kids[base + i];
		if (!want(w, &kid))
			continue;
		type = cu_types__type_of(w, &kid);
		if (type < 0)
			return type;
		/* (the stack may have moved) */
		w->uw->kid_types[base + i] = type;
	}
	return 0;
}

/*
 * A struct larger than kind_flag offsets reach (2 MiB, BTF_MAX_BITFIELD_OFFSET
 * bits) that has bitfields is written without kind_flag: each bitfield is a
 * member of an INT of its width, BTF's first encoding, which the kernel
 * still reads.  Those INTs are made here, in pass 1 (pass 2 adds no type):
 * *ret[i] for kid i, 0 for others (and for a bitfield not of an integer
 * type, which cannot be said so: pass 2 leaves it out).  *ret stays NULL
 * when kind_flag will do.
 */
static int legacy_bitfields(struct cu *w, size_t base, size_t n, uint64_t size, uint32_t **ret)
{
	uint32_t *ids = NULL;
	size_t i;
	int hops;

	*ret = NULL;
	if (size * 8 <= BTF_MAX_BITFIELD_OFFSET)
		return 0;
	for (i = 0; i < n; i++) {
		struct cu_die kid = w->uw->kids[base + i];
		const struct d2b_type *t;
		uint64_t bits;
		int type, id;

		if (!attr_udata(w, &kid, DW_AT_bit_size, &bits) || !bits)
			continue;
		if (!ids && !(ids = calloc(n, sizeof(*ids))))
			return -ENOMEM;
		type = w->uw->kid_types[base + i];
		for (hops = 0, t = d2b_btf__type(w->btf, type); t && hops < BTF_MAX_RESOLVE_DEPTH &&
		     (btf_kind_is_modifier(d2b_kind(t)) || d2b_kind(t) == D2B_KIND_TYPEDEF); hops++)
			t = d2b_btf__type(w->btf, type = t->type);
		if (!type || !t || d2b_kind(t) != D2B_KIND_INT || bits > t->size * 8u)
			continue;
		id = btf_add_int_off(w->btf, cu__add_str(w, d2b_btf__name(w->btf, type)), t->size,
				     d2b_int_encoding(btf_int_word(t)));
		if (id < 0) {
			free(ids);
			return id;
		}
		t = btf_type_mut(w->btf, id);
		*(uint32_t *)(t + 1) = d2b_int_encoding(btf_int_word(t)) << 24 | (uint32_t)bits;
		ids[i] = id;
	}
	*ret = ids;
	return 0;
}

/* a member as add_members() adds it: kid (in uw->kids, which pass 2 does
 * not move) and its layout; its name apart, for str_adder__add_many() */
struct member_plan {
	uint32_t kid, type, bit_off, bit_size;
};

/* Member kid i, named *name, as it is added (true), or left out, said why
 * (false); legacy: see legacy_bitfields(). */
static bool plan_member(struct cu *w, size_t base, size_t i, const uint32_t *legacy,
			struct member_plan *p, const char **name)
{
	const struct cu_die *m = &w->uw->kids[base + i];
	uint64_t bit_size = 0, bit_off;
	int type = w->uw->kid_types[base + i];

	*name = m->d.tag == DW_TAG_inheritance ? NULL : cu_scope__field_name(w, m);
	if (type == 0) {
		cu__diag(w, D2B_INFO, m, "member '%s' of void type left out", *name ?: "(anon)");
		return false;
	}
	if (m->d.tag == DW_TAG_inheritance && cu__has_attr(m, DW_AT_virtuality)) {
		struct cu_die base_die;

		cu__diag(w, D2B_INFO, m, "virtual base class '%s' left out: it is placed "
			 "at run time", cu__ref_attr(w, m, DW_AT_type, &base_die) ?
			 cu__name(w, &base_die) ?: "(anon)" : "?");
		return false;
	}
	attr_udata(w, m, DW_AT_bit_size, &bit_size);
	if (legacy && bit_size && !legacy[i]) {
		cu__diag(w, D2B_INFO, m, "bitfield '%s' left out: not of an integer type, in "
			 "a struct too large for BTF's bitfield offsets", *name ?: "(anon)");
		return false;
	}
	if (member_bit_offset(w, m, type, bit_size, &bit_off) < 0 ||
	    bit_off > UINT32_MAX || bit_size > BTF_MAX_BITFIELD_SIZE ||
	    (bit_size && !legacy && bit_off > BTF_MAX_BITFIELD_OFFSET)) {
		cu__diag(w, D2B_INFO, m, "member '%s' with an unusable offset left out",
			 *name ?: "(anon)");
		return false;
	}
	if (legacy && bit_size) {
		type = (int)legacy[i];
		bit_size = 0;
	}
	p->kid = (uint32_t)i;
	p->type = (uint32_t)type;
	p->bit_off = (uint32_t)bit_off;
	p->bit_size = (uint32_t)bit_size;
	return true;
}

/* add_members() plans this many members, then adds their names together */
enum { MEMBERS_BATCH = 16 };

/*
 * Pass 2 of a composite: its members, from kids [base, base + n); legacy:
 * see legacy_bitfields().  Names are added a batch at a time, so that their
 * lookups in a base overlap (str_adder__add_many()); a name made in the walker's
 * name buffer ends its batch, before the next name reuses the buffer.
 */
static int add_members(struct cu *w, size_t base, size_t n, const uint32_t *legacy)
{
	struct member_plan plan[MEMBERS_BATCH];
	const char *names[MEMBERS_BATCH];
	uint32_t offs[MEMBERS_BATCH];
	size_t i = 0, j, k;
	int err;

	while (i < n) {
		for (k = 0; i < n && k < MEMBERS_BATCH;) {
			if (!plan_member(w, base, i++, legacy, &plan[k], &names[k]))
				continue;
			if (names[k++] == w->name_buf)
				break;
		}
		err = str_adder__add_many(&w->uw->strs, names, offs, k);
		if (err < 0)
			return err;
		for (j = 0; j < k; j++) {
			err = btf_add_member_off(w->btf, offs[j], plan[j].type, plan[j].bit_off,
						 plan[j].bit_size);
			if (err == -E2BIG) {
				/* past the kind_flag offsets of a struct not marked too large */
				cu__diag(w, D2B_INFO, &w->uw->kids[base + plan[j].kid], "member '%s' "
					 "left out: BTF cannot encode its offset", names[j] ?: "(anon)");
				continue;
			}
			if (err < 0)
				return err;
		}
	}
	return 0;
}

static int define_composite(struct cu *w, const struct cu_die *die, uint32_t id)
{
	enum d2b_kind kind = die->d.tag == DW_TAG_union_type ? D2B_KIND_UNION : D2B_KIND_STRUCT;
	const char *name;
	uint64_t size = 0;
	uint32_t end, *legacy = NULL;
	struct cu_die m;
	size_t base, n, i;
	int err;

	attr_udata(w, die, DW_AT_byte_size, &size);
	if (size > UINT32_MAX) {
		cu__diag(w, D2B_WARN, die, "struct size %" PRIu64 " too large for BTF", size);
		size = 0;
	}
	/* the data members, read once */
	err = push_kids(w, die, is_data_member, &base);
	if (err < 0)
		goto out;
	n = w->uw->nr_kids - base;
	/* pass 1: the members' types */
	err = walk_kid_types(w, base, n, is_data_member);
	if (err >= 0 && kind == D2B_KIND_STRUCT)
		err = legacy_bitfields(w, base, n, size, &legacy);
	if (err < 0)
		goto out;
	/* pass 2: the members, contiguous after the composite */
	name = cu_scope__type_name(w, die, &err);
	if (err < 0)
		goto out;
	end = d2b_btf__end_id(w->btf);
	err = btf_define(w->btf, id);
	if (!err)
		err = btf_add_composite_off(w->btf, kind, cu__add_str(w, name), (uint32_t)size);
	if (err >= 0)
		err = add_members(w, base, n, legacy);
	if (err < 0)
		goto out;
	if (d2b_btf__end_id(w->btf) != end) {
		err = -EFAULT;	/* pass 2 must not add types */
		goto out;
	}
	/* (a unit without annotations has none to find: no call per member) */
	if (w->opts->skip_decl_tags || !w->has_annotations)
		goto out;
	err = cu_annot__decl_tags(w, die, id, -1);
	for (i = 0; i < n && err >= 0; i++) {
		m = w->uw->kids[base + i];
		err = cu_annot__decl_tags(w, &m, id, (int)i);
	}
out:
	free(legacy);
	pop_kids(w, base);
	return err < 0 ? err : 0;
}

int cu_types__drain(struct cu *w)
{
	size_t i;
	int err;

	/* defining one composite may reserve more: the list grows as we go */
	for (i = 0; i < w->pending.nr; i++) {
		struct cu_die die = w->pending.v[i].die;

		err = define_composite(w, &die, w->pending.v[i].id);
		if (err < 0)
			return err;
	}
	w->pending.nr = 0;
	return 0;
}

/*
 * An enumerator's value.  Producers write negative values as sdata and the
 * others as udata or the smallest dataN (gcc writes 128 as data1 0x80 even
 * in a signed enum), so dataN is unsigned; is_signed only matters for a
 * full 64-bit data8, whose bits are the value either way.
 */
static int64_t enumerator_value(const struct die_attr *attr, bool is_signed)
{
	uint64_t u = 0;

	(void)is_signed;
	switch (attr->form) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		return attr->s;
	default:
		cu__udata(attr, &u);
		return (int64_t)u;
	}
}

static bool enum_is_signed(struct cu *w, const struct cu_die *die)
{
	struct die_attr attr;
	struct cu_die under, child, owner;
	uint64_t enc;
	int hops;

	if (cu__attr_integrate(w, die, DW_AT_type, &attr, &owner) &&
	    cu__ref(w, &owner, &attr, &under)) {
		/* the underlying type, through typedefs and qualifiers */
		for (hops = 0; hops < 16 && under.d.tag != DW_TAG_base_type; hops++) {
			if (!cu__ref_attr(w, &under, DW_AT_type, &under))
				break;
		}
		if (attr_udata(w, &under, DW_AT_encoding, &enc))
			return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	}
	/* no underlying type: signed iff some value is negative as written */
	if (cu__child(w, die, &child)) {
		do {
			if (child.d.tag != DW_TAG_enumerator ||
			    !cu__attr(w, &child, DW_AT_const_value, &attr))
				continue;
			if ((attr.form == DW_FORM_sdata || attr.form == DW_FORM_implicit_const) &&
			    enumerator_value(&attr, true) < 0)
				return true;
		} while (cu__next(w, &child));
	}
	return false;
}

static int enum_type(struct cu *w, const struct cu_die *die)
{
	const char *name;
	uint64_t size = 4;
	bool is_signed = enum_is_signed(w, die), wide = false;
	struct cu_die child, first;
	bool has_children = !cu__flag(w, die, DW_AT_declaration) && cu__child(w, die, &first);
	struct die_attr attr;
	int id, err;

	attr_udata(w, die, DW_AT_byte_size, &size);
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		cu__diag(w, D2B_WARN, die, "enum size %" PRIu64 " not 1, 2, 4 or 8: using 4", size);
		size = 4;
	}
	if (has_children) {
		child = first;
		do {
			int64_t v;

			if (child.d.tag != DW_TAG_enumerator ||
			    !cu__attr(w, &child, DW_AT_const_value, &attr))
				continue;
			v = enumerator_value(&attr, is_signed);
			if (is_signed ? (v < INT32_MIN || v > INT32_MAX) : (uint64_t)v > UINT32_MAX)
				wide = true;
		} while (cu__next(w, &child));
	}
	name = cu_scope__type_name(w, die, &err);
	if (err)
		return err;
	if (wide && !w->opts->no_enum64)
		id = btf_add_enum_off(w->btf, D2B_KIND_ENUM64, cu__add_str(w, name), (uint32_t)size,
				      is_signed);
	else
		id = btf_add_enum_off(w->btf, D2B_KIND_ENUM, cu__add_str(w, name), (uint32_t)size,
				      is_signed);
	if (id < 0 || !has_children)
		return id;
	child = first;
	do {
		const char *vname;
		int64_t v;

		if (child.d.tag != DW_TAG_enumerator || !cu__attr(w, &child, DW_AT_const_value, &attr))
			continue;
		vname = cu__name(w, &child);
		v = enumerator_value(&attr, is_signed);
		if (!wide || w->opts->no_enum64)
			v = is_signed ? (int32_t)v : (int64_t)(uint32_t)v;
		err = btf_add_enum_value_off(w->btf, cu__add_str(w, vname), v);
		if (err == -E2BIG) {
			cu__diag(w, D2B_WARN, die, "enum with more than %d values: rest left out",
				      D2B_MAX_VLEN);
			break;
		}
		if (err < 0) {
			cu__diag(w, D2B_INFO, &child, "enumerator '%s' left out", vname ?: "(anon)");
			continue;
		}
	} while (cu__next(w, &child));
	return id;
}

/*
 * A parameter whose type leads nowhere (damaged DWARF, a missing dwz
 * file) is given int: make int before the FUNC_PROTO, whose parameters
 * must follow it directly.
 */
static int void_params_as_int(struct cu *w, size_t base, size_t n)
{
	size_t i;
	int type;

	for (i = 0; i < n; i++) {
		const struct cu_die *p = &w->uw->kids[base + i];

		if (p->d.tag != DW_TAG_formal_parameter)
			continue;
		type = w->uw->kid_types[base + i];
		if (type == 0)
			return int_type(w);
	}
	return 0;
}

/* Pass 2 of a prototype: its parameters, from kids [base, base + n). */
static int add_params(struct cu *w, size_t base, size_t n, bool names, const char *const *as)
{
	struct cu_die p;
	const char *name;
	size_t i;
	int type, err;

	for (i = 0; i < n; i++) {
		p = w->uw->kids[base + i];
		if (p.d.tag == DW_TAG_unspecified_parameters)
			return btf_add_param_off(w->btf, 0, 0);	/* varargs come last */
		type = w->uw->kid_types[base + i];
		if (type == 0) {
			cu__diag(w, D2B_INFO, &p, "parameter of void type: using int");
			type = int_type(w);
			if (type < 0)
				return type;
		}
		name = as && as[i] ? as[i] : names ? cu_scope__field_name(w, &p) : NULL;
		err = btf_add_param_off(w->btf, cu__add_str(w, name), type);
		if (err < 0)
			return err;
	}
	return 0;
}

/* A prototype returning die's type, of the parameters kids[base ..);
 * as: their names where not NULL */
static int proto_of_kids(struct cu *w, const struct cu_die *die, size_t base, bool names,
			 const char *const *as);

int cu_types__proto(struct cu *w, const struct cu_die *die, bool names)
{
	size_t base;
	int err;

	/* the parameters (and varargs), read once */
	err = push_kids(w, die, is_param_or_varargs, &base);
	if (err < 0) {
		pop_kids(w, base);
		return err;
	}
	return proto_of_kids(w, die, base, names, NULL);
}

int cu_types__proto_of(struct cu *w, const struct cu_die *die, const struct cu_die *params,
		       const char *const *names, size_t nr)
{
	struct unit_walker *uw = w->uw;
	size_t base = uw->nr_kids, i;
	int err;

	for (i = 0; i < nr; i++) {
		err = VEC_RESERVE(uw->kids, uw->kids_cap, uw->nr_kids, 1);
		if (!err)
			err = VEC_RESERVE(uw->kid_types, uw->kid_types_cap, uw->nr_kids, 1);
		if (err) {
			pop_kids(w, base);
			return err;
		}
		uw->kid_types[uw->nr_kids] = 0;
		uw->kids[uw->nr_kids++] = params[i];
	}
	return proto_of_kids(w, die, base, true, names);
}

static int proto_of_kids(struct cu *w, const struct cu_die *die, size_t base, bool names,
			 const char *const *as)
{
	size_t n = w->uw->nr_kids - base;
	int ret, id, err;
	uint32_t end;

	ret = cu_types__type_of(w, die);
	if (ret < 0) {
		err = ret;
		goto out;
	}
	err = walk_kid_types(w, base, n, is_proto_kid);
	if (err < 0)
		goto out;
	err = void_params_as_int(w, base, n);
	if (err < 0)
		goto out;
	end = d2b_btf__end_id(w->btf);
	id = d2b_btf__add_func_proto(w->btf, ret);
	if (id < 0) {
		err = id;
		goto out;
	}
	err = add_params(w, base, n, names, as);
	if (err >= 0 && d2b_btf__end_id(w->btf) != end + 1)
		err = -EFAULT;
out:
	pop_kids(w, base);
	return err < 0 ? err : id;
}

/*
 * A C++ pointer to member has no BTF form; it keeps its size (the Itanium
 * C++ ABI's: an offset, or for a member function a pointer and an
 * adjustment) as an array of bytes.
 */
static int ptr_to_member(struct cu *w, const struct cu_die *die)
{
	struct cu_die target;
	uint64_t size;

	if (!attr_udata(w, die, DW_AT_byte_size, &size)) {
		size = w->ptr_size;
		if (cu__ref_attr(w, die, DW_AT_type, &target) &&
		    target.d.tag == DW_TAG_subroutine_type)
			size *= 2;
	}
	return byte_array(w, die, size, "pointer to member");
}

/*
 * A type whose definition is in a type unit (gcc's -fdebug-types-section:
 * a declaration, or a stub, with DW_AT_signature): that definition.  0
 * and *ret unset if there is none.
 */
static bool signature_type(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	if (!w->has_signatures || !cu__has_attr(die, DW_AT_signature))
		return false;
	if (!cu__ref_attr(w, die, DW_AT_signature, ret)) {
		/* libdw reads one .debug_types (or .debug_info) section: a
		 * relocatable object has one per type unit (COMDAT groups) */
		cu__diag(w, D2B_INFO, die, "type of DW_AT_signature not found (%s): only a "
			 "declaration is left", cu__why(w));
		return false;
	}
	return !cu__same(ret, die);
}

static int translate(struct cu *w, const struct cu_die *die)
{
	unsigned int tag = die->d.tag;
	struct cu_die def;

	if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	     tag == DW_TAG_enumeration_type) && signature_type(w, die, &def))
		return cu_types__type(w, &def);

	switch (tag) {
	case DW_TAG_base_type:
		return base_type(w, die);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return pointer_type(w, die);
	case DW_TAG_const_type:
		return modifier_type(w, die, D2B_KIND_CONST);
	case DW_TAG_volatile_type:
		return modifier_type(w, die, D2B_KIND_VOLATILE);
	case DW_TAG_restrict_type:
		return modifier_type(w, die, D2B_KIND_RESTRICT);
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_shared_type:
		/* BTF has no such qualifier: the type itself */
		return cu_types__type_of(w, die);
	case DW_TAG_typedef:
		return typedef_type(w, die);
	case DW_TAG_unspecified_type:
		return 0;
	case DW_TAG_array_type:
		return array_type(w, die);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return composite_type(w, die, tag);
	case DW_TAG_enumeration_type:
		return enum_type(w, die);
	case DW_TAG_subroutine_type:
		return cu_types__proto(w, die, false);
	case DW_TAG_ptr_to_member_type:
		return ptr_to_member(w, die);
	default:
		cu__diag(w, D2B_INFO, die, "DWARF tag 0x%x is not a type BTF can express: void", tag);
		return 0;
	}
}

int cu_types__type(struct cu *w, const struct cu_die *die)
{
	const char *vals[UNIT_MAX_TAGS];
	uint32_t v = map_get(w, die);
	int id, n, err;

	if (v) {
		if (v == MAP_IN_PROGRESS) {
			cu__diag(w, D2B_WARN, die, "type refers to itself other than through a struct: void");
			return 0;
		}
		return (int)(v - 1);
	}
	if (w->depth >= MAX_DEPTH) {
		cu__diag(w, D2B_WARN, die, "types nested deeper than %d: void", MAX_DEPTH);
		id = 0;
		goto out;
	}
	err = map_set(w, die, MAP_IN_PROGRESS);
	if (err)
		return err;
	w->depth++;
	id = translate(w, die);
	if (id >= 0 && !w->opts->skip_type_tags && w->has_annotations &&
	    (die->d.has_children || cu__has_attr(die, D2B_DW_AT_GNU_annotation))) {
		n = cu_annot__collect(w, die, ANNOT_TYPE_TAG_SELF, vals, UNIT_MAX_TAGS);
		if (n > UNIT_MAX_TAGS)
			n = UNIT_MAX_TAGS;
		if (n)
			id = cu_annot__wrap(w, id, vals, n);
	}
	w->depth--;
	if (id < 0)
		return id;
out:
	err = map_set(w, die, (uint32_t)id + 1);
	return err ? err : id;
}
