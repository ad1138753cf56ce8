// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Names of types, functions, variables and members, as BTF gets them.
 *
 * In C a name is DWARF's DW_AT_name as is.  C++ nests declarations in
 * namespaces and classes, and DW_AT_name is only the innermost part
 * ("rect" of geo::rect, "area" of geo::rect::area): the rest is the chain
 * of the DIE's parents.  Our DIE reader has no parent links, so the first
 * time a unit needs a scope, one pass over it (a die_cursor, which knows
 * each DIE's depth, skipping the subtrees of everything but namespaces and
 * composites) records the parent of each DIE whose parent is a namespace,
 * struct, class or union: w->scopes, DIE key (cu__far_key) -> the parent's
 * offset.  Each unit a name leads to (a type unit, another unit by
 * DW_FORM_ref_addr) is indexed once per walk the same way.
 *
 * A qualified name is built innermost first: the DIE's name, then its
 * parent's, through DW_AT_specification and DW_AT_abstract_origin (a
 * member function defined outside its class is a top-level DIE that points
 * at the declaration inside it), to at most CU_MAX_SCOPE_DEPTH parts.
 *
 * What names C++ units get (the choice is documented in dwarf2btf.h,
 * d2b_opts.cxx_names):
 *   cxx_names     as C++ spells them: "geo::rect", "geo::Box<int>" (template
 *                 arguments as DWARF gives them), "geo::rect::area",
 *                 "(anonymous namespace)::x";
 *   default       C identifiers only: a type keeps DW_AT_name if it is one
 *                 and is anonymous otherwise; a function or variable takes
 *                 its linkage name (the ELF symbol's), else DW_AT_name, if
 *                 either is an identifier; in a member's or parameter's
 *                 name, each other character becomes '_' (_vptr$base ->
 *                 _vptr_base), so that layouts and prototypes stay whole.
 */
#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "btf/btf.h"
#include "base/vec.h"
#include "unit/cu_scope.h"

static bool is_scope_tag(unsigned int tag)
{
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return true;
	default:
		return false;
	}
}

/* A unit's key in w->scoped_units: its reader, section and header offset. */
static uint64_t unit_key(const struct cu *w, struct die_unit *du)
{
	const struct die_unit_header *h = die_unit__header(du);

	return (uint64_t)(die_unit__reader(du) != w->uw->r) << 63 |
	       (uint64_t)(h->sec == DIE_SEC_TYPES) << 62 | h->off;
}

/*
 * Record the scope of each DIE of du that has one.  A unit the cursor
 * cannot read to the end is indexed as far as it goes: the walk itself
 * reports the damage.
 */
static int index_unit(struct cu *w, struct die_unit *du)
{
	uint64_t parents[CU_MAX_SCOPE_DEPTH + 1];
	bool scope[CU_MAX_SCOPE_DEPTH + 1];
	struct die_cursor c;
	struct cu_die d = { .du = du };
	unsigned int deep = 0;
	uint64_t v;
	int err;

	if (hmap__find(&w->scoped_units, unit_key(w, du), &v))
		return 0;
	err = hmap__add(&w->scoped_units, unit_key(w, du), 1);
	if (err)
		return err;
	die_cursor__init(du, &c);
	while (die_cursor__next(du, &c, &d.d) > 0) {
		unsigned int depth = c.depth;

		if (depth > CU_MAX_SCOPE_DEPTH) {
			if (!deep++)
				cu__diag(w, D2B_INFO, &d, "scopes nested deeper than %d: the names "
					 "inside are not qualified", CU_MAX_SCOPE_DEPTH);
			if (d.d.has_children && die_cursor__skip_children(du, &c, &d.d) < 0)
				break;
			continue;
		}
		parents[depth] = d.d.off;
		scope[depth] = is_scope_tag(d.d.tag);
		if (depth > 0 && scope[depth - 1]) {
			err = hmap__set(&w->scopes, cu__far_key(w, &d), parents[depth - 1]);
			if (err)
				return err;
		}
		/* nothing in a function body or a parameter list has a scope name */
		if (depth > 0 && !scope[depth] && d.d.has_children &&
		    die_cursor__skip_children(du, &c, &d.d) < 0)
			break;
	}
	return 0;
}

/*
 * The DIE that declares die, through DW_AT_specification and
 * DW_AT_abstract_origin, or that defines it, through DW_AT_signature (a
 * stub of a type unit's type: clang's type units name a type's enclosing
 * class by such a stub, without a name).
 */
static void declaring(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	struct die_attr a;
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__attr(w, ret, DW_AT_specification, &a) &&
		    !cu__attr(w, ret, DW_AT_abstract_origin, &a) &&
		    !cu__attr(w, ret, DW_AT_signature, &a))
			return;
		if (!cu__ref(w, ret, &a, ret))
			return;
	}
}

/* die's scope (the namespace or class it is declared in): false if none. */
static int scope_of(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	uint64_t off;
	int err = index_unit(w, die->du);

	if (err)
		return err;
	if (!hmap__find(&w->scopes, cu__far_key(w, die), &off))
		return 0;
	ret->du = die->du;
	return die_unit__die_at(die->du, off, &ret->d) < 0 ? 0 : 1;
}

/* Copy s (n bytes) to w->name_buf at *len. */
static int append(struct cu *w, size_t *len, const char *s, size_t n)
{
	int err = VEC_RESERVE(w->name_buf, w->name_cap, *len, n + 1);

	if (err)
		return err;
	memcpy(w->name_buf + *len, s, n);
	*len += n;
	w->name_buf[*len] = '\0';
	return 0;
}

/*
 * die's name, qualified by its scopes ("geo::rect::area"), in w->name_buf:
 * NULL if die itself has no name, or on an error (*err).
 */
static const char *qualified(struct cu *w, const struct cu_die *die, int *err)
{
	const char *parts[CU_MAX_SCOPE_DEPTH];
	struct cu_die cur, decl;
	size_t len = 0;
	int n = 0, r;

	*err = 0;
	declaring(w, die, &decl);
	parts[n] = cu__name(w, &decl);
	if (!parts[n] || !*parts[n])
		return NULL;
	n++;
	while (n < CU_MAX_SCOPE_DEPTH) {
		r = scope_of(w, &decl, &cur);
		if (r < 0) {
			*err = r;
			return NULL;
		}
		if (r == 0)
			break;
		declaring(w, &cur, &decl);
		parts[n] = cu__name(w, &decl);
		if (!parts[n] || !*parts[n])
			parts[n] = decl.d.tag == DW_TAG_namespace ? "(anonymous namespace)" :
				   "(anonymous)";
		n++;
	}
	while (n-- > 0) {
		r = append(w, &len, parts[n], strlen(parts[n]));
		if (!r && n)
			r = append(w, &len, "::", 2);
		if (r) {
			*err = r;
			return NULL;
		}
	}
	return w->name_buf;
}

const char *cu_scope__type_name(struct cu *w, const struct cu_die *die, int *err)
{
	const char *name;

	*err = 0;
	if (!w->cxx)
		return cu__name(w, die);
	if (w->opts->cxx_names)
		return qualified(w, die, err);
	name = cu__name(w, die);
	if (name && *name && !btf_name_is_ident(name)) {
		cu__diag(w, D2B_INFO, die, "C++ type name '%s' is not an identifier: "
			 "the type is anonymous (a typedef: its type; a declaration: void)", name);
		return NULL;
	}
	return name;
}

/* DW_AT_linkage_name (or the older DW_AT_MIPS_linkage_name), integrated. */
static const char *linkage_name(struct cu *w, const struct cu_die *die)
{
	struct die_attr a;

	if (cu__attr_integrate(w, die, DW_AT_linkage_name, &a, NULL) ||
	    cu__attr_integrate(w, die, DW_AT_MIPS_linkage_name, &a, NULL))
		return cu__str(w, &a);
	return NULL;
}

const char *cu_scope__symbol_name(struct cu *w, const struct cu_die *die)
{
	const char *name = w->cxx ? linkage_name(w, die) : NULL;

	return name && *name ? name : cu__name(w, die);
}

const char *cu_scope__decl_name(struct cu *w, const struct cu_die *die, int *err)
{
	const char *name;

	*err = 0;
	if (!w->cxx)
		return cu__name(w, die);
	if (w->opts->cxx_names)
		return qualified(w, die, err);
	name = cu_scope__symbol_name(w, die);
	if (name && *name && !btf_name_is_ident(name)) {
		cu__diag(w, D2B_INFO, die, "%s '%s' left out: its C++ name is not an identifier",
			 die->d.tag == DW_TAG_variable ? "variable" : "function", name);
		return NULL;
	}
	return name;
}

const char *cu_scope__field_name(struct cu *w, const struct cu_die *die)
{
	const char *name = cu__name(w, die);
	size_t i, len = 0;

	if (!w->cxx || w->opts->cxx_names || !name || !*name || btf_name_is_ident(name))
		return name;
	/* "_vptr$base" -> "_vptr_base", "__args#0" -> "__args_0" */
	if (append(w, &len, "_", (name[0] >= '0' && name[0] <= '9') ? 1 : 0) ||
	    append(w, &len, name, strlen(name)))
		return NULL;
	for (i = 0; i < len; i++) {
		char c = w->name_buf[i];

		if (!(c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))
			w->name_buf[i] = '_';
	}
	if (!btf_name_is_ident(w->name_buf))	/* too long */
		return NULL;
	cu__diag(w, D2B_INFO, die, "C++ name '%s' is not an identifier: '%s' instead", name,
		 w->name_buf);
	return w->name_buf;
}
