// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Relocating an object's debug sections: theory
 *
 * In a relocatable file (a kernel module, an object) the DWARF's
 * references to other sections are relocations: a DW_FORM_strp offset is
 * 0 plus a relocation against .debug_str's section symbol, a variable's
 * DW_OP_addr operand is 0 plus one against its data section's.  Before
 * anything reads the DWARF, they must be applied.  libdwfl can do it, but
 * it relocates every section of the file (code and data too) through
 * gelf_getrela()/gelf_update_rela() per entry, which for a module such as
 * xfs.ko costs a fifth of the whole conversion.  Like drgn, we apply the
 * few relocation types that debug sections hold ourselves, straight over
 * the arrays, and leave every other case to libdwfl.
 *
 * Pass 1 (layout): every SHF_ALLOC section gets an address of its own,
 * one after the other from LAYOUT_BASE, aligned to sh_addralign, so that
 * a relocated address names its section (elf_reloc__section() inverts it
 * by bisection; sections of size 0 hold no address).  Address 0, what an
 * unresolved relocation leaves, is in no section.
 *
 * Pass 2 (symbols): each symbol's value, once: its section's address plus
 * st_value; SHN_ABS symbols their st_value; undefined and common symbols
 * resolve to nothing, and relocations against them are left as they are
 * (libdwfl does the same in a file of its own).
 *
 * Pass 3 (apply): for each SHT_RELA section whose target is a .debug_* or
 * .zdebug_* section, inflate the target if it is compressed (as libdw
 * would), then write S + A into its raw data, in the file's byte order, at
 * the width the relocation type gives.  Any type outside the target's
 * table (elf_reloc_size), a REL section, or an entry out of bounds fails
 * with -EOPNOTSUPP; the caller discards the Elf and lets libdwfl open the
 * file, so its behaviour (and its errors) stay the reference.
 *
 * tests/unit/test_die_reader.c checks the bytes against libdwfl's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/elf_reloc.h"
#include "base/pages.h"

/* where the layout starts: 0 and the addresses just above it stay unused */
enum { LAYOUT_BASE = 0x10000 };

struct alloc_range {
	uint64_t start, end;
	size_t shndx;
};

struct elf_reloc {
	struct alloc_range *ranges;	/* by address (the layout's order) */
	size_t nr_ranges;
};

struct syms {
	uint64_t *value;
	uint8_t *defined;
	size_t nr;
	size_t shndx;			/* the symbol table's section */
};

/* Bytes a relocation writes in a debug section, 0 for none (R_*_NONE), -1
 * for a type we do not apply. */
static int elf_reloc_size(unsigned int machine, unsigned int type)
{
	switch (machine) {
	case EM_X86_64:
		switch (type) {
		case R_X86_64_NONE:
			return 0;
		case R_X86_64_64:
			return 8;
		case R_X86_64_32:
		case R_X86_64_32S:
			return 4;
		}
		return -1;
	case EM_AARCH64:
		switch (type) {
		case R_AARCH64_NONE:
			return 0;
		case R_AARCH64_ABS64:
			return 8;
		case R_AARCH64_ABS32:
			return 4;
		}
		return -1;
	}
	return -1;
}

static bool known_machine(unsigned int machine)
{
	return elf_reloc_size(machine, 0) == 0;
}

static int layout(Elf *elf, size_t nr_sections, uint64_t *addr, struct elf_reloc *r)
{
	uint64_t next = LAYOUT_BASE;
	size_t i;

	r->ranges = calloc(nr_sections ? nr_sections : 1, sizeof(*r->ranges));
	if (!r->ranges)
		return -ENOMEM;
	for (i = 1; i < nr_sections; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr shdr;
		uint64_t align;

		if (!scn || !gelf_getshdr(scn, &shdr))
			return -EOPNOTSUPP;
		if (!(shdr.sh_flags & SHF_ALLOC))
			continue;
		align = shdr.sh_addralign ? shdr.sh_addralign : 1;
		if (align & (align - 1) || shdr.sh_size > UINT64_MAX / 2 ||
		    next > UINT64_MAX / 2 - shdr.sh_size - align)
			return -EOPNOTSUPP;
		next = (next + align - 1) & ~(align - 1);
		addr[i] = next;
		if (shdr.sh_size) {
			r->ranges[r->nr_ranges].start = next;
			r->ranges[r->nr_ranges].end = next + shdr.sh_size;
			r->ranges[r->nr_ranges++].shndx = i;
		}
		next += shdr.sh_size;
	}
	return 0;
}

static int read_symbols(Elf *elf, size_t nr_sections, const uint64_t *addr, struct syms *s)
{
	Elf_Data *data = NULL, *xdata = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB) {
			s->shndx = elf_ndxscn(scn);
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!data || !shdr.sh_entsize)
		return -EOPNOTSUPP;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr x;

		if (gelf_getshdr(scn, &x) && x.sh_type == SHT_SYMTAB_SHNDX && x.sh_link == s->shndx)
			xdata = elf_getdata(scn, NULL);
	}
	s->nr = data->d_size / shdr.sh_entsize;
	s->value = calloc(s->nr ? s->nr : 1, sizeof(*s->value));
	s->defined = calloc(s->nr ? s->nr : 1, 1);
	if (!s->value || !s->defined)
		return -ENOMEM;
	for (i = 1; i < s->nr; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		size_t shndx;

		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx))
			return -EOPNOTSUPP;
		shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		if (sym.st_shndx == SHN_ABS) {
			s->value[i] = sym.st_value;
			s->defined[i] = 1;
		} else if (sym.st_shndx != SHN_UNDEF && sym.st_shndx != SHN_COMMON &&
			   shndx < nr_sections) {
			s->value[i] = addr[shndx] + sym.st_value;
			s->defined[i] = 1;
		}
	}
	return 0;
}

static inline void put(uint8_t *p, uint64_t v, int size, bool big_endian)
{
	int i;

	if (big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		/* the host's order: one store (memcpy of the low bytes) */
		if (size == 8) {
			memcpy(p, &v, 8);
		} else {
			uint32_t w = (uint32_t)v;

			memcpy(p, &w, 4);
		}
		return;
	}
	for (i = 0; i < size; i++) {
		int shift = big_endian ? (size - 1 - i) * 8 : i * 8;

		p[i] = (uint8_t)(v >> shift);
	}
}

/* The debug section a relocation section applies to, inflated and with
 * writable raw data; NULL if it is not one. */
static Elf_Data *debug_target(Elf *elf, size_t shstrndx, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	const char *name;
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr) || (shdr.sh_flags & SHF_ALLOC) ||
	    shdr.sh_type == SHT_NOBITS)
		return NULL;
	name = elf_strptr(elf, shstrndx, shdr.sh_name);
	if (!name || (strncmp(name, ".debug_", 7) != 0 && strncmp(name, ".zdebug_", 8) != 0))
		return NULL;
	if (name[1] == 'z')
		elf_compress_gnu(scn, 0, 0);
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return NULL;
	return elf_rawdata(scn, NULL);
}

struct rela {
	uint64_t offset, sym, type;
	int64_t addend;
};

static void rela_at(const Elf_Data *d, bool is64, size_t i, struct rela *ret)
{
	if (is64) {
		const Elf64_Rela *e = (const Elf64_Rela *)d->d_buf + i;

		ret->offset = e->r_offset;
		ret->sym = ELF64_R_SYM(e->r_info);
		ret->type = ELF64_R_TYPE(e->r_info);
		ret->addend = e->r_addend;
	} else {
		const Elf32_Rela *e = (const Elf32_Rela *)d->d_buf + i;

		ret->offset = e->r_offset;
		ret->sym = ELF32_R_SYM(e->r_info);
		ret->type = ELF32_R_TYPE(e->r_info);
		ret->addend = e->r_addend;
	}
}

static int apply(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, const struct syms *s,
		 const GElf_Ehdr *ehdr, size_t shstrndx)
{
	bool is64 = ehdr->e_ident[EI_CLASS] == ELFCLASS64;
	bool big_endian = ehdr->e_ident[EI_DATA] == ELFDATA2MSB;
	size_t entsize = is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela);
	Elf_Data *target, *rel;
	size_t i, n;

	target = debug_target(elf, shstrndx, shdr->sh_info);
	if (!target)
		return 0;
	if (shdr->sh_type != SHT_RELA || shdr->sh_link != s->shndx)
		return -EOPNOTSUPP;
	rel = elf_getdata(scn, NULL);
	if (!rel || !rel->d_buf || rel->d_type != ELF_T_RELA || rel->d_size % entsize ||
	    (uintptr_t)rel->d_buf % (is64 ? 8 : 4))
		return -EOPNOTSUPP;
	n = rel->d_size / entsize;
	/* (a mapped file's pages copied all at once, not one fault each) */
	if (n)
		pages__prepare_write(target->d_buf, target->d_size);
	for (i = 0; i < n; i++) {
		struct rela e;
		int size;

		rela_at(rel, is64, i, &e);
		size = elf_reloc_size(ehdr->e_machine, (unsigned int)e.type);
		if (size < 0 || e.sym >= s->nr || e.offset > target->d_size ||
		    target->d_size - e.offset < (uint64_t)size)
			return -EOPNOTSUPP;
		if (!size || !s->defined[e.sym])
			continue;
		put((uint8_t *)target->d_buf + e.offset, s->value[e.sym] + (uint64_t)e.addend,
		    size, big_endian);
	}
	return 0;
}

int elf_reloc__new(Elf *elf, struct elf_reloc **ret)
{
	struct syms s = { 0 };
	struct elf_reloc *r;
	size_t nr_sections, shstrndx;
	uint64_t *addr = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	int err;

	*ret = NULL;
	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_type != ET_REL || !known_machine(ehdr.e_machine) ||
	    elf_getshdrnum(elf, &nr_sections) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -EOPNOTSUPP;
	r = calloc(1, sizeof(*r));
	addr = calloc(nr_sections ? nr_sections : 1, sizeof(*addr));
	if (!r || !addr) {
		err = -ENOMEM;
		goto out;
	}
	err = layout(elf, nr_sections, addr, r);
	if (!err)
		err = read_symbols(elf, nr_sections, addr, &s);
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			err = -EOPNOTSUPP;
		else if (shdr.sh_type == SHT_RELA || shdr.sh_type == SHT_REL)
			err = apply(elf, scn, &shdr, &s, &ehdr, shstrndx);
	}
out:
	free(addr);
	free(s.value);
	free(s.defined);
	if (err) {
		elf_reloc__free(r);
		return err;
	}
	*ret = r;
	return 0;
}

void elf_reloc__free(struct elf_reloc *r)
{
	if (!r)
		return;
	free(r->ranges);
	free(r);
}

int elf_reloc__section(const struct elf_reloc *r, uint64_t addr, size_t *ret_shndx,
		       uint64_t *ret_off)
{
	size_t lo = 0, hi = r->nr_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < r->ranges[mid].start)
			hi = mid;
		else if (addr >= r->ranges[mid].end)
			lo = mid + 1;
		else {
			*ret_shndx = r->ranges[mid].shndx;
			*ret_off = addr - r->ranges[mid].start;
			return 0;
		}
	}
	return -ENOENT;
}
