// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Types of no size where the kernel needs one, in a merged BTF.
 *
 * The kernel wants a size for every member, parameter and return type
 * (through typedefs and modifiers): a forward declaration, or void behind
 * a typedef, is refused there.  C cannot write that in a definition, but
 * C++ units do: clang describes a class defined in another unit by a
 * declaration only (std::string's _Alloc_hider in most units), even as the
 * type of a member or a by-value parameter, and --kernel-names makes a
 * declaration whose name is not an identifier void.  What merging did not
 * complete with a definition is mended here, keeping what can be kept:
 *
 * And one size the kernel reads otherwise: in a kind_flag struct, it takes
 * a member of enum type that is not a bitfield for 32 bits, whatever the
 * enum's size (btf_enum_check_kflag_member), so a one- or two-byte enum
 * (C++'s enum class E : short) near the struct's end "exceeds" it.
 *
 *   Pass 0, small enums: such a member becomes a bitfield of its enum's
 *     width, the same layout said in a way the kernel checks right.
 *   Pass 1, members: a member of no size becomes an array of bytes that
 *     fills its place, up to the next member (or the end of the type), so
 *     the layout stays right.
 *   Pass 2, prototypes: a FUNC_PROTO with a parameter or a return of no
 *     size cannot be said.  The FUNCs over it are marked to be left out
 *     (drop[], for prune__funcs()), the prototype too, and the pointers,
 *     typedefs and modifiers that name it are pointed at void instead
 *     (a function pointer member becomes void *, of the same size).
 *
 * Each change is noted.  IDs never change here: prune__funcs() renumbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "btf/btf.h"
#include "finish/sizeless.h"

/* Is id, through typedefs and modifiers, void or a type of no size? */
static bool sizeless(const struct d2b_btf *btf, uint32_t id)
{
	int64_t size;

	if (!id)
		return false;	/* void itself: callers decide */
	size = d2b_btf__resolve_size(btf, id);
	return size < 0;
}

/* A void behind a typedef or modifier counts as no size too (void itself,
 * id 0, does not: a return may be void). */
static bool sizeless_or_void(const struct d2b_btf *btf, uint32_t id)
{
	const struct d2b_type *t;
	int n;

	if (!id)
		return false;
	if (sizeless(btf, id))
		return true;
	for (n = 0; id && n < BTF_MAX_RESOLVE_DEPTH; n++) {
		t = d2b_btf__type(btf, id);
		if (!t || !(btf_kind_is_modifier(d2b_kind(t)) || d2b_kind(t) == D2B_KIND_TYPEDEF))
			return false;
		id = t->type;
	}
	return id == 0;
}

/* An own INT 'name' of size bytes, found or added. */
static int find_int(struct d2b_btf *btf, const char *name, uint32_t size, unsigned int enc)
{
	uint32_t id, end = d2b_btf__end_id(btf);

	for (id = d2b_btf__start_id(btf); id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (d2b_kind(t) == D2B_KIND_INT && t->size == size &&
		    !strcmp(d2b_btf__name(btf, id), name))
			return (int)id;
	}
	return d2b_btf__add_int(btf, name, size, enc);
}

/* Pass 0: enum members the kernel would take for 32 bits, as bitfields. */
static void fix_small_enums(struct d2b_btf *btf, struct diag *diag)
{
	uint32_t id, end = d2b_btf__end_id(btf);

	for (id = d2b_btf__start_id(btf); id < end; id++) {
		struct d2b_type *t = btf_type_mut(btf, id);
		unsigned int i, vlen = d2b_vlen(t);

		if (!btf_kind_is_composite(d2b_kind(t)) || !d2b_kflag(t))
			continue;
		for (i = 0; i < vlen; i++) {
			struct d2b_member *m = (struct d2b_member *)btf_members(t) + i;
			const struct d2b_type *e = d2b_btf__type(btf, m->type);
			uint32_t off = d2b_member_bit_offset(t, m);
			int n;

			for (n = 0; e && n < BTF_MAX_RESOLVE_DEPTH &&
			     (btf_kind_is_modifier(d2b_kind(e)) || d2b_kind(e) == D2B_KIND_TYPEDEF); n++)
				e = d2b_btf__type(btf, e->type);
			if (!e || !btf_kind_is_enum(d2b_kind(e)) || e->size >= 4 ||
			    d2b_member_bitfield_size(t, m) || (uint64_t)off + 32 <= t->size * 8ull)
				continue;
			m->offset = e->size * 8 << 24 | off;
			diag__say(diag, D2B_INFO,
				  "%s '%s': member '%s' of a %u-byte enum near its end: a bitfield "
				  "of %u bits (kernels take such a member for 32)",
				  d2b_kind_name(d2b_kind(t)), d2b_btf__name(btf, id),
				  d2b_btf__str(btf, m->name_off), e->size, e->size * 8);
		}
	}
}

/* Pass 1: members of no size become arrays of bytes filling their place. */
static int fix_members(struct d2b_btf *btf, struct diag *diag)
{
	uint32_t id, end = d2b_btf__end_id(btf);
	int uchar = 0, idx = 0, n = 0;

	for (id = d2b_btf__start_id(btf); id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);
		unsigned int i, j, vlen;

		if (!btf_kind_is_composite(d2b_kind(t)))
			continue;
		vlen = d2b_vlen(t);
		for (i = 0; i < vlen; i++) {
			const struct d2b_member *m = &btf_members(t)[i];
			uint32_t off = d2b_member_bit_offset(t, m), next = t->size * 8u;
			int arr;

			if (d2b_member_bitfield_size(t, m) || !sizeless_or_void(btf, m->type))
				continue;
			for (j = i + 1; d2b_kind(t) == D2B_KIND_STRUCT && j < vlen; j++) {
				uint32_t o = d2b_member_bit_offset(t, &btf_members(t)[j]);

				if (o > off) {
					next = o;
					break;
				}
			}
			if (next < off)
				next = off;
			diag__say(diag, D2B_INFO,
				  "%s '%s': member '%s' is of a type of no size "
				  "(a declaration only): an array of its %u bytes instead", d2b_kind_name(d2b_kind(t)),
				  d2b_btf__name(btf, id), d2b_btf__str(btf, m->name_off),
				  (next - off) / 8);
			if (!uchar)
				uchar = find_int(btf, "unsigned char", 1, 0);
			if (uchar > 0 && !idx)
				idx = find_int(btf, "int", 4, D2B_INT_SIGNED);
			if (uchar < 0 || idx < 0)
				return uchar < 0 ? uchar : idx;
			arr = d2b_btf__add_array(btf, uchar, idx, (next - off) / 8);
			if (arr < 0)
				return arr;
			/* adding moved the types: find the member again */
			t = d2b_btf__type(btf, id);
			((struct d2b_member *)btf_members(btf_type_mut(btf, id)))[i].type = arr;
			n++;
		}
	}
	return n;
}

/* Does the prototype t have a parameter or return type of no size? */
static bool bad_proto(const struct d2b_btf *btf, const struct d2b_type *t)
{
	unsigned int i, n = d2b_vlen(t);

	if (sizeless_or_void(btf, t->type))
		return true;
	for (i = 0; i < n; i++) {
		uint32_t p = btf_params(t)[i].type;

		if (p ? sizeless_or_void(btf, p) : i != n - 1)
			return true;
	}
	return false;
}

/* Pass 2: prototypes that cannot be said go, and what names them. */
static int fix_protos(struct d2b_btf *btf, uint8_t *drop, struct diag *diag)
{
	uint32_t start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf), id;
	int n = 0;

	for (id = start; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (d2b_kind(t) == D2B_KIND_FUNC_PROTO && bad_proto(btf, t)) {
			drop[id - start] = 1;
			n++;
		}
	}
	if (!n)
		return 0;
	for (id = start; id < end; id++) {
		struct d2b_type *t = btf_type_mut(btf, id);
		unsigned int k = d2b_kind(t);

		if (k != D2B_KIND_FUNC && k != D2B_KIND_TYPEDEF && k != D2B_KIND_PTR &&
		    !btf_kind_is_modifier(k))
			continue;
		if (t->type < start || t->type >= end || !drop[t->type - start] || drop[id - start])
			continue;
		if (k == D2B_KIND_FUNC) {
			diag__say(diag, D2B_INFO,
				  "function '%s' left out: a parameter or its return is of a type "
				  "of no size (a declaration only)", d2b_btf__name(btf, id));
			drop[id - start] = 1;
		} else {
			t->type = 0;
		}
	}
	return n;
}

int sizeless__repair(struct d2b_btf *btf, uint8_t **ret_drop, struct diag *diag)
{
	uint32_t n;
	uint8_t *drop;
	int err;

	*ret_drop = NULL;
	fix_small_enums(btf, diag);
	err = fix_members(btf, diag);
	if (err < 0)
		return err;
	n = d2b_btf__end_id(btf) - d2b_btf__start_id(btf);
	drop = calloc(n ? n : 1, 1);
	if (!drop)
		return -ENOMEM;
	err = fix_protos(btf, drop, diag);
	if (err <= 0) {
		free(drop);
		return err;
	}
	*ret_drop = drop;
	return err;
}
