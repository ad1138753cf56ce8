// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ABIs' parameter registers, as pahole knows them (abi_regs.h). */
#include <dwarf.h>
#include <elf.h>

#include "kernel/abi_regs.h"

/* The registers pahole names, as DW_OP_reg* operands. */
static int named_regs(unsigned int machine, int regs[8])
{
	static const int x86_64[] = { DW_OP_reg5, DW_OP_reg4, DW_OP_reg1,	/* rdi rsi rdx */
				      DW_OP_reg2, DW_OP_reg8, DW_OP_reg9 };	/* rcx r8 r9 */
	static const int s390[] = { DW_OP_reg2, DW_OP_reg3, DW_OP_reg4, DW_OP_reg5, DW_OP_reg6 };
	static const int arm[] = { DW_OP_reg0, DW_OP_reg1, DW_OP_reg2, DW_OP_reg3,
				   DW_OP_reg4, DW_OP_reg5, DW_OP_reg6, DW_OP_reg7 };
	const int *t;
	int i, n;

	switch (machine) {
	case EM_X86_64:
		t = x86_64, n = 6;
		break;
	case EM_S390:
		t = s390, n = 5;
		break;
	case EM_ARM:
	case EM_AARCH64:
		t = arm, n = 8;
		break;
	default:
		return 0;
	}
	for (i = 0; i < n; i++)
		regs[i] = t[i];
	return n;
}

/* How many parameter registers pahole counts: also on targets whose
 * registers it does not name (their numbers are unknown to it). */
static int counted_regs(unsigned int machine, int nr_named)
{
	switch (machine) {
	case EM_SPARC:
	case EM_SPARCV9:
		return 6;
	case EM_ARC:
	case EM_MIPS:
	case EM_PPC:
	case EM_PPC64:
	case EM_RISCV:
		return 8;
	default:
		return nr_named;
	}
}

void abi_regs__init(struct abi_regs *abi, unsigned int machine)
{
	abi->nr = named_regs(machine, abi->reg);
	abi->slots = counted_regs(machine, abi->nr);
	abi->agg_two_regs = machine != EM_S390;
}
