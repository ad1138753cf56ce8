/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names as BTF gets them: DW_AT_name in C units, qualified C++ names (or,
 * without d2b_opts.cxx_names, identifiers only) in C++ units.  A returned
 * name may live in a buffer of w's: use it before the next call here.
 */
#ifndef D2B_UNIT_CU_SCOPE_H
#define D2B_UNIT_CU_SCOPE_H

#include "unit/cu.h"

/* A struct, class, union, enum or typedef DIE's name; NULL or "": none
 * (anonymous, or a C++ name left out without cxx_names).  *err: -ENOMEM. */
const char *cu_scope__type_name(struct cu *w, const struct cu_die *die, int *err);
/* A function's or variable's name (die: the DIE that declares it). */
const char *cu_scope__decl_name(struct cu *w, const struct cu_die *die, int *err);
/* The name of its ELF symbol: a C++ linkage name, else DW_AT_name. */
const char *cu_scope__symbol_name(struct cu *w, const struct cu_die *die);
/* A member's or parameter's name, NULL if none; without cxx_names, one made
 * an identifier ('_' for each other character; NULL if too long). */
const char *cu_scope__field_name(struct cu *w, const struct cu_die *die);

#endif
