// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * clang's changed signatures, as pahole 1.32's true_signature describes
 * them: the prototype of what a function's code takes.
 *
 * clang (15 and later) marks a function whose calling convention it
 * changed DW_AT_calling_convention DW_CC_nocall (on the function, or on
 * the abstract origin of its out-of-line code), and still lists the
 * parameters as declared.  Only the locations say what the code takes.
 * pahole 1.32 (with true_signature) reads them in three passes:
 *
 * Pass 1, per parameter (param_read()): its type's size by pahole's
 * measure (an aggregate of more than two words, one on s390, is passed
 * in memory), and its location list as pahole decodes it -- the first
 * location's DW_OP_regN (or DW_OP_bregN of a DW_OP_stack_value), else a
 * DW_OP_entry_value(DW_OP_regN) of any location, or the first register
 * named in an aggregate's pieces, is where it arrives; a constant or a
 * DW_OP_fbreg as the first location says it is a constant, or on the
 * stack.  An aggregate of two words in pieces records which bytes of
 * each word (register) are there; where one piece of one word is all,
 * the struct member at that offset is what the code takes (find_member()).
 *
 * Pass 2 (walk()): the parameters in order against the ABI's registers.
 * A constant is dropped (it takes no register); past the registers,
 * parameters are kept as they are; on the stack, an aggregate passed in
 * memory is kept and anything else is unexpected; one whose register is
 * not its slot's is unexpected.  An aggregate in pieces is kept whole
 * where both words are used, or where the next parameter is in the
 * register after both words; else it is cut to its member (one
 * register).  A parameter without a location is kept where the next one
 * is in the register after it, else dropped.
 *
 * Pass 3 (build()): the prototype of the parameters kept, each as its
 * DIE says, a cut aggregate as its member, and the varargs if the
 * function has them.  Where pass 1 found a member, the parameter is named
 * "param__member" unless pass 2 kept the aggregate whole for the next
 * parameter's sake: also where it left the aggregate as it is for another
 * reason (past the registers, unexpected), as pahole does -- its name
 * then says which member the register holds, its type does not.  The
 * flags: a parameter dropped or without a location (FUNC_REC_OPTIMIZED),
 * one unexpected while no parameter is a struct (FUNC_REC_UNEXPECTED_REG:
 * the kernel policy leaves the function out).  (Out-of-line code of an
 * inlined function also has its abstract origin judged with its
 * registers: func_judge.c's origin_flags().)
 *
 * Locations are read by libdw: such functions are few.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/func_policy.h"
#include "kernel/true_sig.h"

enum {
	NO_REG = -1,
	WORD_FIELDS = 64,	/* byte offsets a word's field set can say */
	MAX_SLOTS = 64,		/* registers an aggregate is counted to take (the
				 * ABIs have 8 at most: bounds a huge one) */
};

enum fate {
	KEPT,
	DROPPED,
	CUT,		/* to the member passed */
};

struct tparam {
	size_t i;			/* the code's parameter */
	struct fn_member member;	/* has_member: the member in its one piece */
	uint64_t member_at;		/* ... at this byte */
	uint64_t size;
	uint64_t fields[2];		/* pieces' byte offsets in the first and second word */
	int reg;			/* DW_OP_regN it arrives in, or NO_REG */
	bool has_loc, konst, stack, in_memory, has_member, unexpected;
	enum fate fate;
};

static bool is_reg(unsigned int atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool is_breg(unsigned int atom)
{
	return atom >= DW_OP_breg0 && atom <= DW_OP_breg31;
}

static bool is_const(unsigned int atom)
{
	return (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) || atom == DW_OP_constu ||
	       atom == DW_OP_consts;
}

/* the first register found stands */
static void set_reg(struct tparam *p, unsigned int atom)
{
	if (p->reg == NO_REG)
		p->reg = (int)atom;
}

static void set_field(uint64_t *fields, uint64_t byte)
{
	if (byte < WORD_FIELDS)
		*fields |= UINT64_C(1) << byte;
}

/* A location of several operations (after a trailing DW_OP_stack_value
 * of two is dropped); loc0: the list's first. */
static void read_ops(const struct abi_regs *abi, uint64_t word, struct tparam *p,
		     const Dwarf_Op *expr, size_t len, bool loc0)
{
	uint64_t at = 0;
	size_t i;

	if (is_const(expr[0].atom)) {
		if (loc0)
			p->konst = true;
		return;
	}
	if (p->size <= word || !abi->agg_two_regs) {
		if (is_reg(expr[0].atom) && loc0) {
			set_reg(p, expr[0].atom);
		} else if (is_breg(expr[0].atom) && loc0) {
			for (i = 1; i < len; i++) {
				if (expr[i].atom == DW_OP_stack_value) {
					set_reg(p, expr[0].atom - DW_OP_breg0 + DW_OP_reg0);
					break;
				}
			}
		}
		return;
	}
	/* an aggregate in pieces: each piece's offset, in its word (a first
	 * piece of nothing only moves the offset on) */
	for (i = 0; i < len; i++) {
		if (expr[i].atom == DW_OP_piece) {
			if (i == 0) {
				at = expr[i].number;
				continue;
			}
			if (at < word)
				set_field(&p->fields[0], at);
			else
				set_field(&p->fields[1], at - word);
			at += expr[i].number;
		} else if (is_reg(expr[i].atom)) {
			set_reg(p, expr[i].atom);
		}
	}
}

/* One word used, by one piece: the member there, if the parameter names
 * itself and its type (not an out-of-line instance's, which names
 * neither), and the member is named and typed. */
static void find_member(struct fn_facts *fn, uint64_t word, struct tparam *p)
{
	uint64_t first = p->fields[0], second = p->fields[1], at;

	if (!first == !second || __builtin_popcountll(first | second) != 1)
		return;
	at = first ? (uint64_t)__builtin_ctzll(first) : word + __builtin_ctzll(second);
	if (!fn_facts__param_has(fn, FN_CODE, p->i, DW_AT_name) ||
	    !fn_facts__param_member(fn, p->i, at, &p->member))
		return;
	p->member_at = at;
	p->has_member = p->member.has_name && p->member.has_type;
}

static void param_read(struct fn_facts *fn, const struct abi_regs *abi, struct tparam *p)
{
	uint64_t word = fn_facts__ptr_size(fn);
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	size_t len, inner_len;
	Dwarf_Attribute attr;
	ptrdiff_t off = 0;
	bool loc0 = true;

	p->reg = NO_REG;
	p->size = fn_facts__param_size(fn, FN_CODE, p->i);
	p->in_memory = p->size > (abi->agg_two_regs ? 2u : 1u) * word;
	p->has_loc = fn_facts__param_has(fn, FN_CODE, p->i, DW_AT_location);
	if (!p->has_loc || !fn_facts__param_libdw_location(fn, FN_CODE, p->i, &attr))
		return;
	for (; (off = dwarf_getlocations(&attr, off, &base, &start, &end, &expr, &len)) > 0;
	     loc0 = false) {
		bool stack_value;
		unsigned int atom;

		if (!len)
			continue;
		stack_value = expr[len - 1].atom == DW_OP_stack_value;
		if (len == 2 && stack_value)
			len = 1;
		if (len != 1) {
			read_ops(abi, word, p, expr, len, loc0);
			continue;
		}
		atom = expr[0].atom;
		if (is_reg(atom) && loc0)
			set_reg(p, atom);
		else if (is_breg(atom) && loc0 && stack_value)
			set_reg(p, atom - DW_OP_breg0 + DW_OP_reg0);
		else if (atom == DW_OP_fbreg && loc0)
			p->stack = true;
		else if (is_const(atom) && loc0)
			p->konst = true;
		else if ((atom == DW_OP_entry_value || atom == DW_OP_GNU_entry_value) &&
			 abi_regs__entry_value(&attr, expr, &inner, &inner_len) && inner_len == 1 &&
			 is_reg(inner[0].atom))
			set_reg(p, inner[0].atom);
	}
	find_member(fn, word, p);
}

/* Is the parameter after v[i] in the register after slots from reg_idx? */
static bool next_in_place(const struct abi_regs *abi, const struct tparam *v, size_t n, size_t i,
			  int reg_idx, int slots)
{
	int next = reg_idx + slots;

	return i + 1 < n && v[i + 1].reg != NO_REG && next < abi->slots &&
	       v[i + 1].reg == abi_regs__slot(abi, next);
}

static void walk(const struct abi_regs *abi, uint64_t word, struct tparam *v, size_t n)
{
	int reg_idx = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct tparam *p = &v[i];
		uint64_t words = p->size / word + (p->size % word != 0);
		int slots = abi->agg_two_regs && p->size > word ?
			    (words < MAX_SLOTS ? (int)words : MAX_SLOTS) : 1;
		int taken = p->in_memory ? 1 : slots;
		bool regs_left = reg_idx < abi->slots;
		int expected = regs_left ? abi_regs__slot(abi, reg_idx) : -1;

		if (!p->has_loc) {
			if (regs_left && next_in_place(abi, v, n, i, reg_idx, slots))
				reg_idx += slots;
			else
				p->fate = DROPPED;
			continue;
		}
		if (p->konst) {
			p->fate = DROPPED;
			continue;
		}
		if (!regs_left || (p->stack && p->in_memory))
			continue;
		if (p->stack || p->reg == NO_REG || (expected >= 0 && expected != p->reg)) {
			p->unexpected = true;
		} else if (p->fields[0] && p->fields[1]) {
			taken = slots;
		} else if ((p->fields[0] || p->fields[1]) &&
			   next_in_place(abi, v, n, i, reg_idx, slots)) {
			p->has_member = false;
			taken = slots;
		} else if ((p->fields[0] || p->fields[1]) && p->has_member) {
			p->fate = CUT;
			taken = 1;
		}
		reg_idx += taken;
	}
}

/* The prototype of the parameters v[0 .. n) kept, and the varargs;
 * *flags as the top says */
static int build(struct fn_facts *fn, const struct tparam *v, size_t n, uint32_t *flags)
{
	struct fn_proto_param *kept = NULL;
	char **names = NULL;
	bool unexpected = false, has_struct = false;
	size_t i, nr = 0;
	int ret = -ENOMEM;

	if (!(kept = calloc(n + 1, sizeof(*kept))) || !(names = calloc(n + 1, sizeof(*names))))
		goto out;
	for (i = 0; i < n; i++) {
		const struct tparam *p = &v[i];

		if (p->fate == DROPPED || !p->has_loc)
			*flags |= FUNC_REC_OPTIMIZED;
		unexpected |= p->unexpected;
		has_struct |= p->fate == CUT ? p->member.is_struct :
			      fn_facts__param_is_struct(fn, FN_CODE, p->i);
		if (p->fate == DROPPED)
			continue;
		kept[nr].i = p->i;
		kept[nr].member = p->fate == CUT;
		kept[nr].member_at = p->member_at;
		if (p->has_member) {
			const char *pname = fn_facts__param_name(fn, FN_CODE, p->i);
			const char *mname = p->member.name;

			if (pname && mname && asprintf(&names[nr], "%s__%s", pname, mname) < 0) {
				names[nr] = NULL;
				goto out;
			}
		}
		kept[nr].name = names[nr];
		nr++;
	}
	if (unexpected && !has_struct)
		*flags |= FUNC_REC_UNEXPECTED_REG;
	ret = fn_facts__proto(fn, kept, nr, true);
out:
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(kept);
	return ret;
}

int true_sig__proto(struct fn_facts *fn, const struct abi_regs *abi, uint32_t *flags)
{
	size_t n = fn_facts__nr_params(fn, FN_CODE), i;
	struct tparam *v;
	int err;

	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v[i].i = i;
		param_read(fn, abi, &v[i]);
	}
	walk(abi, fn_facts__ptr_size(fn), v, n);
	err = build(fn, v, n, flags);
	free(v);
	return err;
}
