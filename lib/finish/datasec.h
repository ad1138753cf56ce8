/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct datasec_set: the variables of all units, turned into VARs and one
 * DATASEC per ELF section once the types are final.
 */
#ifndef D2B_DATASEC_H
#define D2B_DATASEC_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf2btf.h"

struct datasec_set;
struct diag;

/* The input's sections, by ELF section index (name NULL: no such section). */
struct datasec_section {
	const char *name;
	uint64_t size;
};

struct datasec_set *datasec_set__new(void);
void datasec_set__free(struct datasec_set *ds);
/* Record a variable; type is an ID in the output (before dedup__finish). */
int datasec_set__add(struct datasec_set *ds, const char *name, enum d2b_linkage linkage,
		     uint32_t type, size_t shndx, uint64_t offset, const char *const *tags,
		     unsigned int nr_tags);
/* Translate every recorded type through map (old ID -> new ID). */
void datasec_set__remap(struct datasec_set *ds, const uint32_t *map);

/* Add VARs, their DECL_TAGs and DATASECs to btf.  diag notes dropped variables. */
int datasec_set__emit(struct datasec_set *ds, struct d2b_btf *btf,
		      const struct datasec_section *secs, size_t nr_secs, struct diag *diag);

#endif
