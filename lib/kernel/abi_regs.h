/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The registers a machine's ABI passes the first integer parameters in,
 * as pahole knows them: the kernel's function policy checks that a
 * function's parameters arrive there (func_judge.c, true_sig.c).
 */
#ifndef D2B_KERNEL_ABI_REGS_H
#define D2B_KERNEL_ABI_REGS_H

#include <stdbool.h>
#include <stddef.h>

#include <elfutils/libdw.h>

struct abi_regs {
	int reg[8];		/* DW_OP_reg* of the registers pahole names, in order */
	int nr;
	int slots;		/* pahole's count of them: numbers unknown past nr
				 * (pahole 1.32's reading) */
	bool agg_two_regs;	/* an aggregate of two words takes two of them */
};

/* The registers of machine (an ELF e_machine); none for a machine not
 * listed (no check). */
void abi_regs__init(struct abi_regs *abi, unsigned int machine);

/* The register of parameter slot i, or -1 where pahole knows none */
static inline int abi_regs__slot(const struct abi_regs *abi, int i)
{
	return i < abi->nr ? abi->reg[i] : -1;
}

/* The expression inside op, a DW_OP_entry_value (or GNU's) of the
 * location loc: false if libdw cannot give it. */
static inline bool abi_regs__entry_value(Dwarf_Attribute *loc, Dwarf_Op *op, Dwarf_Op **inner,
					 size_t *len)
{
	Dwarf_Attribute entry;

	return dwarf_getlocation_attr(loc, op, &entry) == 0 &&
	       dwarf_getlocation(&entry, inner, len) == 0;
}

#endif
