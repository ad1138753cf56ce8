// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/elf_ident.h"

enum elf_ident elf_ident__check(const void *buf, size_t len)
{
	const uint8_t *id = buf;

	if (len < SELFMAG || memcmp(id, ELFMAG, SELFMAG))
		return ELF_IDENT_NOT_ELF;
	if (len < EI_NIDENT)
		return ELF_IDENT_TRUNCATED;
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)
		return ELF_IDENT_BAD_CLASS;
	if (id[EI_DATA] != ELFDATA2LSB && id[EI_DATA] != ELFDATA2MSB)
		return ELF_IDENT_BAD_DATA;
	if (id[EI_VERSION] != EV_CURRENT)
		return ELF_IDENT_BAD_VERSION;
	return ELF_IDENT_OK;
}

const char *elf_ident__why(enum elf_ident r, const void *ident, char *buf, size_t len)
{
	const uint8_t *id = ident;

	switch (r) {
	case ELF_IDENT_NOT_ELF:
		snprintf(buf, len, "not an ELF file");
		break;
	case ELF_IDENT_TRUNCATED:
		snprintf(buf, len, "truncated ELF header");
		break;
	case ELF_IDENT_BAD_CLASS:
		snprintf(buf, len, "unsupported ELF class %u", id[EI_CLASS]);
		break;
	case ELF_IDENT_BAD_DATA:
		snprintf(buf, len, "unsupported ELF data encoding %u", id[EI_DATA]);
		break;
	case ELF_IDENT_BAD_VERSION:
		snprintf(buf, len, "unsupported ELF version %u", id[EI_VERSION]);
		break;
	case ELF_IDENT_OK:
	default:
		snprintf(buf, len, "a valid ELF identification");
		break;
	}
	return buf;
}
