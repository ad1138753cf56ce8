/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Location descriptions read from the DIE reader's own bytes: the
 * expressions of a location attribute (one block, or a location list in
 * .debug_loc or .debug_loclists) in the order and number libdw's
 * dwarf_getlocations() gives them, and the operations of an expression.
 * Only what is read exactly as libdw reads it is answered; anything else
 * (split units, indexed addresses, the rarer operations, damaged bytes) is
 * -EOPNOTSUPP, and the caller asks libdw instead.
 */
#ifndef D2B_DIE_LOC_H
#define D2B_DIE_LOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/die_reader.h"

struct die_loc_iter {
	/* private */
	const uint8_t *p, *end;	/* the list (to its section's end), or the one block */
	unsigned int version, addr_size;
	bool big_endian;
	bool list, done;
};

/*
 * Start on the expressions of a (DW_AT_location of a DIE of u).  0, or
 * -EOPNOTSUPP for what only libdw reads.
 */
int die_loc__begin(struct die_unit *u, const struct die_attr *a, struct die_loc_iter *it);
/* The next expression: 1 (with its bytes), 0 at the end, -EOPNOTSUPP. */
int die_loc__next(struct die_loc_iter *it, const uint8_t **expr, size_t *len);

/* One operation of an expression. */
struct die_op {
	uint8_t atom;		/* DW_OP_* */
	const uint8_t *block;	/* DW_OP_entry_value's (and GNU_): its expression */
	uint64_t block_len;
};

/*
 * The operations of expression [p, p + len) in a unit of u's shape:
 * *nr of them, the first and last in *first and *last (when *nr > 0).
 * 0, or -EOPNOTSUPP for an operation not read here (or damaged bytes).
 */
int die_expr__ops(const struct die_unit *u, const uint8_t *p, size_t len, size_t *nr,
		  struct die_op *first, struct die_op *last);

#endif
