/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Leaving FUNCs out of a merged BTF after the fact (a policy decided across
 * units): the FUNCs, the DECL_TAGs on them, and the FUNC_PROTOs that only
 * they used go; every other type stays, renumbered in order.
 */
#ifndef D2B_MERGE_PRUNE_H
#define D2B_MERGE_PRUNE_H

#include <stdint.h>

#include "dwarf2btf.h"

/* The marks of drop[] */
enum prune_mark {
	PRUNE_STAYS = 0,
	PRUNE_DROP = 1,		/* a FUNC to leave out (or what goes with it) */
	PRUNE_KEEP = 2,		/* a prototype that stays even if only dropped
				 * FUNCs name it (something beside the BTF does) */
};

/*
 * drop[id - start_id] marks the FUNCs of btf to leave out (extended here to
 * their DECL_TAGs and orphaned prototypes), and the prototypes to keep.  *ret is a new BTF over the same
 * base; *ret_map (d2b_btf__end_id(btf) entries, malloc()ed) gives each old
 * ID its new one, 0 for a type left out.
 */
int prune__funcs(const struct d2b_btf *btf, uint8_t *drop, struct d2b_btf **ret,
		 uint32_t **ret_map);

#endif
