/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * loc_sites.c: the units' inline sites (unit.h) -> the bpf tree's
 * LOC_PARAM, LOC_PROTO and LOCSEC kinds, once all units are merged.
 */
#ifndef D2B_KERNEL_LOC_SITES_H
#define D2B_KERNEL_LOC_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "unit/unit.h"

struct loc_sites;

/* An ELF section of the input, by index */
struct loc_section {
	const char *name;	/* NULL: none */
	uint64_t addr;		/* sh_addr */
};

struct loc_sites_opts {
	const struct loc_section *secs;
	size_t nr_secs;
	bool rel;		/* an ET_REL file: its sections have no addresses */
	bool static_linkage;	/* FUNCs added are static, external or not */
};

struct loc_sites_stats {
	size_t sites, funcs, complete;	/* complete: every parameter located */
	size_t params, located;		/* of the sites' parameters */
	size_t sections;		/* LOCSECs */
	size_t loc_params, loc_protos;	/* types added */
	size_t funcs_added;		/* FUNCs made for functions without one */
};

struct loc_sites *loc_sites__new(void);
void loc_sites__free(struct loc_sites *ls);
/* The sites of merged unit u, its type IDs through map into the output's;
 * its strings strs, or u's BTF's if NULL. */
int loc_sites__add_unit(struct loc_sites *ls, const struct unit *u, const uint32_t *map,
			const char *strs);
/* The output renumbered: each old ID's new one (0: gone). */
void loc_sites__remap(struct loc_sites *ls, const uint32_t *map);
/* The prototypes the sites name, marked PRUNE_KEEP in drop (indexed by ID
 * - start) where it is 0: they stay when the FUNCs that share them go. */
void loc_sites__keep_protos(const struct loc_sites *ls, uint8_t *drop, uint32_t start,
			    uint32_t end, uint8_t keep);
/*
 * The LOC kinds appended to btf: the LOC_PARAMs, the LOC_PROTOs, the FUNCs
 * of functions inlined that have none of their prototype, then a LOCSEC
 * per ELF section.  0 or a negative errno (said).
 */
int loc_sites__emit(struct loc_sites *ls, struct d2b_btf *btf, const struct loc_sites_opts *o,
		    struct diag *diag);
void loc_sites__stats(const struct loc_sites *ls, struct loc_sites_stats *ret);

#endif
