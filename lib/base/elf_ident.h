/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one check of an ELF identification (e_ident, the first bytes of an
 * ELF file), for every reader that must tell an ELF file from anything
 * else before handing it to libelf.
 */
#ifndef D2B_ELF_IDENT_H
#define D2B_ELF_IDENT_H

#include <stddef.h>

enum {
	ELF_IDENT_WHY_LEN = 64,	/* enough for any elf_ident__why() */
};

/* What the first bytes of a file are; ordered, so that "r >= ELF_IDENT_TRUNCATED"
 * means "has the ELF magic" */
enum elf_ident {
	ELF_IDENT_NOT_ELF,	/* no ELF magic */
	ELF_IDENT_TRUNCATED,	/* the magic, but e_ident is cut short */
	ELF_IDENT_BAD_CLASS,	/* neither ELFCLASS32 nor ELFCLASS64 */
	ELF_IDENT_BAD_DATA,	/* neither ELFDATA2LSB nor ELFDATA2MSB */
	ELF_IDENT_BAD_VERSION,	/* not EV_CURRENT */
	ELF_IDENT_OK,
};

/* Check the len bytes at buf, read from the start of a file. */
enum elf_ident elf_ident__check(const void *buf, size_t len);
/* The reason for r in words ("not an ELF file", "unsupported ELF class 3"),
 * into buf; returns buf. */
const char *elf_ident__why(enum elf_ident r, const void *ident, char *buf, size_t len);

#endif
