/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cu_types.c: type DIEs -> unit types. */
#ifndef D2B_UNIT_CU_TYPES_H
#define D2B_UNIT_CU_TYPES_H

#include <stdbool.h>

#include "unit/cu.h"

/* The type dispatcher; returns a unit type ID (0 = void) or a negative
 * errno (only for resource errors: bad DWARF yields void and a
 * diagnostic). */
int cu_types__type(struct cu *w, const struct cu_die *die);
/* The type named by die's DW_AT_type (void if absent). */
int cu_types__type_of(struct cu *w, const struct cu_die *die);
/* Define the composites reserved so far. */
int cu_types__drain(struct cu *w);
/* A FUNC_PROTO from a DIE whose DW_TAG_formal_parameter children are the
 * parameters; names: keep the parameters' names. */
int cu_types__proto(struct cu *w, const struct cu_die *die, bool names);
/* A FUNC_PROTO returning die's type, of the nr parameter DIEs params, in
 * that order, each of its DIE's type and named by names[i], or where
 * names (or names[i]) is NULL by its DIE's name. */
int cu_types__proto_of(struct cu *w, const struct cu_die *die, const struct cu_die *params,
		       const char *const *names, size_t nr);

#endif
