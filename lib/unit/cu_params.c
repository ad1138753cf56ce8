// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How a function's code receives its parameters, as pahole 1.32 judges it
 * for the kernel's function policy (D2B_KERNEL_POLICY_PAHOLE_1_32).
 *
 * The question: may a tracer that attaches to the function's symbol read
 * its parameters where the ABI puts them, in the order the prototype says?
 * One pass over the parameter DIEs of the function's code (die: a
 * definition, or an out-of-line instance of an inlined function) answers
 * with flags:
 *
 *   - each parameter's register on entry: the first location's DW_OP_regN
 *     (or DW_OP_bregN of a DW_OP_stack_value), else the first
 *     DW_OP_entry_value(DW_OP_regN) of any location.  Parameters take the
 *     ABI's registers in order; an aggregate of up to two words takes two
 *     (on all targets but s390), a larger one is passed in memory and, in
 *     clang's code, takes none;
 *   - GCC's code, or clang's whose signature changed (DW_AT_calling_
 *     convention DW_CC_nocall on the function or its abstract origin): a
 *     parameter whose register is another than its slot's is unexpected,
 *     one with a location that names no register (while registers remain)
 *     is optimized out, and so is one with DW_AT_const_value and no
 *     location in GCC's code;
 *   - clang's other code: a parameter with a register outside its slots is
 *     unexpected (clang marks a changed signature itself).  pahole counts
 *     8 parameter registers on ARC, MIPS, PowerPC and RISC-V (6 on SPARC)
 *     but names none of them: there any register is unexpected, so pahole
 *     1.32 leaves out clang's functions that take parameters in registers;
 *   - any parameter without a location is optimized out;
 *   - a parameter whose abstract origin is at another position among its
 *     function's parameters is reordered (GCC's .isra clones list the
 *     parameters they kept first).
 *
 * UNIT_FUNC_UNEXPECTED_REG is set when some parameter is unexpected and
 * none is a struct (which may take several registers and shift the rest,
 * so pahole does not trust the count).  The policy (lib/kernel/
 * func_policy.c) then combines these with the ELF symbols.
 *
 * Locations are read by our own reader (dwarf/die_loc.c) where it can, and
 * by libdw otherwise (split units, aggregates in pieces).
 */
#include <dwarf.h>
#include <string.h>

#include "dwarf/die_loc.h"
#include "dwarf/die_reader.h"
#include "unit/cu_params.h"

enum {
	REG_UNKNOWN = -1,	/* no register read from the location */
	REG_LIBDW = -2,		/* only libdw can read this location */
};

/* The byte size of die's type (pahole's measure: a pointer is a word, a
 * type without DW_AT_byte_size is its own type's size), 0 if none. */
static uint64_t type_size(struct cu *w, const struct cu_die *die)
{
	struct cu_die owner, t;
	struct die_attr a;
	uint64_t size;
	int hops;

	if (!cu__attr_integrate(w, die, DW_AT_type, &a, &owner) || !cu__ref(w, &owner, &a, &t))
		return 0;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (t.d.tag == DW_TAG_pointer_type)
			return w->ptr_size;
		if (cu__attr_udata(w, &t, DW_AT_byte_size, &size) && size)
			return size;
		if (!cu__ref_attr(w, &t, DW_AT_type, &t))
			return 0;
	}
	return 0;
}

static bool is_reg(unsigned int atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool is_breg(unsigned int atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg31;
}

/*
 * One location's contribution to the register, from its operation count
 * n, first and last operations, and (for an entry value) the inner
 * expression's count and operation; big: an aggregate of two words, whose
 * pieces only libdw's full decoding reads.  Returns a DW_OP_regN,
 * REG_UNKNOWN or REG_LIBDW.
 */
static int loc_reg(size_t n, unsigned int first, unsigned int last, bool loc0, bool big,
		   size_t inner_n, unsigned int inner)
{
	bool stack_value = n > 0 && last == DW_OP_stack_value;

	if (n == 2 && stack_value)
		n = 1;
	if (n == 0)
		return REG_UNKNOWN;
	if (first == DW_OP_lit0 || (first > DW_OP_lit0 && first <= DW_OP_lit31) ||
	    first == DW_OP_constu || first == DW_OP_consts)
		return REG_UNKNOWN;
	if (n > 1 && big)
		return REG_LIBDW;
	if (is_reg(first))
		return loc0 ? (int)first : REG_UNKNOWN;
	if (is_breg(first))
		return loc0 && stack_value ? (int)(first - DW_OP_breg0 + DW_OP_reg0) : REG_UNKNOWN;
	if (n == 1 && (first == DW_OP_entry_value || first == DW_OP_GNU_entry_value))
		return inner_n == 1 && is_reg(inner) ? (int)inner : REG_UNKNOWN;
	return REG_UNKNOWN;
}

/* The register of param's location a, by our reader, or REG_LIBDW. */
static int param_reg_fast(const struct cu_die *param, const struct die_attr *a, bool big)
{
	struct die_op first, last, inner, inner_last;
	struct die_loc_iter it;
	const uint8_t *expr;
	size_t len, n, inner_n;
	bool loc0 = true;
	int r;

	if (die_loc__begin(param->du, a, &it))
		return REG_LIBDW;
	while ((r = die_loc__next(&it, &expr, &len)) > 0) {
		if (die_expr__ops(param->du, expr, len, &n, &first, &last))
			return REG_LIBDW;
		inner_n = 0;
		inner.atom = 0;
		if (n && (first.atom == DW_OP_entry_value || first.atom == DW_OP_GNU_entry_value) &&
		    die_expr__ops(param->du, first.block, first.block_len, &inner_n, &inner,
				  &inner_last))
			return REG_LIBDW;
		r = loc_reg(n, first.atom, n ? last.atom : 0, loc0, big, inner_n, inner.atom);
		if (r != REG_UNKNOWN)
			return r;
		loc0 = false;
	}
	return r < 0 ? REG_LIBDW : REG_UNKNOWN;
}

/* An aggregate's pieces: the first register named in them. */
static int pieces_reg(const Dwarf_Op *expr, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (is_reg(expr[i].atom))
			return (int)expr[i].atom;
	}
	return REG_UNKNOWN;
}

/* The same answer by libdw. */
static int param_reg_libdw(struct cu *w, const struct cu_die *param, bool big)
{
	Dwarf_Attribute attr, entry;
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	size_t len, inner_len;
	ptrdiff_t off = 0;
	Dwarf_Die die;
	bool loc0 = true;
	int r;

	if (!cu__libdw_die(w, param, &die) || !dwarf_attr(&die, DW_AT_location, &attr))
		return REG_UNKNOWN;
	while ((off = dwarf_getlocations(&attr, off, &base, &start, &end, &expr, &len)) > 0) {
		size_t n = len && expr[len - 1].atom == DW_OP_stack_value && len == 2 ? 1 : len;

		inner_len = 0;
		inner = NULL;
		if (len && (expr[0].atom == DW_OP_entry_value || expr[0].atom == DW_OP_GNU_entry_value) &&
		    (dwarf_getlocation_attr(&attr, expr, &entry) != 0 ||
		     dwarf_getlocation(&entry, &inner, &inner_len) != 0))
			inner_len = 0;
		if (n > 1 && big && len && expr[0].atom != DW_OP_constu &&
		    expr[0].atom != DW_OP_consts &&
		    !(expr[0].atom >= DW_OP_lit0 && expr[0].atom <= DW_OP_lit31))
			r = pieces_reg(expr, len);
		else
			r = loc_reg(len, len ? expr[0].atom : 0, len ? expr[len - 1].atom : 0, loc0,
				    false, inner_len, inner_len ? inner[0].atom : 0);
		if (r != REG_UNKNOWN)
			return r;
		loc0 = false;
	}
	return REG_UNKNOWN;
}

/* The register param arrives in, or REG_UNKNOWN. */
static int param_reg(struct cu *w, const struct cu_die *param, const struct die_attr *loc,
		     bool big)
{
	int r = param_reg_fast(param, loc, big);

	return r == REG_LIBDW ? param_reg_libdw(w, param, big) : r;
}

/* Is param a struct passed by value (through typedefs and const)? */
static bool is_struct(struct cu *w, const struct cu_die *param)
{
	struct cu_die owner, t;
	struct die_attr a;
	int hops;

	if (!cu__attr_integrate(w, param, DW_AT_type, &a, &owner) || !cu__ref(w, &owner, &a, &t))
		return false;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (t.d.tag == DW_TAG_structure_type)
			return true;
		if (t.d.tag != DW_TAG_typedef && t.d.tag != DW_TAG_const_type)
			return false;
		if (!cu__ref_attr(w, &t, DW_AT_type, &t))
			return false;
	}
	return false;
}

/* The position of the parameter DIE at offset off among fn's parameters,
 * or -1. */
static int param_index(struct cu *w, const struct cu_die *fn, uint64_t off)
{
	struct cu_die child;
	int idx = 0;

	if (!cu__child(w, fn, &child))
		return -1;
	do {
		if (child.d.tag != DW_TAG_formal_parameter)
			continue;
		if (child.d.off == off && child.du == fn->du)
			return idx;
		idx++;
	} while (cu__next(w, &child));
	return -1;
}

/* Does die (or its abstract origin) say that clang changed its calling
 * convention? */
static bool nocall(struct cu *w, const struct cu_die *die)
{
	struct cu_die origin;
	uint64_t cc;

	if (cu__has_attr(die, DW_AT_inline))
		return false;
	if (cu__ref_attr(w, die, DW_AT_abstract_origin, &origin))
		return cu__attr_udata(w, &origin, DW_AT_calling_convention, &cc) &&
		       cc == DW_CC_nocall;
	return cu__attr_udata(w, die, DW_AT_calling_convention, &cc) && cc == DW_CC_nocall;
}

/* The ABI's register for parameter slot i, or -1 where pahole knows none */
static int slot_reg(const struct cu *w, int i)
{
	return i < w->nr_reg_params ? w->reg_params[i] : -1;
}

struct slot_walk {
	int reg_idx;		/* the next ABI register slot */
	bool unexpected, has_struct;
	uint32_t flags;
};

/* One parameter of code that gives no signature change (clang's). */
static void clang_param(struct cu *w, const struct cu_die *p, struct slot_walk *s)
{
	uint64_t size = type_size(w, p), word = w->ptr_size;
	int slots = w->agg_two_regs && size > word ? (int)((size + word - 1) / word) : 1;
	struct die_attr loc;
	int reg, i;

	if (!cu__attr(w, p, DW_AT_location, &loc))
		s->flags |= UNIT_FUNC_OPTIMIZED;
	if (size > (w->agg_two_regs ? 2 : 1) * word || s->reg_idx >= w->nr_param_slots)
		return;
	/* (a register pahole cannot name is never the expected one) */
	if (cu__has_attr(p, DW_AT_location)) {
		reg = param_reg(w, p, &loc, size > word && w->agg_two_regs);
		if (reg != REG_UNKNOWN) {
			for (i = 0; i < slots && s->reg_idx + i < w->nr_param_slots; i++) {
				if (reg == slot_reg(w, s->reg_idx + i))
					break;
			}
			if (i == slots || s->reg_idx + i >= w->nr_param_slots)
				s->unexpected = true;
		}
	}
	s->reg_idx += slots;
}

/* One parameter of GCC's code, or of clang's with a changed signature. */
static void gcc_param(struct cu *w, const struct cu_die *p, struct slot_walk *s)
{
	uint64_t size = type_size(w, p), word = w->ptr_size;
	int slots = w->agg_two_regs && size > word ? (int)((size + word - 1) / word) : 1;
	bool in_memory = size > (w->agg_two_regs ? 2 : 1) * word;
	struct die_attr loc;
	int reg;

	if (!cu__attr(w, p, DW_AT_location, &loc)) {
		s->flags |= UNIT_FUNC_OPTIMIZED;
		s->reg_idx += in_memory ? 1 : slots;
		return;
	}
	if (s->reg_idx >= w->nr_param_slots)
		return;
	reg = param_reg(w, p, &loc, size > word && w->agg_two_regs);
	if (reg == REG_UNKNOWN)
		s->flags |= UNIT_FUNC_OPTIMIZED;
	else if (slot_reg(w, s->reg_idx) >= 0 && reg != slot_reg(w, s->reg_idx))
		s->unexpected = true;
	s->reg_idx += in_memory ? 1 : slots;
}

uint32_t cu_params__judge(struct cu *w, const struct cu_die *die)
{
	struct slot_walk s = { 0 };
	struct cu_die child, origin, oparam;
	bool changed = w->clang && nocall(w, die);
	int idx = 0;

	if (changed)
		s.flags |= UNIT_FUNC_NOCALL;
	if (!cu__child(w, die, &child))
		return s.flags;
	do {
		if (child.d.tag != DW_TAG_formal_parameter)
			continue;
		if (w->clang && !changed)
			clang_param(w, &child, &s);
		else
			gcc_param(w, &child, &s);
		if (!s.has_struct && is_struct(w, &child))
			s.has_struct = true;
		/* a parameter without a type of its own names its declaration */
		if (!cu__has_attr(&child, DW_AT_type) &&
		    cu__ref_attr(w, &child, DW_AT_abstract_origin, &oparam) &&
		    cu__ref_attr(w, die, DW_AT_abstract_origin, &origin) &&
		    param_index(w, &origin, oparam.d.off) != idx)
			s.flags |= UNIT_FUNC_REORDERED;
		idx++;
	} while (cu__next(w, &child));
	if (s.unexpected && !s.has_struct)
		s.flags |= UNIT_FUNC_UNEXPECTED_REG;
	return s.flags;
}
