// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Distilled base BTF (.BTF.base): what a module's split BTF needs of its
 * base so that the kernel (>= 6.11, kernel/bpf/btf_relocate.c) can map it
 * onto a vmlinux BTF other than the one it was built against.
 *
 * Theory.  The split BTF refers to base types by ID; those IDs mean nothing
 * in another vmlinux.  The kernel relocates a split BTF by matching each
 * type of its .BTF.base with the running vmlinux's types by kind, name and
 * size, so the distilled base holds only what can be matched that way, and
 * everything else the module references moves into the module's own BTF:
 *
 *   Pass 1, mark: every base type the split BTF references, and below a
 *     marked type every type it references, except below a named STRUCT or
 *     UNION (the distilled one has no members to reference anything).
 *   Pass 2, the new base: named INT, FLOAT and FWD as they are; named STRUCT
 *     and UNION as member-less types of the same size; named ENUM and
 *     ENUM64 as a value-less ENUM of the same size.  (The relocation
 *     matches sizes, so a struct whose size changed is refused rather than
 *     misread.)
 *   Pass 3, the new split BTF: its own types, then the marked base types the
 *     new base cannot hold (anonymous composites and enums, arrays,
 *     pointers, typedefs, qualifiers, prototypes, type tags), in base order.
 *   Every type ID is translated at copy time: base IDs to their new place,
 *     split IDs shifted down by what the base lost.
 * libbpf's btf__distill_base() does the same; its output is what kernels
 * built with pahole carry, and this layout matches it type for type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "base/vec.h"

/* Base kinds a split BTF may reference (a VAR, FUNC or DATASEC may not) */
static bool distillable(unsigned int kind)
{
	switch (kind) {
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
	case D2B_KIND_FWD:
	case D2B_KIND_ARRAY:
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
	case D2B_KIND_PTR:
	case D2B_KIND_CONST:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_FUNC_PROTO:
	case D2B_KIND_TYPE_TAG:
		return true;
	default:
		return false;
	}
}

/* Does the distilled base keep this (marked) base type? */
static bool stays_in_base(const struct d2b_type *t)
{
	switch (d2b_kind(t)) {
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
	case D2B_KIND_FWD:
		return true;
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		return t->name_off != 0;
	default:
		return false;
	}
}

/* Pass 1: mark[id] for each base type needed (explicit stack: no recursion). */
static int mark_needed(const struct d2b_btf *split, uint8_t *mark)
{
	uint32_t start = d2b_btf__start_id(split), end = d2b_btf__end_id(split), id;
	uint32_t *stack = NULL;
	size_t nr = 0, cap = 0;
	int err = 0;

	for (id = start; id < end && !err; id++) {
		uint32_t cur = id;

		for (;;) {
			const struct d2b_type *t = d2b_btf__type(split, cur);
			struct btf_field_iter it;
			uint32_t *f;

			btf_field_iter__init(&it, (struct d2b_type *)t, BTF_FIELD_IDS);
			while ((f = btf_field_iter__next(&it)) != NULL) {
				const struct d2b_type *b;

				if (!*f || *f >= start || mark[*f])
					continue;
				b = d2b_btf__type(split, *f);
				if (!b || !distillable(d2b_kind(b))) {
					err = -EINVAL;	/* (after freeing the stack) */
					break;
				}
				mark[*f] = 1;
				if (btf_kind_is_composite(d2b_kind(b)) && b->name_off)
					continue;
				err = VEC_RESERVE(stack, cap, nr, 1);
				if (err)
					break;
				stack[nr++] = *f;
			}
			if (err || !nr)
				break;
			cur = stack[--nr];
		}
	}
	free(stack);
	return err;
}

/* Pass 2: a base type's distilled form. */
static int add_distilled(struct d2b_btf *base, const struct d2b_btf *src, uint32_t id)
{
	const struct d2b_type *t = d2b_btf__type(src, id);
	const char *name = d2b_btf__name(src, id);
	struct d2b_type raw = { 0 };
	int name_off;

	switch (d2b_kind(t)) {
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		return d2b_btf__add_composite(base, d2b_kind(t), name, t->size);
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		/* a value-less ENUM of the enum's size, 8 bytes too */
		name_off = d2b_btf__add_str(base, name);
		if (name_off < 0)
			return name_off;
		raw.name_off = (uint32_t)name_off;
		raw.info = d2b_info(D2B_KIND_ENUM, false, 0);
		raw.size = t->size;
		return d2b_btf__add_raw(base, &raw);
	default:
		return -EINVAL;
	}
}

int d2b_btf__distill_base(const struct d2b_btf *split, struct d2b_btf **ret_base,
			  struct d2b_btf **ret_split)
{
	const struct d2b_btf *old_base = d2b_btf__base(split);
	uint32_t start = d2b_btf__start_id(split), end = d2b_btf__end_id(split), id, next;
	struct d2b_btf *base = NULL, *out = NULL;
	uint32_t *map = NULL;
	uint8_t *mark = NULL;
	int r, err = -ENOMEM;

	*ret_base = *ret_split = NULL;
	if (!old_base || d2b_btf__base(old_base))
		return -EINVAL;	/* split BTF over a base that is not split itself */
	mark = calloc(start, 1);
	map = calloc(end, sizeof(*map));
	base = d2b_btf__new(NULL);
	if (!mark || !map || !base)
		goto out;
	btf_copy_model(base, split);
	err = mark_needed(split, mark);
	if (err)
		goto out;
	for (id = 1; id < start; id++) {
		const struct d2b_type *t = d2b_btf__type(split, id);

		if (!mark[id] || !stays_in_base(t))
			continue;
		if (d2b_kind(t) == D2B_KIND_INT || d2b_kind(t) == D2B_KIND_FLOAT ||
		    d2b_kind(t) == D2B_KIND_FWD)
			r = btf_add_copy(base, split, id, map);	/* no IDs inside */
		else
			r = add_distilled(base, split, id);
		if (r < 0) {
			err = r;
			goto out;
		}
		map[id] = (uint32_t)r;
	}
	/* the new split BTF: own types shifted down, then the moved base types */
	next = d2b_btf__end_id(base);
	for (id = start; id < end; id++)
		map[id] = next++;
	for (id = 1; id < start; id++) {
		if (mark[id] && !map[id])
			map[id] = next++;
	}
	err = -ENOMEM;
	out = d2b_btf__new(base);
	if (!out)
		goto out;
	btf_copy_model(out, split);
	for (id = start; id < end; id++) {
		r = btf_add_copy(out, split, id, map);
		if (r < 0 || (uint32_t)r != map[id]) {
			err = r < 0 ? r : -EINVAL;
			goto out;
		}
	}
	for (id = 1; id < start; id++) {
		if (!mark[id] || stays_in_base(d2b_btf__type(split, id)))
			continue;
		r = btf_add_copy(out, split, id, map);
		if (r < 0 || (uint32_t)r != map[id]) {
			err = r < 0 ? r : -EINVAL;
			goto out;
		}
	}
	err = 0;
out:
	free(mark);
	free(map);
	if (err) {
		d2b_btf__free(out);
		d2b_btf__free(base);
		return err;
	}
	*ret_base = base;
	*ret_split = out;
	return 0;
}
