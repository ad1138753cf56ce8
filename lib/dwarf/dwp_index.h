/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The unit index of a DWARF package file (.dwp, made by binutils' dwp or
 * llvm-dwp): .debug_cu_index and .debug_tu_index, version 2 (the GNU
 * extension to DWARF 4) and 5.  Each row says where one unit's
 * contributions lie in the package's .debug_*.dwo sections.  Theory in
 * dwp_index.c.
 */
#ifndef D2B_DWP_INDEX_H
#define D2B_DWP_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/die_reader.h"

struct diag;

/* The contributions the DIE reader uses. */
enum dwp_column {
	DWP_UNITS,		/* .debug_info.dwo, or .debug_types.dwo (version 2 type units) */
	DWP_ABBREV,
	DWP_STR_OFFSETS,
	DWP_NR,
};

struct dwp_row {
	uint64_t sig;		/* the dwo_id, or a type unit's signature */
	uint64_t off[DWP_NR];	/* contribution offsets; absent: 0, size 0 */
	uint64_t size[DWP_NR];
	uint8_t sec;		/* enum die_section of DWP_UNITS: DIE_SEC_INFO or _TYPES */
	bool is_type;		/* from .debug_tu_index */
};

/*
 * Append the rows of one index (cu_index or tu_index, is_tu says which)
 * to *rows, checking every contribution against the sizes of secs (the
 * package's sections, indexed by enum die_section).  -EINVAL for a
 * damaged index, -ENOMEM; either said through diag (an error).
 */
int dwp_index__parse(const struct die_bytes *index, bool is_tu, bool big_endian,
		     const struct die_bytes *secs, struct dwp_row **rows, size_t *nr,
		     size_t *cap, struct diag *diag);

#endif
