// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Location descriptions: theory
 *
 * A parameter's DW_AT_location says where it lives: one expression (a
 * block form), or a location list -- DWARF 4's .debug_loc (address pairs,
 * then a 2-byte length and the expression) or DWARF 5's .debug_loclists
 * (DW_LLE_* entries, a ULEB128 length and the expression).  dwarf2btf
 * only asks which register holds a parameter on entry, and libdw
 * (dwarf_attr() and dwarf_getlocations() on a libdw DIE) would parse and
 * cache every operation of every expression to answer it.  Here the same
 * expressions are found in the same order
 * straight from the section bytes, and an expression's operations are
 * only counted and their first and last opcodes kept.
 *
 * libdw stays the reference.  Its order is followed entry for entry
 * (libdw/dwarf_getlocation.c, getlocations_addr(); dwarf_ranges.c,
 * __libdw_read_begin_end_pair_inc()): base address entries give no
 * expression, every other entry does (empty ranges and
 * DW_LLE_default_location included), the list ends at its end entry.
 * Whatever libdw could answer differently is not answered here:
 * -EOPNOTSUPP, and the caller asks libdw for the whole attribute.  That
 * covers split DWARF and packages, DW_FORM_loclistx and the pre-DWARF-4
 * data4/data8 offsets, entries with indexed addresses (libdw resolves
 * them, and may fail), address sizes other than 4 and 8, operations
 * outside the table below (libdw checks branch targets, for one), and any
 * damaged byte.  tests/unit/test_die_reader.c compares the answers with
 * libdw's on every fixture's parameters.
 */
#include <errno.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/die_internal.h"
#include "dwarf/die_loc.h"

int die_loc__begin(struct die_unit *u, const struct die_attr *a, struct die_loc_iter *it)
{
	const struct die_reader *r = u->r;
	const struct die_bytes *sec;

	memset(it, 0, sizeof(*it));
	if (r->dwo || r->nr_pkg || u->hdr.unit_type == DW_UT_skeleton ||
	    u->hdr.unit_type == DW_UT_split_compile || u->hdr.unit_type == DW_UT_split_type)
		return -EOPNOTSUPP;
	switch (a->form) {
	case DW_FORM_exprloc:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
		it->p = a->block;
		it->end = a->block + a->len;
		return 0;
	case DW_FORM_sec_offset:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (u->hdr.version < 4 || (u->hdr.addr_size != 4 && u->hdr.addr_size != 8))
		return -EOPNOTSUPP;
	sec = &r->loc[u->hdr.version >= 5];
	if (!sec->buf || a->u >= sec->size)
		return -EOPNOTSUPP;
	it->list = true;
	it->p = sec->buf + a->u;
	it->end = sec->buf + sec->size;
	it->version = u->hdr.version;
	it->addr_size = u->hdr.addr_size;
	it->big_endian = r->big_endian;
	return 0;
}

/* The expression after a list entry's range: its length, then its bytes. */
static int entry_expr(struct die_loc_iter *it, const uint8_t **expr, size_t *len)
{
	uint64_t n;

	if (it->version < 5) {
		if (it->end - it->p < 2)
			return -EOPNOTSUPP;
		n = rd_n(it->p, 2, it->big_endian);
		it->p += 2;
	} else if (uleb(&it->p, it->end, &n)) {
		return -EOPNOTSUPP;
	}
	if (n > (uint64_t)(it->end - it->p))
		return -EOPNOTSUPP;
	*expr = it->p;
	*len = (size_t)n;
	it->p += n;
	return 1;
}

/* One DWARF 4 entry: 1 an expression, 0 the end, 2 a base address. */
static int next_loc(struct die_loc_iter *it)
{
	unsigned int w = it->addr_size;
	uint64_t escape = w == 8 ? UINT64_MAX : UINT32_MAX, begin, end;

	if ((size_t)(it->end - it->p) < 2 * (size_t)w)
		return -EOPNOTSUPP;
	begin = rd_n(it->p, w, it->big_endian);
	end = rd_n(it->p + w, w, it->big_endian);
	it->p += 2 * w;
	if (begin == escape)
		return end == escape ? -EOPNOTSUPP : 2;
	return begin == 0 && end == 0 ? 0 : 1;
}

/* One DWARF 5 entry, as next_loc(). */
static int next_loclists(struct die_loc_iter *it)
{
	unsigned int w = it->addr_size;
	uint64_t v;

	if (it->p >= it->end)
		return -EOPNOTSUPP;
	switch (*it->p++) {
	case DW_LLE_end_of_list:
		return 0;
	case DW_LLE_offset_pair:
		return uleb(&it->p, it->end, &v) || uleb(&it->p, it->end, &v) ?
		       -EOPNOTSUPP : 1;
	case DW_LLE_default_location:
		return 1;
	case DW_LLE_base_address:
		if ((size_t)(it->end - it->p) < w)
			return -EOPNOTSUPP;
		it->p += w;
		return 2;
	case DW_LLE_start_end:
		if ((size_t)(it->end - it->p) < 2 * (size_t)w)
			return -EOPNOTSUPP;
		it->p += 2 * w;
		return 1;
	case DW_LLE_start_length:
		if ((size_t)(it->end - it->p) < w)
			return -EOPNOTSUPP;
		it->p += w;
		return uleb(&it->p, it->end, &v) ? -EOPNOTSUPP : 1;
	default:	/* the indexed forms (libdw resolves them), or damage */
		return -EOPNOTSUPP;
	}
}

int die_loc__next(struct die_loc_iter *it, const uint8_t **expr, size_t *len)
{
	int r;

	if (it->done)
		return 0;
	if (!it->list) {
		it->done = true;
		*expr = it->p;
		*len = (size_t)(it->end - it->p);
		return 1;
	}
	do
		r = it->version < 5 ? next_loc(it) : next_loclists(it);
	while (r == 2);
	if (r <= 0) {
		it->done = true;
		return r;
	}
	return entry_expr(it, expr, len);
}

/* How an operation's operands are laid out. */
enum operands {
	OPS_UNKNOWN,	/* not read here */
	OPS_NONE,
	OPS_1, OPS_2, OPS_4, OPS_8,
	OPS_ADDR,	/* one address */
	OPS_ULEB, OPS_SLEB,
	OPS_ULEB_SLEB,	/* DW_OP_bregx */
	OPS_ULEB_ULEB,	/* DW_OP_bit_piece */
	OPS_BLOCK,	/* a ULEB128 length, then that many bytes */
};

static enum operands operands_of(uint8_t op)
{
	if ((op >= DW_OP_lit0 && op <= DW_OP_lit31) || (op >= DW_OP_reg0 && op <= DW_OP_reg31))
		return OPS_NONE;
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		return OPS_SLEB;
	switch (op) {
	case DW_OP_deref: case DW_OP_dup: case DW_OP_drop: case DW_OP_over:
	case DW_OP_swap: case DW_OP_rot: case DW_OP_xderef: case DW_OP_abs:
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
	case DW_OP_mul: case DW_OP_neg: case DW_OP_not: case DW_OP_or:
	case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt:
	case DW_OP_le: case DW_OP_lt: case DW_OP_ne: case DW_OP_nop:
	case DW_OP_push_object_address: case DW_OP_form_tls_address:
	case DW_OP_call_frame_cfa: case DW_OP_stack_value: case DW_OP_GNU_push_tls_address:
		return OPS_NONE;
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_pick:
	case DW_OP_deref_size: case DW_OP_xderef_size:
		return OPS_1;
	case DW_OP_const2u: case DW_OP_const2s:
		return OPS_2;
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_GNU_parameter_ref:
		return OPS_4;
	case DW_OP_const8u: case DW_OP_const8s:
		return OPS_8;
	case DW_OP_addr:
		return OPS_ADDR;
	case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx: case DW_OP_piece:
	case DW_OP_addrx: case DW_OP_constx:
		return OPS_ULEB;
	case DW_OP_consts: case DW_OP_fbreg:
		return OPS_SLEB;
	case DW_OP_bregx:
		return OPS_ULEB_SLEB;
	case DW_OP_bit_piece:
		return OPS_ULEB_ULEB;
	case DW_OP_implicit_value: case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		return OPS_BLOCK;
	default:
		return OPS_UNKNOWN;
	}
}

int die_expr__ops(const struct die_unit *u, const uint8_t *p, size_t len, size_t *nr,
		  struct die_op *first, struct die_op *last)
{
	const uint8_t *end = p + len;
	size_t addr_size = u->hdr.addr_size;

	*nr = 0;
	while (p < end) {
		struct die_op op = { .atom = *p++ };
		uint64_t v;
		int64_t s;
		size_t fixed = 0;

		switch (operands_of(op.atom)) {
		case OPS_UNKNOWN:
			return -EOPNOTSUPP;
		case OPS_NONE:
			break;
		case OPS_1: fixed = 1; break;
		case OPS_2: fixed = 2; break;
		case OPS_4: fixed = 4; break;
		case OPS_8: fixed = 8; break;
		case OPS_ADDR:
			if (addr_size != 4 && addr_size != 8)
				return -EOPNOTSUPP;
			fixed = addr_size;
			break;
		case OPS_ULEB:
			if (uleb(&p, end, &v))
				return -EOPNOTSUPP;
			break;
		case OPS_SLEB:
			if (sleb(&p, end, &s))
				return -EOPNOTSUPP;
			break;
		case OPS_ULEB_SLEB:
			if (uleb(&p, end, &v) || sleb(&p, end, &s))
				return -EOPNOTSUPP;
			break;
		case OPS_ULEB_ULEB:
			if (uleb(&p, end, &v) || uleb(&p, end, &v))
				return -EOPNOTSUPP;
			break;
		case OPS_BLOCK:
			if (uleb(&p, end, &v) || v > (uint64_t)(end - p))
				return -EOPNOTSUPP;
			op.block = p;
			op.block_len = v;
			p += v;
			break;
		}
		if (fixed > (size_t)(end - p))
			return -EOPNOTSUPP;
		p += fixed;
		if (!*nr)
			*first = op;
		*last = op;
		(*nr)++;
	}
	return 0;
}

/*
 * Where an expression holds (die_loc__at()): a list's entries with their
 * ranges.  Unlike die_loc__next(), which gives what libdw gives, this
 * reads the indexed entries of DWARF 5 too (through the unit's .debug_addr
 * table): nobody compares it with libdw, it answers where a list holds.
 */
struct loc_range {
	uint64_t lo, hi;
	bool dflt;		/* DW_LLE_default_location: wherever no other holds */
};

/* A DWARF 4 entry: 1 an expression for *r, 0 the end. */
static int range_loc(struct die_loc_iter *it, uint64_t *base, struct loc_range *r)
{
	unsigned int w = it->addr_size;
	uint64_t escape = w == 8 ? UINT64_MAX : UINT32_MAX, begin, end;

	for (;;) {
		if ((size_t)(it->end - it->p) < 2 * (size_t)w)
			return -EOPNOTSUPP;
		begin = rd_n(it->p, w, it->big_endian);
		end = rd_n(it->p + w, w, it->big_endian);
		it->p += 2 * w;
		if (begin != escape)
			break;
		*base = end;
	}
	if (begin == 0 && end == 0)
		return 0;
	r->lo = *base + begin;
	r->hi = *base + end;
	r->dflt = false;
	return 1;
}

/* An address of the list (w bytes), or one through .debug_addr (ULEB index). */
static int list_addr(struct die_unit *u, struct die_loc_iter *it, bool indexed, uint64_t *ret)
{
	uint64_t idx;

	if (indexed)
		return uleb(&it->p, it->end, &idx) || die_unit__addrx(u, idx, ret) ? -EOPNOTSUPP : 0;
	if ((size_t)(it->end - it->p) < it->addr_size)
		return -EOPNOTSUPP;
	*ret = rd_n(it->p, it->addr_size, it->big_endian);
	it->p += it->addr_size;
	return 0;
}

/* A DWARF 5 entry, as range_loc(). */
static int range_loclists(struct die_unit *u, struct die_loc_iter *it, uint64_t *base,
			  struct loc_range *r)
{
	uint64_t a, b;
	uint8_t op;

	for (;;) {
		if (it->p >= it->end)
			return -EOPNOTSUPP;
		r->dflt = false;
		op = *it->p++;
		switch (op) {
		case DW_LLE_end_of_list:
			return 0;
		case DW_LLE_base_addressx:
		case DW_LLE_base_address:
			if (list_addr(u, it, op == DW_LLE_base_addressx, base))
				return -EOPNOTSUPP;
			continue;
		case DW_LLE_startx_endx:
		case DW_LLE_start_end:
			if (list_addr(u, it, op == DW_LLE_startx_endx, &r->lo) ||
			    list_addr(u, it, op == DW_LLE_startx_endx, &r->hi))
				return -EOPNOTSUPP;
			return 1;
		case DW_LLE_startx_length:
		case DW_LLE_start_length:
			if (list_addr(u, it, op == DW_LLE_startx_length, &r->lo) ||
			    uleb(&it->p, it->end, &b))
				return -EOPNOTSUPP;
			r->hi = r->lo + b;
			return 1;
		case DW_LLE_offset_pair:
			if (uleb(&it->p, it->end, &a) || uleb(&it->p, it->end, &b))
				return -EOPNOTSUPP;
			r->lo = *base + a;
			r->hi = *base + b;
			return 1;
		case DW_LLE_default_location:
			r->dflt = true;
			return 1;
		case DW_LLE_GNU_view_pair:	/* GCC's views of the next entry: not read */
			if (uleb(&it->p, it->end, &a) || uleb(&it->p, it->end, &b))
				return -EOPNOTSUPP;
			continue;
		default:
			return -EOPNOTSUPP;
		}
	}
}

/*
 * A DW_FORM_loclistx's list (DWARF 5, as clang writes them): entry idx of
 * the offsets table at the unit's DW_AT_loclists_base, as a sec_offset.
 */
static int loclistx(struct die_unit *u, uint64_t idx, struct die_attr *ret)
{
	const struct die_bytes *sec = &u->r->loc[1];
	unsigned int w = u->hdr.offset_size;
	struct die_attr b;
	struct die root;

	if (die_unit__root(u, &root) || die__attr(u, &root, DW_AT_loclists_base, &b) != 1 ||
	    !sec->buf || b.u > sec->size || idx >= (sec->size - b.u) / w)
		return -EOPNOTSUPP;	/* (no table, or idx past its end) */
	memset(ret, 0, sizeof(*ret));
	ret->name = DW_AT_location;
	ret->form = DW_FORM_sec_offset;
	ret->u = b.u + rd_n(sec->buf + b.u + idx * w, w, u->r->big_endian);
	return 0;
}

int die_loc__at(struct die_unit *u, const struct die_attr *a, uint64_t base, uint64_t pc,
		const uint8_t **expr, size_t *len)
{
	struct die_attr listed;
	const uint8_t *dflt = NULL, *at = NULL;
	size_t dflt_len = 0, at_len = 0;
	struct die_loc_iter it;
	struct loc_range r;
	int err;

	if (a->form == DW_FORM_loclistx && !u->r->dwo && !u->r->nr_pkg) {
		err = loclistx(u, a->u, &listed);
		if (err)
			return err;
		a = &listed;
	}
	err = die_loc__begin(u, a, &it);
	if (err)
		return err;
	if (!it.list)
		return die_loc__next(&it, expr, len);
	for (;;) {
		const uint8_t *e;
		size_t n;

		err = it.version < 5 ? range_loc(&it, &base, &r) : range_loclists(u, &it, &base, &r);
		if (err <= 0)
			break;
		err = entry_expr(&it, &e, &n);
		if (err < 0)
			return err;
		if (r.dflt) {
			dflt = e;
			dflt_len = n;
		} else if (pc >= r.lo && pc < r.hi) {
			*expr = e;
			*len = n;
			return 1;
		} else if (r.lo == pc && r.hi == pc) {
			at = e;		/* (the last such: the latest view) */
			at_len = n;
		}
	}
	if (err < 0)
		return err;
	if (at) {
		*expr = at;
		*len = at_len;
		return 1;
	}
	if (!dflt)
		return 0;
	*expr = dflt;
	*len = dflt_len;
	return 1;
}

/* One operation and its operands, decoded (die_expr__value()) */
struct expr_op {
	uint8_t atom;
	uint64_t a;		/* the first operand (a register, a constant, a length) */
	int64_t b;		/* the second (bregx's offset) */
	const uint8_t *block;	/* OPS_BLOCK's bytes (a bytes) */
};

static int read_op(const struct die_unit *u, const uint8_t **pp, const uint8_t *end,
		   struct expr_op *op)
{
	const uint8_t *p = *pp;
	bool be = u->r->big_endian;
	size_t fixed = 0;
	int64_t s;

	memset(op, 0, sizeof(*op));
	op->atom = *p++;
	switch (operands_of(op->atom)) {
	case OPS_UNKNOWN:
		return -EOPNOTSUPP;
	case OPS_NONE:
		break;
	case OPS_1: fixed = 1; break;
	case OPS_2: fixed = 2; break;
	case OPS_4: fixed = 4; break;
	case OPS_8: fixed = 8; break;
	case OPS_ADDR:
		if (u->hdr.addr_size != 4 && u->hdr.addr_size != 8)
			return -EOPNOTSUPP;
		fixed = u->hdr.addr_size;
		break;
	case OPS_ULEB:
		if (uleb(&p, end, &op->a))
			return -EOPNOTSUPP;
		break;
	case OPS_SLEB:
		if (sleb(&p, end, &s))
			return -EOPNOTSUPP;
		op->b = s;
		break;
	case OPS_ULEB_SLEB:
		if (uleb(&p, end, &op->a) || sleb(&p, end, &op->b))
			return -EOPNOTSUPP;
		break;
	case OPS_ULEB_ULEB:
		if (uleb(&p, end, &op->a) || uleb(&p, end, (uint64_t *)&op->b))
			return -EOPNOTSUPP;
		break;
	case OPS_BLOCK:
		if (uleb(&p, end, &op->a) || op->a > (uint64_t)(end - p))
			return -EOPNOTSUPP;
		op->block = p;
		p += op->a;
		break;
	}
	if (fixed > (size_t)(end - p))
		return -EOPNOTSUPP;
	if (fixed)
		op->a = rd_n(p, fixed, be);
	p += fixed;
	*pp = p;
	return 0;
}

enum { EXPR_MAX_OPS = 6 };	/* the longest pattern read: reg, piece, reg, piece */

/* A one-byte register operation (DW_OP_regN, DW_OP_regx): its register. */
static bool reg_of(const struct expr_op *op, uint32_t *reg)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		*reg = op->atom - DW_OP_reg0;
	else if (op->atom == DW_OP_regx && op->a <= UINT32_MAX - 1)
		*reg = (uint32_t)op->a;
	else
		return false;
	return true;
}

/* A register-relative operation (DW_OP_bregN, bregx, fbreg): register, offset. */
static bool breg_of(const struct expr_op *op, uint32_t *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		*reg = op->atom - DW_OP_breg0;
	else if (op->atom == DW_OP_bregx && op->a <= UINT32_MAX - 1)
		*reg = (uint32_t)op->a;
	else if (op->atom == DW_OP_fbreg)
		*reg = DIE_REG_FRAME_BASE;
	else
		return false;
	*off = op->b;
	return true;
}

/* A constant operation: its value, and whether its operand is signed. */
static bool const_of(const struct expr_op *op, uint64_t *v, bool *is_signed)
{
	*is_signed = false;
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*v = op->atom - DW_OP_lit0;
		return true;
	}
	switch (op->atom) {
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
	case DW_OP_constu:
		*v = op->a;
		return true;
	case DW_OP_const1s:
		*v = (uint64_t)(int64_t)(int8_t)op->a;
		break;
	case DW_OP_const2s:
		*v = (uint64_t)(int64_t)(int16_t)op->a;
		break;
	case DW_OP_const4s:
		*v = (uint64_t)(int64_t)(int32_t)op->a;
		break;
	case DW_OP_const8s:
		*v = op->a;
		break;
	case DW_OP_consts:
		*v = (uint64_t)op->b;
		break;
	default:
		return false;
	}
	*is_signed = true;
	return true;
}

/* The value a whole expression of n operations (DW_OP_stack_value taken off
 * the end: stack) says, into *v. */
static void value_of(struct die_unit *u, const struct expr_op *ops, size_t n, bool stack,
		     struct die_val *v)
{
	const struct expr_op *o = ops;

	if (n == 1 && !stack && reg_of(o, &v->reg)) {
		v->kind = DIE_VAL_REG;
	} else if (n == 1 && breg_of(o, &v->reg, &v->off)) {
		v->kind = stack ? DIE_VAL_REG_OFF : DIE_VAL_MEM;
	} else if (n == 1 && stack && const_of(o, &v->value, &v->is_signed)) {
		v->kind = DIE_VAL_CONST;
	} else if (n == 1 && stack && o->atom == DW_OP_addr) {
		v->value = o->a;
		v->kind = DIE_VAL_ADDR;
	} else if (n == 1 && stack && (o->atom == DW_OP_addrx || o->atom == DW_OP_GNU_addr_index)) {
		if (die_unit__addrx(u, o->a, &v->value) == 0)
			v->kind = DIE_VAL_ADDR;
	} else if (n == 1 && !stack && o->atom == DW_OP_implicit_value && o->a && o->a <= 8) {
		v->value = rd_n(o->block, (unsigned int)o->a, u->r->big_endian);
		v->size = o->a;
		v->kind = DIE_VAL_CONST;
	} else if (n == 1 && stack && (o->atom == DW_OP_entry_value ||
				       o->atom == DW_OP_GNU_entry_value)) {
		const uint8_t *p = o->block, *end = o->block + o->a;
		struct expr_op in;

		if (p < end && read_op(u, &p, end, &in) == 0 && p == end && reg_of(&in, &v->reg))
			v->kind = DIE_VAL_ENTRY_REG;
	} else if (n == 2 && stack && o->atom == DW_OP_addr && ops[1].atom == DW_OP_plus_uconst) {
		v->value = o->a + ops[1].a;	/* a member's address, &var.member */
		v->kind = DIE_VAL_ADDR;
	} else if (n == 4 && !stack && reg_of(&ops[0], &v->reg) && ops[1].atom == DW_OP_piece &&
		   reg_of(&ops[2], &v->reg2) && ops[3].atom == DW_OP_piece && ops[1].a &&
		   ops[1].a == ops[3].a) {
		v->size = ops[1].a;
		v->kind = DIE_VAL_REG_PAIR;
	}
}

int die_expr__value(struct die_unit *u, const uint8_t *p, size_t len, struct die_val *ret)
{
	const uint8_t *end = p + len;
	struct expr_op ops[EXPR_MAX_OPS];
	size_t n = 0;
	bool stack = false;

	memset(ret, 0, sizeof(*ret));
	while (p < end) {
		if (n == EXPR_MAX_OPS)
			return 0;	/* longer than any pattern: none */
		if (read_op(u, &p, end, &ops[n]))
			return operands_of(*p) == OPS_UNKNOWN ? 0 : -EOPNOTSUPP;
		n++;
	}
	if (n > 1 && ops[n - 1].atom == DW_OP_stack_value) {
		stack = true;
		n--;
	}
	if (n)
		value_of(u, ops, n, stack, ret);
	return 0;
}
