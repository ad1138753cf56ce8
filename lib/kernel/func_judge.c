// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How a function's code receives its parameters, as pahole judges it for
 * the kernel's function policy (func_policy.c decides with it once all
 * units are merged), and the prototype pahole 1.32's true_signature gives
 * a changed function.  Called by lib/unit for each function it converts,
 * in the walking thread, over the facts of struct fn_facts.
 *
 * The question: may a tracer that attaches to the function's symbol read
 * its parameters where the ABI puts them (abi_regs.c), in the order the
 * prototype says?  One pass over the parameters of the function's code (a
 * definition, or an out-of-line instance of an inlined function) answers
 * with flags (enum func_rec_flags).
 *
 * pahole 1.32 (judge_params()):
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
 * FUNC_REC_UNEXPECTED_REG is set when some parameter is unexpected and
 * none is a struct (which may take several registers and shift the rest,
 * so pahole does not trust the count).
 *
 * pahole 1.31 (flags_131()): a parameter passed in a register must be in
 * the ABI's register for its position (or the function has a struct
 * parameter, which shifts registers legitimately); one with no location,
 * or a constant value, is optimized out.
 *
 * Both: a clone whose parameters' types differ from its origin's changed
 * them (FUNC_REC_CLONE_CHANGED).  pahole 1.32 with true_signature also
 * judges the abstract origin of a GCC clone, or of clang's changed code,
 * with the clone's registers (origin_flags()), and gives the clone the
 * prototype of what its code takes: clone_proto() for GCC's, true_sig.c
 * for clang's.
 *
 * Locations are read by our own reader (dwarf/die_loc.c) where it can, and
 * by libdw otherwise (split units, aggregates in pieces).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/die_loc.h"
#include "kernel/abi_regs.h"
#include "kernel/func_judge.h"
#include "kernel/func_policy.h"
#include "kernel/true_sig.h"

/* One function being judged */
struct judging {
	struct fn_facts *fn;
	const struct d2b_opts *opts;
	struct abi_regs abi;
	uint64_t word;		/* the unit's address size */
	bool clang;		/* DW_AT_producer names clang */
};

/*
 * pahole 1.31's register of a parameter on entry, per its DW_AT_location:
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
			if (!abi_regs__entry_value(loc, expr, &inner, &inner_len) || inner_len != 1)
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

/* param_reg() from our own reader (die_loc.c), for code parameter i: the
 * same answer, or REG_ASK_LIBDW. */
static int param_reg_fast(struct fn_facts *fn, size_t i, int expected)
{
	struct die_op op, last;
	struct die_loc_iter it;
	struct die_unit *du;
	struct die_attr a;
	const uint8_t *expr;
	size_t len, n;
	int nth = 0, reg = -1, r;

	if (!fn_facts__param_location(fn, FN_CODE, i, &du, &a) || die_loc__begin(du, &a, &it))
		return REG_ASK_LIBDW;
	while ((r = die_loc__next(&it, &expr, &len)) > 0) {
		if (die_expr__ops(du, expr, len, &n, &op, &last))
			return REG_ASK_LIBDW;
		r = loc_reg(n, n ? op.atom : 0, n ? last.atom : 0, nth++ == 0);
		if (r == LOC_ENTRY) {
			if (die_expr__ops(du, op.block, op.block_len, &n, &op, &last))
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

/* pahole 1.31's flags of the code's parameters */
static uint32_t flags_131(const struct judging *j)
{
	struct fn_facts *fn = j->fn;
	size_t n = fn_facts__nr_params(fn, FN_CODE), i;
	bool unexpected = false, has_struct = false;
	uint32_t flags = 0;
	Dwarf_Attribute attr;

	for (i = 0; i < n; i++) {
		int expected, reg;

		if (fn_facts__param_is_struct(fn, FN_CODE, i))
			has_struct = true;
		if ((int)i >= j->abi.nr)
			continue;
		if (!fn_facts__param_has(fn, FN_CODE, i, DW_AT_location)) {
			flags |= FUNC_REC_OPTIMIZED;
			continue;
		}
		/* (read here where it can be, else by libdw: location lists) */
		expected = j->abi.reg[i];
		reg = param_reg_fast(fn, i, expected);
		if (reg == REG_ASK_LIBDW) {
			reg = -1;
			if (fn_facts__param_libdw_location(fn, FN_CODE, i, &attr))
				reg = param_reg(&attr, expected);
		}
		if (reg < 0)
			flags |= FUNC_REC_OPTIMIZED;
		else if (reg != expected)
			unexpected = true;
	}
	if (unexpected && !has_struct)
		flags |= FUNC_REC_UNEXPECTED_REG;
	return flags;
}

/* pahole 1.32's register of a parameter (judge_params() above) */
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

/* The register of a parameter's location a (in du), by our reader, or
 * ABI_REG_LIBDW. */
static int abi_reg_fast(struct die_unit *du, const struct die_attr *a, bool big)
{
	struct die_op first, last, inner, inner_last;
	struct die_loc_iter it;
	const uint8_t *expr;
	size_t len, n, inner_n;
	bool loc0 = true;
	int r;

	if (die_loc__begin(du, a, &it))
		return ABI_REG_LIBDW;
	while ((r = die_loc__next(&it, &expr, &len)) > 0) {
		if (die_expr__ops(du, expr, len, &n, &first, &last))
			return ABI_REG_LIBDW;
		inner_n = 0;
		inner.atom = 0;
		if (n && (first.atom == DW_OP_entry_value || first.atom == DW_OP_GNU_entry_value) &&
		    die_expr__ops(du, first.block, first.block_len, &inner_n, &inner, &inner_last))
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
static int abi_reg_libdw(struct fn_facts *fn, enum fn_which which, size_t i, bool big)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	size_t len, inner_len;
	Dwarf_Attribute attr;
	ptrdiff_t off = 0;
	bool loc0 = true;
	int r;

	if (!fn_facts__param_libdw_location(fn, which, i, &attr))
		return ABI_REG_UNKNOWN;
	while ((off = dwarf_getlocations(&attr, off, &base, &start, &end, &expr, &len)) > 0) {
		size_t n = len && expr[len - 1].atom == DW_OP_stack_value && len == 2 ? 1 : len;

		inner_len = 0;
		inner = NULL;
		if (len && (expr[0].atom == DW_OP_entry_value || expr[0].atom == DW_OP_GNU_entry_value) &&
		    !abi_regs__entry_value(&attr, expr, &inner, &inner_len))
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

/* The register the parameter arrives in (its location loc, in du), or
 * ABI_REG_UNKNOWN. */
static int abi_reg(struct fn_facts *fn, enum fn_which which, size_t i, struct die_unit *du,
		   const struct die_attr *loc, bool big)
{
	int r = abi_reg_fast(du, loc, big);

	return r == ABI_REG_LIBDW ? abi_reg_libdw(fn, which, i, big) : r;
}

/* Does the code (or its abstract origin) say that clang changed its
 * calling convention? */
static bool nocall(struct fn_facts *fn)
{
	uint64_t cc;

	if (fn_facts__has(fn, FN_CODE, DW_AT_inline))
		return false;
	return fn_facts__udata(fn, fn_facts__has_origin(fn) ? FN_ORIGIN : FN_CODE,
			       DW_AT_calling_convention, &cc) && cc == DW_CC_nocall;
}

struct slot_walk {
	int reg_idx;		/* the next ABI register slot */
	bool unexpected, has_struct;
	uint32_t flags;
};

/* One parameter of code that gives no signature change (clang's). */
static void clang_param(const struct judging *j, enum fn_which which, size_t i,
			struct slot_walk *s)
{
	const struct abi_regs *abi = &j->abi;
	uint64_t size = fn_facts__param_size(j->fn, which, i), word = j->word;
	int slots = abi->agg_two_regs && size > word ? (int)((size + word - 1) / word) : 1;
	struct die_unit *du;
	struct die_attr loc;
	int reg, k;

	if (!fn_facts__param_location(j->fn, which, i, &du, &loc))
		s->flags |= FUNC_REC_OPTIMIZED;
	if (size > (abi->agg_two_regs ? 2 : 1) * word || s->reg_idx >= abi->slots)
		return;
	/* (a register pahole cannot name is never the expected one) */
	if (fn_facts__param_has(j->fn, which, i, DW_AT_location)) {
		reg = abi_reg(j->fn, which, i, du, &loc, size > word && abi->agg_two_regs);
		if (reg != ABI_REG_UNKNOWN) {
			for (k = 0; k < slots && s->reg_idx + k < abi->slots; k++) {
				if (reg == abi_regs__slot(abi, s->reg_idx + k))
					break;
			}
			if (k == slots || s->reg_idx + k >= abi->slots)
				s->unexpected = true;
		}
	}
	s->reg_idx += slots;
}

/* One parameter of GCC's code, or of clang's with a changed signature. */
static void gcc_param(const struct judging *j, enum fn_which which, size_t i,
		      struct slot_walk *s)
{
	const struct abi_regs *abi = &j->abi;
	uint64_t size = fn_facts__param_size(j->fn, which, i), word = j->word;
	int slots = abi->agg_two_regs && size > word ? (int)((size + word - 1) / word) : 1;
	bool in_memory = size > (abi->agg_two_regs ? 2 : 1) * word;
	struct die_unit *du;
	struct die_attr loc;
	int reg;

	if (!fn_facts__param_location(j->fn, which, i, &du, &loc)) {
		s->flags |= FUNC_REC_OPTIMIZED;
		s->reg_idx += in_memory ? 1 : slots;
		return;
	}
	if (s->reg_idx >= abi->slots)
		return;
	reg = abi_reg(j->fn, which, i, du, &loc, size > word && abi->agg_two_regs);
	if (reg == ABI_REG_UNKNOWN)
		s->flags |= FUNC_REC_OPTIMIZED;
	else if (abi_regs__slot(abi, s->reg_idx) >= 0 && reg != abi_regs__slot(abi, s->reg_idx))
		s->unexpected = true;
	s->reg_idx += in_memory ? 1 : slots;
}

static bool true_signature(const struct judging *j)
{
	return j->opts->true_signature && j->opts->kernel_policy != D2B_KERNEL_POLICY_PAHOLE_1_31;
}

/* pahole 1.32's true_signature rebuilds the prototype of clang's changed
 * code (true_sig.c, which also says how the parameters arrive)? */
static bool clang_true_signature(const struct judging *j)
{
	return true_signature(j) && j->clang && nocall(j->fn);
}

/* pahole 1.32's flags of the code's parameters */
static uint32_t judge_params(const struct judging *j)
{
	struct fn_facts *fn = j->fn;
	struct slot_walk s = { 0 };
	bool changed = j->clang && nocall(fn);
	bool rebuilt = changed && clang_true_signature(j);
	size_t n = fn_facts__nr_params(fn, FN_CODE), i;
	int origin;

	if (changed)
		s.flags |= FUNC_REC_NOCALL;
	for (i = 0; i < n; i++) {
		/* (rebuilt: true_sig__proto() judges them) */
		if (!rebuilt && j->clang && !changed)
			clang_param(j, FN_CODE, i, &s);
		else if (!rebuilt)
			gcc_param(j, FN_CODE, i, &s);
		if (!s.has_struct && fn_facts__param_is_struct(fn, FN_CODE, i))
			s.has_struct = true;
		/* a parameter without a type of its own names its declaration */
		if (!fn_facts__param_has(fn, FN_CODE, i, DW_AT_type) &&
		    fn_facts__param_origin(fn, i, &origin) && origin != (int)i)
			s.flags |= FUNC_REC_REORDERED;
	}
	if (s.unexpected && !s.has_struct)
		s.flags |= FUNC_REC_UNEXPECTED_REG;
	return s.flags;
}

/*
 * pahole gives the abstract origin of a clone the locations of the
 * clone's parameters, and judges the origin's parameters in the origin's
 * order: where the clone left parameters out or reordered them, the
 * origin's then seem to arrive in unexpected registers, and pahole's
 * combining of a name's definitions makes that the clone's too.  Such is
 * the origin (FUNC_REC_ORIGIN_UNEXPECTED)?  O(parameters^2), for clones
 * that changed their parameters only.  clang's out-of-line code of an
 * inlined function whose signature changed (DW_CC_nocall) is such a
 * clone too; its origin, inlined, is judged as clang's unchanged code
 * (clang_param()).
 */
static uint32_t origin_flags(const struct judging *j, bool clang)
{
	struct fn_facts *fn = j->fn;
	size_t n = fn_facts__nr_params(fn, FN_ORIGIN), oi;
	struct slot_walk s = { 0 };

	for (oi = 0; oi < n; oi++) {
		int ci = fn_facts__origin_param_code(fn, oi);
		enum fn_which which = ci >= 0 ? FN_CODE : FN_ORIGIN;
		size_t i = ci >= 0 ? (size_t)ci : oi;

		if (clang)
			clang_param(j, which, i, &s);
		else
			gcc_param(j, which, i, &s);
		if (!s.has_struct && fn_facts__param_is_struct(fn, FN_ORIGIN, oi))
			s.has_struct = true;
	}
	return s.unexpected && !s.has_struct ? FUNC_REC_ORIGIN_UNEXPECTED : 0;
}

/* How many parameters the code's DIE lists itself (a varargs' "..."
 * counts), at most 255, in the bits of FUNC_REC_OWN_PARAMS_SHIFT */
static uint32_t own_params(struct fn_facts *fn)
{
	size_t n = fn_facts__nr_params(fn, FN_CODE) + fn_facts__varargs(fn);

	return (uint32_t)(n < 255 ? n : 255) << FUNC_REC_OWN_PARAMS_SHIFT;
}

/* The flags of the function, and for true_signature what pahole makes of
 * the abstract origin of a GCC clone or of clang's changed code */
static uint32_t func_flags(const struct judging *j)
{
	struct fn_facts *fn = j->fn;
	uint32_t flags = fn_facts__external(fn) ? FUNC_REC_EXTERNAL : 0;

	if (j->opts->kernel_policy != D2B_KERNEL_POLICY_PAHOLE_1_31)
		flags |= judge_params(j);
	else
		flags |= flags_131(j);
	if (fn_facts__has_origin(fn) && !fn_facts__same_types(fn))
		flags |= FUNC_REC_CLONE_CHANGED | own_params(fn);
	if (true_signature(j) && !j->clang &&
	    (flags & (FUNC_REC_REORDERED | FUNC_REC_CLONE_CHANGED)))
		flags |= origin_flags(j, false);
	else if (clang_true_signature(j) && fn_facts__has(fn, FN_CODE, DW_AT_abstract_origin))
		flags |= origin_flags(j, true);
	return flags;
}

/*
 * pahole 1.32's true_signature: the prototype of what the code (a concrete
 * DIE, GCC's clone) takes, from its own parameters in its order, each read
 * through its abstract origin.  Where the clone reorders them, those that
 * have no location, or whose location names no register while registers
 * remain (gcc_param() says them optimized out), are not taken.  0 where
 * the code is no such clone: the declaration's prototype does.
 */
static int clone_proto(const struct judging *j, uint32_t flags)
{
	struct fn_facts *fn = j->fn;
	size_t n = fn_facts__nr_params(fn, FN_CODE), i, nr = 0;
	struct slot_walk s = { 0 };
	struct fn_proto_param *v;
	int ret;

	if (!true_signature(j) || j->clang ||
	    !(flags & (FUNC_REC_REORDERED | FUNC_REC_CLONE_CHANGED)) ||
	    fn_facts__declares_itself(fn) || !fn_facts__has_children(fn))
		return 0;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		s.flags = 0;
		gcc_param(j, FN_CODE, i, &s);
		if ((flags & FUNC_REC_REORDERED) && (s.flags & FUNC_REC_OPTIMIZED))
			continue;
		v[nr++].i = i;
	}
	ret = fn_facts__proto(fn, v, nr, false);
	free(v);
	return ret;
}

static int judge(const void *arg, struct fn_facts *fn, uint32_t *flags)
{
	const char *producer = fn_facts__producer(fn);
	struct judging j = {
		.fn = fn,
		.opts = arg,
		.word = fn_facts__ptr_size(fn),
		.clang = producer && strstr(producer, "clang"),
	};
	int proto;

	abi_regs__init(&j.abi, fn_facts__machine(fn));
	*flags = func_flags(&j);
	proto = clone_proto(&j, *flags);
	if (!proto && clang_true_signature(&j))
		proto = true_sig__proto(fn, &j.abi, flags);
	return proto;
}

void func_judge__policy(const struct d2b_opts *opts, struct unit_func_policy *ret)
{
	ret->judge = judge;
	ret->arg = opts;
	ret->static_linkage = true;
}
