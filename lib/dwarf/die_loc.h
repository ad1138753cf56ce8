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

/*
 * The expression of location attribute a (of a DIE of u) that holds at
 * address pc: a block holds everywhere; of a list, the entry whose range
 * holds pc (addresses as the unit's DIEs give them, base the unit's base
 * address, its DW_AT_low_pc), else the last entry of an empty range at pc
 * (GCC's location views: the value is there at some view of pc, as at an
 * inlined call's entry), else a DWARF 5 default entry.  A DW_FORM_loclistx
 * list is found through the unit's DW_AT_loclists_base.  1 (with its
 * bytes), 0 if none holds there, -EOPNOTSUPP for what is not read here.
 */
int die_loc__at(struct die_unit *u, const struct die_attr *a, uint64_t base, uint64_t pc,
		const uint8_t **expr, size_t *len);

/* What a location expression says a value is (die_expr__value()) */
enum die_val_kind {
	DIE_VAL_NONE,		/* nothing this reader can say */
	DIE_VAL_REG,		/* in register reg */
	DIE_VAL_REG_PAIR,	/* in registers reg (low piece) and reg2 */
	DIE_VAL_MEM,		/* in memory at reg + off (reg DIE_REG_FRAME_BASE: the frame base) */
	DIE_VAL_REG_OFF,	/* the value reg + off itself */
	DIE_VAL_CONST,		/* the constant value (negative if is_signed and sign set) */
	DIE_VAL_ADDR,		/* the address value (a DW_OP_addr's) */
	DIE_VAL_ENTRY_REG,	/* register reg's value on entry to the function around */
};

enum { DIE_REG_FRAME_BASE = 0xffffffffu };

struct die_val {
	enum die_val_kind kind;
	uint32_t reg, reg2;
	int64_t off;		/* DIE_VAL_MEM, DIE_VAL_REG_OFF */
	uint64_t value;		/* DIE_VAL_CONST, DIE_VAL_ADDR */
	bool is_signed;		/* DIE_VAL_CONST: an operation of a signed operand */
	uint64_t size;		/* DIE_VAL_CONST of DW_OP_implicit_value: its bytes; pieces: the
				 * first piece's */
};

/*
 * What expression [p, p + len), of a unit of u's shape, says a value is:
 * one register or two pieces in registers, memory at a register (or the
 * frame base) plus an offset, a register plus an offset, a constant, an
 * address (or one plus a constant), a register's entry value.  Anything else is DIE_VAL_NONE.
 * 0, or -EOPNOTSUPP for damaged bytes.  (u is only read: DW_OP_addrx
 * through its .debug_addr table.)
 */
int die_expr__value(struct die_unit *u, const uint8_t *p, size_t len, struct die_val *ret);

#endif
