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
 * flags: a parameter dropped or without a location (UNIT_FUNC_OPTIMIZED),
 * one unexpected while no parameter is a struct (UNIT_FUNC_UNEXPECTED_REG:
 * the kernel policy leaves the function out).  (Out-of-line code of an
 * inlined function also has its abstract origin judged with its
 * registers: cu_decls.c's origin_flags().)
 *
 * Locations are read by libdw: such functions are few.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "unit/cu_truesig.h"
#include "unit/cu_types.h"

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
	struct cu_die die;		/* the parameter DIE of the code */
	struct cu_die member;		/* has_member: the member in its one piece */
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
static void read_ops(struct cu *w, struct tparam *p, const Dwarf_Op *expr, size_t len, bool loc0)
{
	uint64_t word = w->ptr_size, at = 0;
	size_t i;

	if (is_const(expr[0].atom)) {
		if (loc0)
			p->konst = true;
		return;
	}
	if (p->size <= word || !w->agg_two_regs) {
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

/* The member of the struct param's own type (through typedefs and
 * qualifiers, as far as a type without DW_AT_byte_size leads) at byte
 * offset at. */
static bool member_at(struct cu *w, const struct cu_die *param, uint64_t at, struct cu_die *ret)
{
	struct cu_die t;
	uint64_t size, off;
	int hops;

	if (!cu__ref_attr(w, param, DW_AT_type, &t))
		return false;
	for (hops = 0; hops < CU_MAX_REF_HOPS; hops++) {
		if (cu__attr_udata(w, &t, DW_AT_byte_size, &size) && size)
			break;
		if (!cu__ref_attr(w, &t, DW_AT_type, &t))
			return false;
	}
	if (hops == CU_MAX_REF_HOPS || t.d.tag != DW_TAG_structure_type || !cu__child(w, &t, ret))
		return false;
	do {
		if (ret->d.tag != DW_TAG_member)
			continue;
		if (cu__attr_udata(w, ret, DW_AT_data_bit_offset, &off)) {
			if (off == at * 8)
				return true;
		} else if (cu__attr_udata(w, ret, DW_AT_data_member_location, &off) && off == at) {
			return true;
		}
	} while (cu__next(w, ret));
	return false;
}

/* One word used, by one piece: the member there, if the parameter names
 * itself and its type (not an out-of-line instance's, which names
 * neither), and the member is named and typed. */
static void find_member(struct cu *w, struct tparam *p)
{
	uint64_t first = p->fields[0], second = p->fields[1], at;

	if (!first == !second || __builtin_popcountll(first | second) != 1)
		return;
	at = first ? (uint64_t)__builtin_ctzll(first) : w->ptr_size + __builtin_ctzll(second);
	if (!cu__has_attr(&p->die, DW_AT_name) || !member_at(w, &p->die, at, &p->member))
		return;
	p->has_member = cu__has_attr(&p->member, DW_AT_name) && cu__has_attr(&p->member, DW_AT_type);
}

static void param_read(struct cu *w, struct tparam *p)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	size_t len, inner_len;
	Dwarf_Attribute attr;
	ptrdiff_t off = 0;
	bool loc0 = true;

	p->reg = NO_REG;
	p->size = cu__param_size(w, &p->die);
	p->in_memory = p->size > (w->agg_two_regs ? 2u : 1u) * w->ptr_size;
	p->has_loc = cu__has_attr(&p->die, DW_AT_location);
	if (!p->has_loc || !cu__libdw_location(w, &p->die, &attr))
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
			read_ops(w, p, expr, len, loc0);
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
			 cu__entry_value(&attr, expr, &inner, &inner_len) && inner_len == 1 &&
			 is_reg(inner[0].atom))
			set_reg(p, inner[0].atom);
	}
	find_member(w, p);
}

/* The ABI's register for slot i, or -1 where pahole names none */
static int slot_reg(const struct cu *w, int i)
{
	return i < w->nr_reg_params ? w->reg_params[i] : -1;
}

/* Is the parameter after v[i] in the register after slots from reg_idx? */
static bool next_in_place(const struct cu *w, const struct tparam *v, size_t n, size_t i,
			  int reg_idx, int slots)
{
	int next = reg_idx + slots;

	return i + 1 < n && v[i + 1].reg != NO_REG && next < w->nr_param_slots &&
	       v[i + 1].reg == slot_reg(w, next);
}

static void walk(const struct cu *w, struct tparam *v, size_t n)
{
	uint64_t word = w->ptr_size;
	int reg_idx = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct tparam *p = &v[i];
		uint64_t words = p->size / word + (p->size % word != 0);
		int slots = w->agg_two_regs && p->size > word ?
			    (words < MAX_SLOTS ? (int)words : MAX_SLOTS) : 1;
		int taken = p->in_memory ? 1 : slots;
		bool regs_left = reg_idx < w->nr_param_slots;
		int expected = regs_left ? slot_reg(w, reg_idx) : -1;

		if (!p->has_loc) {
			if (regs_left && next_in_place(w, v, n, i, reg_idx, slots))
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
			   next_in_place(w, v, n, i, reg_idx, slots)) {
			p->has_member = false;
			taken = slots;
		} else if ((p->fields[0] || p->fields[1]) && p->has_member) {
			p->fate = CUT;
			taken = 1;
		}
		reg_idx += taken;
	}
}

/* The prototype of the parameters v[0 .. n) kept, and varargs if not
 * NULL (DW_TAG_unspecified_parameters); *flags as the top says */
static int build(struct cu *w, const struct cu_die *decl, const struct tparam *v, size_t n,
		 const struct cu_die *varargs, uint32_t *flags)
{
	struct cu_die *dies = NULL;
	char **names = NULL;
	bool unexpected = false, has_struct = false;
	size_t i, nr = 0;
	int ret = -ENOMEM;

	if (!(dies = calloc(n + 1, sizeof(*dies))) || !(names = calloc(n + 1, sizeof(*names))))
		goto out;
	for (i = 0; i < n; i++) {
		const struct tparam *p = &v[i];
		const struct cu_die *typed = p->fate == CUT ? &p->member : &p->die;

		if (p->fate == DROPPED || !p->has_loc)
			*flags |= UNIT_FUNC_OPTIMIZED;
		unexpected |= p->unexpected;
		has_struct |= cu__is_struct_param(w, typed);
		if (p->fate == DROPPED)
			continue;
		dies[nr] = p->die;
		/* an out-of-line instance's parameter: its declaration's */
		if (!cu__has_attr(&p->die, DW_AT_type))
			cu__ref_attr(w, &p->die, DW_AT_abstract_origin, &dies[nr]);
		if (p->fate == CUT)
			dies[nr] = p->member;
		if (p->has_member) {
			const char *pname = cu__name(w, &p->die), *mname = cu__name(w, &p->member);

			if (pname && mname && asprintf(&names[nr], "%s__%s", pname, mname) < 0) {
				names[nr] = NULL;
				goto out;
			}
		}
		nr++;
	}
	if (unexpected && !has_struct)
		*flags |= UNIT_FUNC_UNEXPECTED_REG;
	if (varargs)
		dies[nr++] = *varargs;
	ret = cu_types__proto_of(w, decl, dies, (const char *const *)names, nr);
out:
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(dies);
	return ret;
}

int cu_truesig__proto(struct cu *w, const struct cu_die *die, const struct cu_die *decl,
		      uint32_t *flags)
{
	struct tparam *v = NULL;
	struct cu_die child, varargs = { 0 };
	size_t n = 0, cap = 0;
	int err;

	if (cu__child(w, die, &child)) {
		do {
			if (child.d.tag == DW_TAG_unspecified_parameters)
				varargs = child;
			if (child.d.tag != DW_TAG_formal_parameter)
				continue;
			err = VEC_RESERVE(v, cap, n, 1);
			if (err)
				goto out;
			memset(&v[n], 0, sizeof(v[n]));
			v[n].die = child;
			param_read(w, &v[n++]);
		} while (cu__next(w, &child));
	}
	walk(w, v, n);
	err = build(w, decl, v, n, varargs.du ? &varargs : NULL, flags);
out:
	free(v);
	return err;
}
