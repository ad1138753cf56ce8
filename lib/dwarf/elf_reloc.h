/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct elf_reloc: a relocatable (ET_REL) object's allocated sections laid
 * out at addresses of their own, and its debug sections relocated against
 * that layout, in place, for the targets we know (elf_reloc.c).
 */
#ifndef D2B_ELF_RELOC_H
#define D2B_ELF_RELOC_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

struct elf_reloc;

/*
 * Lay out elf's allocated sections and apply the relocations of its
 * .debug_* and .zdebug_* sections (inflating compressed ones first) to
 * the sections' raw data, which must be writable (ELF_C_READ_MMAP_PRIVATE
 * or ELF_C_READ).  -EOPNOTSUPP when the target or a relocation's type is
 * not one elf_reloc.c knows, or a relocation is out of its section's
 * bounds: the caller then discards elf, which may be partly relocated, and
 * opens the file another way.
 */
int elf_reloc__new(Elf *elf, struct elf_reloc **ret);
void elf_reloc__free(struct elf_reloc *r);
/* The allocated section holding addr, a relocated address, and the offset
 * in it; -ENOENT if none. */
int elf_reloc__section(const struct elf_reloc *r, uint64_t addr, size_t *ret_shndx,
		       uint64_t *ret_off);

#endif
