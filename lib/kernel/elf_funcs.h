/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct elf_funcs: the function symbols of an ELF file, by the name DWARF
 * gives the function, and the kfuncs its .BTF_ids section lists.
 *
 * A symbol's name is cut at its first '.' (foo.isra.0, foo.constprop.1 are
 * foo); pieces of a function (foo.cold, foo.part.0) are not functions.  A
 * name whose symbols have more than one address is "ambiguous": the BTF
 * FUNC could describe either.
 */
#ifndef D2B_KERNEL_ELF_FUNCS_H
#define D2B_KERNEL_ELF_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

struct elf_funcs;

/* kfunc flags of a BTF_ID_FLAGS() entry that change the BTF */
enum elf_kfunc_flags {
	ELF_KF_FASTCALL = 1 << 12,	/* DECL_TAG "bpf_fastcall" */
	ELF_KF_ARENA_RET = 1 << 13,	/* returns an arena pointer */
	ELF_KF_ARENA_ARG1 = 1 << 14,	/* takes one as first parameter */
	ELF_KF_ARENA_ARG2 = 1 << 15,	/* ... as second */
	ELF_KF_ARENA_MASK = ELF_KF_ARENA_RET | ELF_KF_ARENA_ARG1 | ELF_KF_ARENA_ARG2,
};

struct elf_func_info {
	bool ambiguous;		/* several addresses */
	bool kfunc;		/* in a kfunc set of .BTF_ids */
	uint32_t kfunc_flags;	/* its BTF_ID_FLAGS() */
	uint32_t first_sym, nr_syms;	/* private: for elf_funcs__at() */
};

/* What is at an address, of one name's symbols */
enum elf_at {
	ELF_AT_SYMBOL = 1 << 0,	/* a symbol of the name */
	ELF_AT_CLONE = 1 << 1,	/* ... that is a .isra/.constprop clone */
};

/* Read elf's symbol table (.symtab, else .dynsym) and .BTF_ids.  An ELF
 * file without symbols gives an empty table.  -EBADMSG: a malformed table. */
int elf_funcs__new(Elf *elf, struct elf_funcs **ret);
void elf_funcs__free(struct elf_funcs *ef);
/* How many distinct function names */
size_t elf_funcs__count(const struct elf_funcs *ef);
/* Look up a function by its DWARF name: false if no symbol has it. */
bool elf_funcs__find(const struct elf_funcs *ef, const char *name, struct elf_func_info *ret);
/*
 * Which strings of the string section [str, str + size) (NUL-separated, as
 * .debug_str) name a function: in *ret (free() it), the bit of byte offset
 * o (bit o % 64 of word o / 64) is set if o starts a string that
 * elf_funcs__find() finds.  Strings wholly in [0, *ret_covered) are
 * marked; a last string without its NUL is not.
 */
int elf_funcs__mark_names(const struct elf_funcs *ef, const char *str, size_t size,
			  uint64_t **ret, size_t *ret_covered);
/* The enum elf_at flags of address addr for the name info was found for
 * (0: none of its symbols is there). */
unsigned int elf_funcs__at(const struct elf_funcs *ef, const struct elf_func_info *info,
			   uint64_t addr);
/* The whole name of a symbol of that name at addr that has a '.' (foo.isra.0,
 * foo.constprop.1; the first by address order), or NULL.  Lives as long as ef. */
const char *elf_funcs__dotted_at(const struct elf_funcs *ef, const struct elf_func_info *info,
				 uint64_t addr);

#endif
