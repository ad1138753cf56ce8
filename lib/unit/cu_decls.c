// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Declarations of one compile unit: defined functions become FUNC (with a
 * FUNC_PROTO naming the parameters), variables with a static address become
 * cu_var records for the DATASECs made after all units are merged.
 *
 * A function's DIE may be an out-of-line instance of an inlined one, or a
 * definition completing an earlier declaration: its name, type, linkage and
 * parameter list are then read from the DIE it points to
 * (DW_AT_abstract_origin, DW_AT_specification), which describes the
 * function as declared, not as the optimizer left it -- except with
 * d2b_opts.true_signature, where a GCC clone whose parameters differ from
 * its origin's gets the prototype of what its code takes (clone_proto()).
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "unit/cu_annot.h"
#include "unit/cu_decls.h"
#include "unit/cu_scope.h"
#include "unit/cu_truesig.h"
#include "unit/cu_types.h"
#include "dwarf/die_loc.h"
#include "dwarf/die_reader.h"
#include "dwarf/dwarf_file.h"
#include "base/ptr_cache.h"
#include "base/vec.h"

/* A flag of die or of the DIE it completes (DW_AT_external). */
static bool has_flag(struct cu *w, const struct cu_die *die, unsigned int name)
{
	struct die_attr a;

	return cu__attr_integrate(w, die, name, &a, NULL) &&
	       (a.form == DW_FORM_flag || a.form == DW_FORM_flag_present) && a.u;
}

/* A declaration itself, not a definition completing one: DW_AT_declaration
 * must not be inherited through DW_AT_specification. */
static bool is_declaration(struct cu *w, const struct cu_die *die)
{
	return cu__flag(w, die, DW_AT_declaration);
}

/* The DIE that declares what die defines (bounded: files can loop). */
static void declaring_die(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	struct die_attr attr;
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__attr(w, ret, DW_AT_abstract_origin, &attr) &&
		    !cu__attr(w, ret, DW_AT_specification, &attr))
			return;
		if (!cu__ref(w, ret, &attr, ret))
			return;
	}
}

/*
 * The definition die completes, through DW_AT_abstract_origin only: a
 * C++ member function's definition, whose parameters are named ("this"
 * too), where the declaration inside its class names none.
 */
static void defining_die(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	int hops;

	*ret = *die;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (!cu__ref_attr(w, ret, DW_AT_abstract_origin, ret))
			return;
	}
}

/*
 * A function's parameters, read once.  Up to four passes ask for them
 * (their names, the registers they arrive in, the prototype, their
 * declaration tags), and for a function that has code each would read
 * past the first DIEs of its body again (its local variables, blocks and
 * inlined calls).  So cu_decls__subprogram() reads the parameters (and
 * varargs) of its declaring DIE once into uw->params (read_params()), and
 * the passes over that DIE's parameters take them from there
 * (next_param()); over another DIE, they read its children.  Where that
 * DIE is the function's own (it has code, and declares itself), the same
 * read lists its lexical blocks and types, which unit.c walks next for
 * the types local to the function (uw->locals): a read fewer again.
 */
static int read_params(struct cu *w, const struct cu_die *decl, const struct cu_die *die)
{
	struct unit_walker *uw = w->uw;
	bool locals = cu__same(decl, die);
	struct cu_die child;
	int err = 0;

	uw->nr_params = uw->nr_locals = 0;
	uw->params_of = *decl;
	uw->locals_of.du = NULL;
	if (!cu__child(w, decl, &child))
		goto out;
	do {
		unsigned int tag = child.d.tag;

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_unspecified_parameters) {
			err = VEC_RESERVE(uw->params, uw->params_cap, uw->nr_params, 1);
			if (err)
				break;
			uw->params[uw->nr_params++] = child;
		} else if (locals && (tag == DW_TAG_lexical_block || cu__is_type_tag(tag))) {
			err = VEC_RESERVE(uw->locals, uw->locals_cap, uw->nr_locals, 1);
			if (err)
				break;
			uw->locals[uw->nr_locals++] = child;
		}
	} while (cu__next(w, &child));
out:
	if (err)
		uw->params_of.du = NULL;
	else if (locals)
		uw->locals_of = *die;
	return err;
}

/* Are fn's parameters in uw->params? */
static bool params_read(const struct cu *w, const struct cu_die *fn)
{
	return w->uw->params_of.du && cu__same(fn, &w->uw->params_of);
}

enum { PARAMS_BEGIN, PARAMS_LISTED, PARAMS_READING, PARAMS_DONE };

struct params_iter {
	int state;		/* PARAMS_*; PARAMS_BEGIN (0) to begin */
	size_t next;		/* listed: the next of uw->params */
	struct cu_die kid;	/* reading: the last child read */
};

/* The next DW_TAG_formal_parameter child of fn, into *ret. */
static bool next_param(struct cu *w, const struct cu_die *fn, struct params_iter *it,
		       struct cu_die *ret)
{
	struct unit_walker *uw = w->uw;
	bool more;

	switch (it->state) {
	case PARAMS_BEGIN:
		if (params_read(w, fn)) {
			it->state = PARAMS_LISTED;
			return next_param(w, fn, it, ret);
		}
		it->state = PARAMS_READING;
		more = cu__child(w, fn, &it->kid);
		break;
	case PARAMS_LISTED:
		while (it->next < uw->nr_params) {
			*ret = uw->params[it->next++];
			if (ret->d.tag == DW_TAG_formal_parameter)
				return true;
		}
		return false;
	case PARAMS_READING:
		more = cu__next(w, &it->kid);
		break;
	default:
		return false;
	}
	for (; more; more = cu__next(w, &it->kid)) {
		if (it->kid.d.tag == DW_TAG_formal_parameter) {
			*ret = it->kid;
			return true;
		}
	}
	it->state = PARAMS_DONE;
	return false;
}

/* All parameters named?  (FUNC requires it of every non-varargs one.) */
static const char *unnamed_param(struct cu *w, const struct cu_die *decl)
{
	struct params_iter it = { 0 };
	struct cu_die p;

	while (next_param(w, decl, &it, &p)) {
		const char *name = cu__name(w, &p);

		if (!name || !*name)
			return "unnamed parameter";
	}
	return NULL;
}

/*
 * The register that holds a parameter on entry, per its DW_AT_location:
 * DW_OP_regN as the first location, or DW_OP_entry_value(DW_OP_regN) in
 * any, preferring the one the ABI expects.  -1 if none (optimized out).
 * Read by libdw (param_reg()) or by die_loc.c (param_reg_fast()), one
 * location after the other, each judged by loc_reg().
 */
enum {
	LOC_SKIP = -1,		/* this location names no register */
	LOC_ENTRY = -3,		/* an entry value: its expression's single operation decides */
	REG_ASK_LIBDW = -2,	/* param_reg_fast(): only libdw can answer */
};

/*
 * A location of n operations (first and last given; a trailing
 * DW_OP_stack_value does not count), the nth_first'th: its register, or
 * LOC_SKIP, or LOC_ENTRY.
 */
static int loc_reg(size_t n, unsigned int first, unsigned int last, bool nth_first)
{
	if (n > 1 && last == DW_OP_stack_value)
		n--;
	if (n != 1)
		return LOC_SKIP;
	if (first >= DW_OP_reg0 && first <= DW_OP_reg31)
		return nth_first ? (int)first : LOC_SKIP;
	if (first == DW_OP_entry_value || first == DW_OP_GNU_entry_value)
		return LOC_ENTRY;
	return LOC_SKIP;
}

static int param_reg(Dwarf_Attribute *loc, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	size_t len, inner_len;
	ptrdiff_t off = 0;
	int nth = 0, reg = -1, r;

	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &expr, &len)) > 0) {
		r = loc_reg(len, len ? expr[0].atom : 0, len ? expr[len - 1].atom : 0, nth++ == 0);
		if (r == LOC_ENTRY) {
			if (!cu__entry_value(loc, expr, &inner, &inner_len) || inner_len != 1)
				continue;
			r = inner->atom;
		}
		if (r == LOC_SKIP)
			continue;
		reg = r;
		if (reg == expected)
			break;
	}
	return reg;
}

/* param_reg() from our own reader (die_loc.c), for the parameter param:
 * the same answer, or REG_ASK_LIBDW. */
static int param_reg_fast(struct cu *w, const struct cu_die *param, int expected)
{
	struct die_op op, last;
	struct die_loc_iter it;
	struct die_attr a;
	const uint8_t *expr;
	size_t len, n;
	int nth = 0, reg = -1, r;

	if (!cu__attr(w, param, DW_AT_location, &a) || die_loc__begin(param->du, &a, &it))
		return REG_ASK_LIBDW;
	while ((r = die_loc__next(&it, &expr, &len)) > 0) {
		if (die_expr__ops(param->du, expr, len, &n, &op, &last))
			return REG_ASK_LIBDW;
		r = loc_reg(n, n ? op.atom : 0, n ? last.atom : 0, nth++ == 0);
		if (r == LOC_ENTRY) {
			if (die_expr__ops(param->du, op.block, op.block_len, &n, &op, &last))
				return REG_ASK_LIBDW;
			if (n != 1)
				continue;
			r = op.atom;
		}
		if (r == LOC_SKIP)
			continue;
		reg = r;
		if (reg == expected)
			return reg;
	}
	return r < 0 ? REG_ASK_LIBDW : reg;
}

/* The DIE die's DW_AT_type (integrated) points at. */
static bool type_die(struct cu *w, const struct cu_die *die, struct cu_die *ret)
{
	struct cu_die owner;
	struct die_attr a;

	return cu__attr_integrate(w, die, DW_AT_type, &a, &owner) && cu__ref(w, &owner, &a, ret);
}

/* The type DIE offset of a parameter, through its abstract origin. */
static uint64_t param_type(struct cu *w, const struct cu_die *param)
{
	struct cu_die t;

	return type_die(w, param, &t) ? t.d.off : 0;
}

/*
 * Does the out-of-line instance die take the parameters its abstract origin
 * declares?  A clone (foo.constprop.0, foo.isra.0) that lost some lists the
 * parameters it kept first; the types, position by position, then differ
 * from the declared ones (as pahole compares them: a clone whose remaining
 * types happen to line up passes).
 */
static bool same_params(struct cu *w, const struct cu_die *die, const struct cu_die *origin)
{
	struct cu_die a, b;
	bool more_a, more_b;

	more_a = cu__child(w, die, &a);
	more_b = cu__child(w, origin, &b);
	for (;;) {
		while (more_a && a.d.tag != DW_TAG_formal_parameter)
			more_a = cu__next(w, &a);
		while (more_b && b.d.tag != DW_TAG_formal_parameter)
			more_b = cu__next(w, &b);
		if (!more_a || !more_b)
			return more_a == more_b;
		if (param_type(w, &a) != param_type(w, &b))
			return false;
		more_a = cu__next(w, &a);
		more_b = cu__next(w, &b);
	}
}

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
 * func_policy.c) then combines these with the ELF symbols.  (pahole 1.31's
 * reading is record_func()'s own, below.)
 *
 * Locations are read by our own reader (dwarf/die_loc.c) where it can, and
 * by libdw otherwise (split units, aggregates in pieces).
 */
enum {
	ABI_REG_UNKNOWN = -1,	/* no register read from the location */
	ABI_REG_LIBDW = -2,		/* only libdw can read this location */
};

static bool is_reg_op(unsigned int atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool is_breg_op(unsigned int atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg31;
}

/*
 * One location's contribution to the register, from its operation count
 * n, first and last operations, and (for an entry value) the inner
 * expression's count and operation; big: an aggregate of two words, whose
 * pieces only libdw's full decoding reads.  Returns a DW_OP_regN,
 * ABI_REG_UNKNOWN or ABI_REG_LIBDW.
 */
static int abi_loc_reg(size_t n, unsigned int first, unsigned int last, bool loc0, bool big,
		   size_t inner_n, unsigned int inner)
{
	bool stack_value = n > 0 && last == DW_OP_stack_value;

	if (n == 2 && stack_value)
		n = 1;
	if (n == 0)
		return ABI_REG_UNKNOWN;
	if (first == DW_OP_lit0 || (first > DW_OP_lit0 && first <= DW_OP_lit31) ||
	    first == DW_OP_constu || first == DW_OP_consts)
		return ABI_REG_UNKNOWN;
	if (n > 1 && big)
		return ABI_REG_LIBDW;
	if (is_reg_op(first))
		return loc0 ? (int)first : ABI_REG_UNKNOWN;
	if (is_breg_op(first))
		return loc0 && stack_value ? (int)(first - DW_OP_breg0 + DW_OP_reg0) : ABI_REG_UNKNOWN;
	if (n == 1 && (first == DW_OP_entry_value || first == DW_OP_GNU_entry_value))
		return inner_n == 1 && is_reg_op(inner) ? (int)inner : ABI_REG_UNKNOWN;
	return ABI_REG_UNKNOWN;
}

/* The register of param's location a, by our reader, or ABI_REG_LIBDW. */
static int abi_reg_fast(const struct cu_die *param, const struct die_attr *a, bool big)
{
	struct die_op first, last, inner, inner_last;
	struct die_loc_iter it;
	const uint8_t *expr;
	size_t len, n, inner_n;
	bool loc0 = true;
	int r;

	if (die_loc__begin(param->du, a, &it))
		return ABI_REG_LIBDW;
	while ((r = die_loc__next(&it, &expr, &len)) > 0) {
		if (die_expr__ops(param->du, expr, len, &n, &first, &last))
			return ABI_REG_LIBDW;
		inner_n = 0;
		inner.atom = 0;
		if (n && (first.atom == DW_OP_entry_value || first.atom == DW_OP_GNU_entry_value) &&
		    die_expr__ops(param->du, first.block, first.block_len, &inner_n, &inner,
				  &inner_last))
			return ABI_REG_LIBDW;
		r = abi_loc_reg(n, first.atom, n ? last.atom : 0, loc0, big, inner_n, inner.atom);
		if (r != ABI_REG_UNKNOWN)
			return r;
		loc0 = false;
	}
	return r < 0 ? ABI_REG_LIBDW : ABI_REG_UNKNOWN;
}

/* An aggregate's pieces: the first register named in them. */
static int pieces_reg(const Dwarf_Op *expr, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (is_reg_op(expr[i].atom))
			return (int)expr[i].atom;
	}
	return ABI_REG_UNKNOWN;
}

/* The same answer by libdw. */
static int abi_reg_libdw(struct cu *w, const struct cu_die *param, bool big)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	size_t len, inner_len;
	Dwarf_Attribute attr;
	ptrdiff_t off = 0;
	bool loc0 = true;
	int r;

	if (!cu__libdw_location(w, param, &attr))
		return ABI_REG_UNKNOWN;
	while ((off = dwarf_getlocations(&attr, off, &base, &start, &end, &expr, &len)) > 0) {
		size_t n = len && expr[len - 1].atom == DW_OP_stack_value && len == 2 ? 1 : len;

		inner_len = 0;
		inner = NULL;
		if (len && (expr[0].atom == DW_OP_entry_value || expr[0].atom == DW_OP_GNU_entry_value) &&
		    !cu__entry_value(&attr, expr, &inner, &inner_len))
			inner_len = 0;
		if (n > 1 && big && len && expr[0].atom != DW_OP_constu &&
		    expr[0].atom != DW_OP_consts &&
		    !(expr[0].atom >= DW_OP_lit0 && expr[0].atom <= DW_OP_lit31))
			r = pieces_reg(expr, len);
		else
			r = abi_loc_reg(len, len ? expr[0].atom : 0, len ? expr[len - 1].atom : 0, loc0,
				    false, inner_len, inner_len ? inner[0].atom : 0);
		if (r != ABI_REG_UNKNOWN)
			return r;
		loc0 = false;
	}
	return ABI_REG_UNKNOWN;
}

/* The register param arrives in, or ABI_REG_UNKNOWN. */
static int abi_reg(struct cu *w, const struct cu_die *param, const struct die_attr *loc,
		     bool big)
{
	int r = abi_reg_fast(param, loc, big);

	return r == ABI_REG_LIBDW ? abi_reg_libdw(w, param, big) : r;
}

/* The position of the parameter DIE at offset off among fn's parameters,
 * or -1. */
static int param_index(struct cu *w, const struct cu_die *fn, uint64_t off)
{
	struct params_iter it = { 0 };
	struct cu_die p;
	int idx = 0;

	while (next_param(w, fn, &it, &p)) {
		if (p.d.off == off && p.du == fn->du)
			return idx;
		idx++;
	}
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
	uint64_t size = cu__param_size(w, p), word = w->ptr_size;
	int slots = w->agg_two_regs && size > word ? (int)((size + word - 1) / word) : 1;
	struct die_attr loc;
	int reg, i;

	if (!cu__attr(w, p, DW_AT_location, &loc))
		s->flags |= UNIT_FUNC_OPTIMIZED;
	if (size > (w->agg_two_regs ? 2 : 1) * word || s->reg_idx >= w->nr_param_slots)
		return;
	/* (a register pahole cannot name is never the expected one) */
	if (cu__has_attr(p, DW_AT_location)) {
		reg = abi_reg(w, p, &loc, size > word && w->agg_two_regs);
		if (reg != ABI_REG_UNKNOWN) {
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
	uint64_t size = cu__param_size(w, p), word = w->ptr_size;
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
	reg = abi_reg(w, p, &loc, size > word && w->agg_two_regs);
	if (reg == ABI_REG_UNKNOWN)
		s->flags |= UNIT_FUNC_OPTIMIZED;
	else if (slot_reg(w, s->reg_idx) >= 0 && reg != slot_reg(w, s->reg_idx))
		s->unexpected = true;
	s->reg_idx += in_memory ? 1 : slots;
}

/* pahole 1.32's true_signature rebuilds the prototype of die, clang's
 * (cu_truesig.c, which also says how the parameters arrive)? */
static bool clang_true_signature(struct cu *w, const struct cu_die *die)
{
	return w->opts->true_signature && w->opts->kernel_policy != D2B_KERNEL_POLICY_PAHOLE_1_31 &&
	       w->clang && nocall(w, die);
}

static uint32_t judge_params(struct cu *w, const struct cu_die *die)
{
	struct slot_walk s = { 0 };
	struct cu_die child, origin, oparam;
	struct params_iter it = { 0 };
	bool changed = w->clang && nocall(w, die);
	bool rebuilt = changed && clang_true_signature(w, die);
	int idx = 0;

	if (changed)
		s.flags |= UNIT_FUNC_NOCALL;
	while (next_param(w, die, &it, &child)) {
		/* (rebuilt: cu_truesig__proto() judges them) */
		if (!rebuilt && w->clang && !changed)
			clang_param(w, &child, &s);
		else if (!rebuilt)
			gcc_param(w, &child, &s);
		if (!s.has_struct && cu__is_struct_param(w, &child))
			s.has_struct = true;
		/* a parameter without a type of its own names its declaration */
		if (!cu__has_attr(&child, DW_AT_type) &&
		    cu__ref_attr(w, &child, DW_AT_abstract_origin, &oparam) &&
		    cu__ref_attr(w, die, DW_AT_abstract_origin, &origin) &&
		    param_index(w, &origin, oparam.d.off) != idx)
			s.flags |= UNIT_FUNC_REORDERED;
		idx++;
	}
	if (s.unexpected && !s.has_struct)
		s.flags |= UNIT_FUNC_UNEXPECTED_REG;
	return s.flags;
}

/*
 * What the kernel's function policy needs to know of a function (die; decl
 * declares it): its code's address, and does each parameter arrive where
 * the ABI puts it?  pahole 1.32's answer is judge_params()'s; pahole 1.31's is
 * here: a parameter passed in a register must be in the
 * ABI's register for its position (or the function has a struct parameter,
 * which shifts registers legitimately); one with no location, or a constant
 * value, is optimized out.
 */
static uint32_t func_flags(struct cu *w, const struct cu_die *die, bool external)
{
	struct cu_die origin, child;
	struct params_iter it = { 0 };
	bool unexpected = false, has_struct = false;
	uint32_t flags = external ? UNIT_FUNC_EXTERNAL : 0;
	Dwarf_Attribute attr;
	int idx = 0;

	if (w->opts->kernel_policy != D2B_KERNEL_POLICY_PAHOLE_1_31)
		flags |= judge_params(w, die);	/* pahole 1.32's reading */
	else {
		while (next_param(w, die, &it, &child)) {
			if (cu__is_struct_param(w, &child))
				has_struct = true;
			if (idx >= w->nr_reg_params) {
				idx++;
				continue;
			}
			/* location lists: libdw reads them */
			if (cu__has_attr(&child, DW_AT_location)) {
				/* (read here where it can be, else by libdw) */
				int reg = param_reg_fast(w, &child, w->reg_params[idx]);

				if (reg == REG_ASK_LIBDW) {
					reg = -1;
					if (cu__libdw_location(w, &child, &attr))
						reg = param_reg(&attr, w->reg_params[idx]);
				}

				if (reg < 0)
					flags |= UNIT_FUNC_OPTIMIZED;
				else if (reg != w->reg_params[idx])
					unexpected = true;
			} else {
				flags |= UNIT_FUNC_OPTIMIZED;
			}
			idx++;
		}
	}
	if (unexpected && !has_struct)
		flags |= UNIT_FUNC_UNEXPECTED_REG;
	if (cu__ref_attr(w, die, DW_AT_abstract_origin, &origin) && !same_params(w, die, &origin))
		flags |= UNIT_FUNC_CLONE_CHANGED;
	return flags;
}

/* The record of FUNC func for the policy: its flags, and its code's address */
static int record_func(struct cu *w, const struct cu_die *die, int func, uint32_t flags)
{
	struct unit *u = w->u;
	struct die_attr low_pc;
	int err;

	err = VEC_RESERVE(u->funcs, u->funcs_cap, u->nr_funcs, 1);
	if (err)
		return err;
	u->funcs[u->nr_funcs].id = func;
	u->funcs[u->nr_funcs].flags = flags;
	u->funcs[u->nr_funcs].addr = cu__attr(w, die, DW_AT_low_pc, &low_pc) &&
				     low_pc.form != DW_FORM_flag_present ? low_pc.u : 0;
	u->nr_funcs++;
	return 0;
}

/* The parameter of clone die whose abstract origin is oparam, or oparam. */
static struct cu_die clone_param(struct cu *w, const struct cu_die *die, const struct cu_die *oparam)
{
	struct cu_die child, o;

	if (!cu__child(w, die, &child))
		return *oparam;
	do {
		if (child.d.tag == DW_TAG_formal_parameter &&
		    cu__ref_attr(w, &child, DW_AT_abstract_origin, &o) && cu__same(&o, oparam))
			return child;
	} while (cu__next(w, &child));
	return *oparam;
}

/*
 * pahole gives the abstract origin of a clone (die) the locations of the
 * clone's parameters, and judges the origin's parameters in the origin's
 * order: where the clone left parameters out or reordered them, the
 * origin's then seem to arrive in unexpected registers, and pahole's
 * combining of a name's definitions makes that the clone's too.  Such is
 * the origin (UNIT_FUNC_ORIGIN_UNEXPECTED)?  O(parameters^2), for clones
 * that changed their parameters only.  clang's out-of-line code of an
 * inlined function whose signature changed (DW_CC_nocall) is such a
 * clone too; its origin, inlined, is judged as clang's unchanged code
 * (clang_param()).
 */
static uint32_t origin_flags(struct cu *w, const struct cu_die *die, bool clang)
{
	struct cu_die origin, op, p;
	struct slot_walk s = { 0 };

	if (!cu__ref_attr(w, die, DW_AT_abstract_origin, &origin) || !cu__child(w, &origin, &op))
		return 0;
	do {
		if (op.d.tag != DW_TAG_formal_parameter)
			continue;
		p = clone_param(w, die, &op);
		if (clang)
			clang_param(w, &p, &s);
		else
			gcc_param(w, &p, &s);
		if (!s.has_struct && cu__is_struct_param(w, &op))
			s.has_struct = true;
	} while (cu__next(w, &op));
	return s.unexpected && !s.has_struct ? UNIT_FUNC_ORIGIN_UNEXPECTED : 0;
}

/*
 * pahole 1.32's true_signature: the prototype of what the code of die (a
 * concrete DIE, GCC's clone) takes, from its own parameter DIEs in its
 * order, each read through its abstract origin.  Where the clone reorders
 * them, those that have no location, or whose location names no register
 * while registers remain (gcc_param() says them optimized out), are not
 * taken.  0 where die is no such clone: the declaration's prototype does.
 */
static int clone_proto(struct cu *w, const struct cu_die *die, const struct cu_die *decl,
		       uint32_t flags)
{
	struct cu_die child, *v = NULL;
	struct slot_walk s = { 0 };
	size_t nr = 0, cap = 0;
	int err = 0;

	if (!w->opts->true_signature || w->opts->kernel_policy == D2B_KERNEL_POLICY_PAHOLE_1_31 ||
	    w->clang || !(flags & (UNIT_FUNC_REORDERED | UNIT_FUNC_CLONE_CHANGED)) ||
	    cu__same(die, decl) || !cu__child(w, die, &child))
		return 0;
	do {
		struct cu_die p = child;

		if (child.d.tag != DW_TAG_formal_parameter)
			continue;
		s.flags = 0;
		gcc_param(w, &child, &s);
		if ((flags & UNIT_FUNC_REORDERED) && (s.flags & UNIT_FUNC_OPTIMIZED))
			continue;
		if (!cu__has_attr(&child, DW_AT_type) &&
		    !cu__ref_attr(w, &child, DW_AT_abstract_origin, &p))
			p = child;
		err = VEC_RESERVE(v, cap, nr, 1);
		if (err)
			goto out;
		v[nr++] = p;
	} while (cu__next(w, &child));
	err = cu_types__proto_of(w, decl, v, NULL, nr);
out:
	free(v);
	return err;
}

/* func_flags(), and for true_signature what pahole makes of the abstract
 * origin of a GCC clone or of clang's changed code (origin_flags()) */
static uint32_t func_flags_ts(struct cu *w, const struct cu_die *die, bool external)
{
	uint32_t flags = func_flags(w, die, external);

	if (w->opts->true_signature && w->opts->kernel_policy != D2B_KERNEL_POLICY_PAHOLE_1_31 &&
	    !w->clang && (flags & (UNIT_FUNC_REORDERED | UNIT_FUNC_CLONE_CHANGED)))
		flags |= origin_flags(w, die, false);
	else if (clang_true_signature(w, die) && cu__has_attr(die, DW_AT_abstract_origin))
		flags |= origin_flags(w, die, true);
	return flags;
}

enum {
	WANT_MEMO_ORDER = 14,	/* 16384 function names remembered per thread */
};

/*
 * The function filter's answer for name.  Every unit declares the inline
 * functions of the headers it includes, so one name is asked about in
 * hundreds of units: the filter may know the answers for the strings of
 * .debug_str already (str_bits); else a name in .debug_str is remembered
 * by its address (the filter answers by the name alone, and stays the
 * same while the walker serves it).
 */
static bool want_func(struct cu *w, const char *name)
{
	const struct unit_func_filter *f = w->func_filter;
	struct unit_walker *uw = w->uw;
	uint32_t v;
	bool want;

	if (f->str_bits) {
		/* (below the section, the difference wraps past str_size) */
		uintptr_t o = (uintptr_t)name - (uintptr_t)f->str;

		if (o < f->str_size && (o == 0 || name[-1] == '\0'))
			return f->str_bits[o / 64] >> (o % 64) & 1;
	}
	if (uw->want_filter != f) {
		const char *str = die_reader__section(uw->r, DIE_SEC_STR);

		ptr_cache__free(uw->want_memo);
		uw->want_memo = str ? ptr_cache__new(str, die_reader__section_size(uw->r, DIE_SEC_STR),
						     WANT_MEMO_ORDER) : NULL;
		uw->want_filter = f;	/* (no memory: no memo, the same answers) */
	}
	if (uw->want_memo && ptr_cache__get(uw->want_memo, name, &v))
		return v;
	want = f->want(f->arg, name);
	if (uw->want_memo)
		ptr_cache__put(uw->want_memo, name, want);
	return want;
}

static int subprogram(struct cu *w, const struct cu_die *die)
{
	struct cu_die decl, named, child;
	struct params_iter it = { 0 };
	const char *name, *why;
	int proto, func, err, idx;
	bool external, has_code, kernel;
	uint32_t flags;

	if (w->opts->funcs == D2B_FUNCS_NONE || is_declaration(w, die))
		return 0;
	has_code = cu__has_attr(die, DW_AT_low_pc) || cu__has_attr(die, DW_AT_ranges);
	kernel = w->opts->funcs == D2B_FUNCS_KERNEL;
	/* only functions with code; the kernel's policy also compares the
	 * inline-only DIEs of a function that has an ELF symbol (a clone's) */
	if (!has_code && (!kernel || !w->func_filter))
		return 0;
	declaring_die(w, die, &decl);
	/* C++: a constructor's linkage name is on its definition (C1, C2) */
	named = w->cxx ? *die : decl;
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	if (!name || !*name)
		return 0;
	if (kernel && w->func_filter && !want_func(w, name)) {
		if (has_code)
			cu__diag(w, D2B_INFO, die, "function '%s' left out: no ELF function symbol",
				 name);
		return 0;
	}
	err = read_params(w, &decl, die);
	if (err)
		return err;
	why = unnamed_param(w, &decl);
	if (why && w->cxx && !cu__same(&decl, die)) {
		cu__diag(w, D2B_DEBUG, die, "function '%s': parameters from its definition", name);
		defining_die(w, die, &decl);
		err = read_params(w, &decl, die);
		if (err)
			return err;
		why = unnamed_param(w, &decl);
	}
	if (why) {
		cu__diag(w, D2B_INFO, die, "function '%s' left out: %s", name, why);
		return 0;
	}
	flags = kernel ? func_flags_ts(w, die, has_flag(w, &named, DW_AT_external)) : 0;
	proto = kernel ? clone_proto(w, die, &decl, flags) : 0;
	if (!proto && kernel && clang_true_signature(w, die))
		proto = cu_truesig__proto(w, die, &decl, &flags);
	if (!proto)
		proto = cu_types__proto_of(w, &decl, w->uw->params, NULL, w->uw->nr_params);
	if (proto < 0)
		return proto;
	/* again: the types walked may have reused cu_scope.c's buffer */
	name = cu_scope__decl_name(w, &named, &err);
	if (err)
		return err;
	external = has_flag(w, &named, DW_AT_external);
	func = d2b_btf__add_func(w->btf, name,
				 external && w->opts->funcs != D2B_FUNCS_KERNEL ?
				 D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC, proto);
	if (func < 0)
		return func;
	if (w->opts->funcs == D2B_FUNCS_KERNEL) {
		err = record_func(w, die, func, flags);
		if (err < 0)
			return err;
	}
	if (w->opts->skip_decl_tags)
		return 0;
	err = cu_annot__decl_tags(w, &decl, func, -1);
	if (!err && !cu__same(&decl, die))
		err = cu_annot__decl_tags(w, die, func, -1);
	if (err < 0)
		return err;
	idx = 0;
	while (next_param(w, &decl, &it, &child)) {
		err = cu_annot__decl_tags(w, &child, func, idx++);
		if (err < 0)
			return err;
	}
	return 0;
}

int cu_decls__subprogram(struct cu *w, const struct cu_die *die)
{
	int err = subprogram(w, die);

	w->uw->params_of.du = NULL;	/* (the next unit may reuse its DIEs' places) */
	return err;
}

/* A trailing DW_OP_plus_uconst N (LLVM's merged globals: one symbol, each
 * variable at its offset), added to *addr; true if [p, end) is that or
 * nothing. */
static bool plus_uconst(const uint8_t *p, const uint8_t *end, uint64_t *addr)
{
	uint64_t n;

	if (p == end)
		return true;
	if (*p++ != DW_OP_plus_uconst || !cu__uleb(&p, end, &n) || p != end)
		return false;
	*addr += n;
	return true;
}

/*
 * The static address of a variable, if its location is just that: one
 * DW_OP_addr, DW_OP_addrx or DW_OP_GNU_addr_index (whose address is in
 * the unit's .debug_addr table), maybe with a DW_OP_plus_uconst after it.
 */
static bool variable_address(struct cu *w, const struct cu_die *die, uint64_t *ret)
{
	unsigned int size = die_unit__header(die->du)->addr_size, i;
	const uint8_t *p, *end;
	struct die_attr a;
	uint64_t v = 0;

	if (!cu__attr(w, die, DW_AT_location, &a) || !cu__is_expr(die, &a) || !a.len)
		return false;
	p = a.block;
	end = p + a.len;
	switch (*p++) {
	case DW_OP_addr:
		if ((size_t)(end - p) < size)
			return false;
		for (i = 0; i < size; i++)
			v |= (uint64_t)p[w->big_endian ? i : size - 1 - i] << (8 * (size - 1 - i));
		*ret = v;
		return plus_uconst(p + size, end, ret);
	case DW_OP_addrx:
	case DW_OP_GNU_addr_index:
		return cu__uleb(&p, end, &v) && die_unit__addrx(die->du, v, ret) == 0 &&
		       plus_uconst(p, end, ret);
	default:
		return false;
	}
}

int cu_decls__variable(struct cu *w, const struct cu_die *die)
{
	const char *vals[UNIT_MAX_TAGS];
	struct unit_var *v;
	const char *name;
	uint64_t addr = 0, off = 0;
	size_t shndx;
	int type, name_off, n, i, err;

	if (w->opts->vars == D2B_VARS_NONE || is_declaration(w, die))
		return 0;
	name = cu_scope__decl_name(w, die, &err);
	if (err)
		return err;
	if (!name || !*name)
		return 0;
	if (!variable_address(w, die, &addr)) {
		if (cu__has_attr(die, DW_AT_location))
			cu__diag(w, D2B_INFO, die, "variable '%s' left out: no static address", name);
		return 0;
	}
	if (dwarf_file__addr_section(w->df, addr, &shndx, &off) != 0 &&
	    dwarf_file__symbol_section(w->df, cu_scope__symbol_name(w, die), &shndx, &off) != 0) {
		cu__diag(w, D2B_INFO, die, "variable '%s' left out: address 0x%" PRIx64
			      " is in no allocated section", name, addr);
		return 0;
	}
	type = cu_types__type_of(w, die);
	if (type < 0)
		return type;
	/* again: the types walked may have reused cu_scope.c's buffer */
	name = cu_scope__decl_name(w, die, &err);
	if (err)
		return err;
	if (type == 0) {
		cu__diag(w, D2B_INFO, die, "variable '%s' of void type left out", name);
		return 0;
	}
	name_off = d2b_btf__add_str(w->btf, name);
	if (name_off < 0)
		return name_off;
	err = VEC_RESERVE(w->u->vars, w->u->vars_cap, w->u->nr_vars, 1);
	if (err)
		return err;
	v = &w->u->vars[w->u->nr_vars];
	memset(v, 0, sizeof(*v));
	v->name_off = name_off;
	v->type = type;
	v->linkage = has_flag(w, die, DW_AT_external) ? D2B_LINKAGE_GLOBAL : D2B_LINKAGE_STATIC;
	v->shndx = shndx;
	v->offset = off;
	v->tags_start = w->u->nr_tag_offs;
	if (!w->opts->skip_decl_tags) {
		struct cu_die decl;

		n = cu_annot__collect(w, die, ANNOT_DECL_TAG, vals, UNIT_MAX_TAGS);
		if (n == 0) {
			declaring_die(w, die, &decl);
			if (!cu__same(&decl, die))
				n = cu_annot__collect(w, &decl, ANNOT_DECL_TAG, vals, UNIT_MAX_TAGS);
		}
		if (n > UNIT_MAX_TAGS)
			n = UNIT_MAX_TAGS;
		for (i = 0; i < n; i++) {
			int off_tag = d2b_btf__add_str(w->btf, vals[i]);

			if (off_tag < 0)
				return off_tag;
			err = VEC_RESERVE(w->u->tag_offs, w->u->tag_offs_cap, w->u->nr_tag_offs, 1);
			if (err)
				return err;
			w->u->tag_offs[w->u->nr_tag_offs++] = off_tag;
		}
		v->nr_tags = w->u->nr_tag_offs - v->tags_start;
	}
	w->u->nr_vars++;
	return 0;
}
