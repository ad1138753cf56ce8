/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What lib/unit knows of a function it makes a FUNC of, for a policy above
 * it to judge (lib/kernel implements pahole's): neutral facts only -- the
 * function's DIEs, their parameters' sizes, types and locations, the
 * clone's abstract origin, the calling convention, the producer, the
 * machine.  What a tracer, a kernel or a pahole release makes of them is
 * the policy's, not the walker's.
 *
 * The walker calls the policy (struct unit_func_policy) once per function
 * it converts, in the walking thread: the policy must only read its own
 * state.  struct fn_facts is valid during that call only.
 *
 * Two DIEs have parameters: the function's code (FN_CODE: a definition,
 * or an out-of-line instance of an inlined function) and, where the code
 * has a DW_AT_abstract_origin, that origin (FN_ORIGIN).  Parameters are
 * their DW_TAG_formal_parameter children, numbered in order from 0.
 */
#ifndef D2B_UNIT_FUNC_FACTS_H
#define D2B_UNIT_FUNC_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf/die_reader.h"

struct fn_facts;

enum fn_which {
	FN_CODE,	/* the function's code */
	FN_ORIGIN,	/* its abstract origin */
};

/*
 * A function's policy.  judge() returns the ID of the FUNC_PROTO it made
 * for fn (fn_facts__proto()), 0 for the prototype the function declares,
 * or a negative errno; *flags: the policy's own word for the function,
 * kept in its struct unit_func.
 */
struct unit_func_policy {
	int (*judge)(const void *arg, struct fn_facts *fn, uint32_t *flags);
	const void *arg;
	bool static_linkage;	/* every FUNC is static, external or not */
};

/* The file's e_machine, and the unit's address size in bytes. */
unsigned int fn_facts__machine(const struct fn_facts *fn);
unsigned int fn_facts__ptr_size(const struct fn_facts *fn);
/* The unit's DW_AT_producer, or NULL. */
const char *fn_facts__producer(const struct fn_facts *fn);
/* DW_AT_external, of the function or of the DIE it completes. */
bool fn_facts__external(const struct fn_facts *fn);
/* Is the code's DIE also the one that declares the function? */
bool fn_facts__declares_itself(const struct fn_facts *fn);
/* Has the code's DIE children (parameters, or anything else)? */
bool fn_facts__has_children(struct fn_facts *fn);
/* Has the code an abstract origin (FN_ORIGIN) that can be read? */
bool fn_facts__has_origin(const struct fn_facts *fn);
/* The function DIE's own attribute name: present; its constant value. */
bool fn_facts__has(struct fn_facts *fn, enum fn_which which, unsigned int name);
bool fn_facts__udata(struct fn_facts *fn, enum fn_which which, unsigned int name, uint64_t *ret);
/* Do the code's parameters have its origin's types, position by position
 * (as many of them, each's type the same DIE)?  true without an origin. */
bool fn_facts__same_types(struct fn_facts *fn);

/* How many parameters; 0 for FN_ORIGIN without an origin.  (Without the
 * memory to list them: 0, and the walk fails once the policy returns.) */
size_t fn_facts__nr_params(struct fn_facts *fn, enum fn_which which);
/* Does the code take varargs (a DW_TAG_unspecified_parameters)? */
bool fn_facts__varargs(struct fn_facts *fn);
/* Parameter i's own attribute name: present (as its abbreviation says). */
bool fn_facts__param_has(struct fn_facts *fn, enum fn_which which, size_t i, unsigned int name);
/* The byte size of its type: a pointer is a word, a type without
 * DW_AT_byte_size is its own type's size; 0 if none. */
uint64_t fn_facts__param_size(struct fn_facts *fn, enum fn_which which, size_t i);
/* Is it a struct passed by value, through typedefs and const? */
bool fn_facts__param_is_struct(struct fn_facts *fn, enum fn_which which, size_t i);
/* Its name (through its abstract origin), or NULL. */
const char *fn_facts__param_name(struct fn_facts *fn, enum fn_which which, size_t i);
/* Its DW_AT_location, read with die_loc.h in *du: false if none. */
bool fn_facts__param_location(struct fn_facts *fn, enum fn_which which, size_t i,
			      struct die_unit **du, struct die_attr *ret);
/* The same attribute as libdw reads it (dwarf_getlocations()): false if
 * libdw cannot. */
bool fn_facts__param_libdw_location(struct fn_facts *fn, enum fn_which which, size_t i,
				    Dwarf_Attribute *ret);
/* Code parameter i's abstract origin: its position among FN_ORIGIN's
 * parameters, -1 if none of them; false if the parameter or the function
 * has no abstract origin. */
bool fn_facts__param_origin(struct fn_facts *fn, size_t i, int *ret);
/* The first code parameter whose abstract origin is FN_ORIGIN's
 * parameter oi, or -1. */
int fn_facts__origin_param_code(struct fn_facts *fn, size_t oi);

/* A member of a struct parameter's own type */
struct fn_member {
	const char *name;	/* through its abstract origin, or NULL */
	bool has_name, has_type;	/* DW_AT_name, DW_AT_type of its own */
	bool is_struct;		/* itself a struct, through typedefs and const */
};
/* The member at byte offset at of the struct that code parameter i's own
 * type is (through typedefs and qualifiers as far as a type without
 * DW_AT_byte_size leads): false if none. */
bool fn_facts__param_member(struct fn_facts *fn, size_t i, uint64_t at, struct fn_member *ret);

/* One parameter of a prototype a policy makes */
struct fn_proto_param {
	size_t i;		/* the code's parameter (its type through its abstract
				 * origin where it has none of its own) */
	bool member;		/* ... or its member at byte member_at instead */
	uint64_t member_at;
	const char *name;	/* or NULL: the parameter's (member's) own */
};
/* A FUNC_PROTO returning the function's declared type, of the n
 * parameters v, and the code's varargs if varargs and it has them.
 * Returns its ID or a negative errno. */
int fn_facts__proto(struct fn_facts *fn, const struct fn_proto_param *v, size_t n, bool varargs);

#endif
