/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct dwarf_file: an ELF file opened for its DWARF, so that ET_REL
 * objects get their debug sections relocated (elf_reloc.c, or libdwfl),
 * compressed sections are inflated, and a .gnu_debuglink'ed debug file is
 * found (libdwfl).
 */
#ifndef D2B_DWARF_FILE_H
#define D2B_DWARF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

struct diag;
struct dwarf_file;
struct pages_behind;

/* Every compile unit's DIE, in .debug_info order. */
struct dwarf_units {
	Dwarf_Die *dies;
	uint8_t *types;		/* each one's DW_UT_* (as libdw infers it before DWARF 5) */
	size_t nr;
};

/* Open the file at path; a failure says why through diag (an error, without
 * the path). */
int dwarf_file__open(const char *path, struct diag *diag, struct dwarf_file **ret);
/* The same for an ELF file's bytes in memory (copied: data may be freed once
 * this returns); name stands for its path: in messages, and where its
 * separate debug files are looked for. */
int dwarf_file__open_mem(const void *data, size_t size, const char *name, struct diag *diag,
			 struct dwarf_file **ret);
void dwarf_file__free(struct dwarf_file *df);
Dwarf *dwarf_file__dwarf(const struct dwarf_file *df);
/* The path of the file opened. */
const char *dwarf_file__main_path(const struct dwarf_file *df);
/* The path of the file that holds the DWARF: the file, or its separate
 * debug file. */
const char *dwarf_file__debug_path(const struct dwarf_file *df);
bool dwarf_file__big_endian(const struct dwarf_file *df);
/* Address (and pointer) size of the main file's ELF class: 4 or 8 bytes */
unsigned int dwarf_file__addr_size(const struct dwarf_file *df);
/* e_machine of the main file (EM_*) */
unsigned int dwarf_file__machine(const struct dwarf_file *df);
/* The main ELF file (not a separate debug file): its symbols, .BTF_ids */
Elf *dwarf_file__elf(const struct dwarf_file *df);
/*
 * List the compile, partial and skeleton units (type units are left out
 * and counted in *skipped).  Caller frees units->dies and units->types.
 * behind, if not NULL, reaches each unit's offset in .debug_info as the
 * listing goes, dropping the pages behind it (the listing reads every
 * unit's header: see pages_behind); the caller drops the rest.
 */
int dwarf_file__units(struct dwarf_file *df, struct dwarf_units *units, size_t *skipped,
		      struct pages_behind *behind);
/*
 * Map a DWARF address (a DW_OP_addr operand) to the allocated ELF section
 * holding it: section index and offset inside it.  -ENOENT if none.
 */
int dwarf_file__addr_section(struct dwarf_file *df, uint64_t addr, size_t *ret_shndx,
			     uint64_t *ret_off);
/*
 * ET_REL only: the section and offset of the defined data symbol name
 * (-ENOENT for a NULL name: a variable whose name did not read),
 * for objects whose relocations libdwfl cannot apply (BPF targets with
 * elfutils < 0.190): their DW_OP_addr operands are not resolved.
 */
int dwarf_file__symbol_section(struct dwarf_file *df, const char *name, size_t *ret_shndx,
			       uint64_t *ret_off);
/* Whether elf_reloc.c relocated the file's debug sections (an ET_REL
 * file of a target it knows), rather than libdwfl. */
bool dwarf_file__own_relocation(const struct dwarf_file *df);
/* How many sections the main ELF file has (indices 0 .. n-1). */
size_t dwarf_file__nr_sections(const struct dwarf_file *df);
/* Name and size of a section of the main ELF file, by index. */
int dwarf_file__section(struct dwarf_file *df, size_t shndx, const char **ret_name,
			uint64_t *ret_size);

#endif
