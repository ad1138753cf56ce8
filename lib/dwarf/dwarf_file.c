// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdwfl in "offline" mode does three things for us that plain
 * dwarf_begin_elf() does not: it applies an ET_REL file's relocations to
 * its debug sections (without that, every string in a kernel module's
 * DWARF is garbage), it lays out ET_REL sections at distinct addresses so
 * that a variable's DW_OP_addr names its section, and it follows
 * .gnu_debuglink / build-id to a separate debug file.  libdw itself inflates
 * SHF_COMPRESSED and legacy .zdebug sections.
 *
 * But libdwfl relocates every section of an ET_REL file, code and data
 * too, one gelf_update_rela() at a time.  So an ET_REL file that holds its
 * own DWARF, for a target elf_reloc.c knows (x86-64, AArch64: kernel
 * modules, objects), is opened without it: libelf maps it copy-on-write,
 * elf_reloc.c lays out its sections and relocates only its debug sections,
 * and dwarf_begin_elf() reads them.  Every other file, and one whose
 * relocations elf_reloc.c declines, goes through libdwfl.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dwarf.h>

#include "dwarf/dwarf_file.h"
#include "dwarf/elf_reloc.h"
#include "base/diag.h"
#include "base/elf_ident.h"
#include "base/hmap.h"
#include "base/pages.h"

struct dwarf_file {
	Dwfl *dwfl;		/* NULL when opened without libdwfl: */
	Dwfl_Module *mod;
	int fd;			/* then this file, */
	char *path;		/* its path, */
	struct elf_reloc *reloc;	/* and its layout */
	Dwarf *dw;
	Dwarf_Addr bias;
	Elf *elf;		/* the main file */
	size_t shstrndx;
	bool big_endian;
	unsigned int addr_size;	/* bytes: the ELF class's */
	bool is_rel;
	/* ET_REL: data symbol name hash -> symbol index, built at open */
	struct hmap syms;
	Elf_Data *symtab;
	size_t symstr_ndx;
	GElf_Shdr symtab_shdr;
};

static char *debuginfo_path_none;	/* NULL: the standard search path */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path_none,
};

/* The magic and a whole e_ident; libdwfl judges the rest. */
static int elf_check_header(int fd, struct diag *diag)
{
	unsigned char ident[EI_NIDENT];
	char why[ELF_IDENT_WHY_LEN];
	ssize_t n = pread(fd, ident, sizeof(ident), 0);
	enum elf_ident r;

	if (n < 0) {
		int err = -errno;

		diag__say(diag, D2B_ERROR, "read failed: %s", strerror(-err));
		return err;
	}
	r = elf_ident__check(ident, n);
	if (r < ELF_IDENT_BAD_CLASS) {
		diag__say(diag, D2B_ERROR, "%s", elf_ident__why(r, ident, why, sizeof(why)));
		return -ENOEXEC;
	}
	return 0;
}

static bool data_symbol(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_OBJECT || type == STT_NOTYPE || type == STT_TLS) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_shndx < SHN_LORESERVE && sym->st_name;
}

static int index_symbols(struct dwarf_file *df)
{
	Elf_Scn *scn = NULL;
	size_t i, n;

	while ((scn = elf_nextscn(df->elf, scn))) {
		if (!gelf_getshdr(scn, &df->symtab_shdr) || df->symtab_shdr.sh_type != SHT_SYMTAB)
			continue;
		df->symtab = elf_getdata(scn, NULL);
		df->symstr_ndx = df->symtab_shdr.sh_link;
		break;
	}
	if (!df->symtab || !df->symtab_shdr.sh_entsize)
		return 0;
	n = df->symtab->d_size / df->symtab_shdr.sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int err;

		if (!gelf_getsym(df->symtab, (int)i, &sym) || !data_symbol(&sym))
			continue;
		name = elf_strptr(df->elf, df->symstr_ndx, sym.st_name);
		if (!name)
			continue;
		err = hmap__add(&df->syms, hash_str(name), i);
		if (err)
			return err;
	}
	return 0;
}

int dwarf_file__symbol_section(struct dwarf_file *df, const char *name, size_t *ret_shndx,
			       uint64_t *ret_off)
{
	struct hmap_iter it;
	uint64_t idx;

	if (!name || !df->is_rel || !df->symtab)
		return -ENOENT;
	hmap__iter_init(&df->syms, hash_str(name), &it);
	while (hmap__next(&df->syms, &it, &idx)) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(df->symtab, (int)idx, &sym))
			continue;
		s = elf_strptr(df->elf, df->symstr_ndx, sym.st_name);
		if (s && !strcmp(s, name)) {
			*ret_shndx = sym.st_shndx;
			*ret_off = sym.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

/* Whether elf holds DWARF itself (libdwfl looks there before any
 * separate debug file too). */
static bool has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS || !shdr.sh_size ||
		    (shdr.sh_flags & SHF_GROUP))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/* An ET_REL file with its own DWARF, relocated by elf_reloc.c: 0, or
 * -EOPNOTSUPP (nothing kept) to go through libdwfl instead. */
static int open_rel(struct dwarf_file *df, const char *path, int fd)
{
	GElf_Ehdr ehdr;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EOPNOTSUPP;
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!elf)
		return -EOPNOTSUPP;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) || ehdr.e_type != ET_REL ||
	    !has_debug_info(elf) || elf_reloc__new(elf, &df->reloc) != 0)
		goto fail;
	df->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	df->path = strdup(path);
	if (!df->dw || !df->path)
		goto fail;
	df->elf = elf;
	df->fd = fd;
	return 0;
fail:
	if (df->dw)
		dwarf_end(df->dw);
	df->dw = NULL;
	free(df->path);
	df->path = NULL;
	elf_reloc__free(df->reloc);
	df->reloc = NULL;
	elf_end(elf);
	return -EOPNOTSUPP;
}

/* Everything else: libdwfl (which owns fd from here on, on success and
 * failure alike). */
static int open_dwfl(struct dwarf_file *df, const char *path, int fd, struct diag *diag)
{
	df->dwfl = dwfl_begin(&offline_callbacks);
	if (!df->dwfl) {
		close(fd);
		diag__say(diag, D2B_ERROR, "libdwfl: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	dwfl_report_begin(df->dwfl);
	df->mod = dwfl_report_offline(df->dwfl, path, path, fd);
	if (!df->mod) {
		diag__say(diag, D2B_ERROR, "cannot read ELF: %s", dwfl_errmsg(-1));
		return -ENOEXEC;
	}
	if (dwfl_report_end(df->dwfl, NULL, NULL) != 0) {
		diag__say(diag, D2B_ERROR, "libdwfl: %s", dwfl_errmsg(-1));
		return -EINVAL;
	}
	df->elf = dwfl_module_getelf(df->mod, &df->bias);
	if (!df->elf) {
		diag__say(diag, D2B_ERROR, "cannot read ELF header: %s", dwfl_errmsg(-1));
		return -ENOEXEC;
	}
	return 0;
}

/* dwarf_file__open() and dwarf_file__open_mem() from their fd on (which
 * this owns from here on, on success and failure alike) */
static int open_fd(const char *path, int fd, struct diag *diag, struct dwarf_file **ret)
{
	struct dwarf_file *df;
	GElf_Ehdr ehdr;
	int err;

	err = elf_check_header(fd, diag);
	if (err) {
		close(fd);
		return err;
	}
	df = calloc(1, sizeof(*df));
	if (!df) {
		close(fd);
		diag__say(diag, D2B_ERROR, "out of memory");
		return -ENOMEM;
	}
	df->fd = -1;
	hmap__init(&df->syms, false);
	if (open_rel(df, path, fd) != 0) {
		err = open_dwfl(df, path, fd, diag);
		if (err)
			goto fail;
	}
	if (!gelf_getehdr(df->elf, &ehdr)) {
		diag__say(diag, D2B_ERROR, "cannot read ELF header: %s", elf_errmsg(-1));
		err = -ENOEXEC;
		goto fail;
	}
	if (elf_getshdrstrndx(df->elf, &df->shstrndx) != 0) {
		diag__say(diag, D2B_ERROR, "cannot read section names: %s", elf_errmsg(-1));
		err = -ENOEXEC;
		goto fail;
	}
	df->big_endian = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	df->addr_size = ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	df->is_rel = ehdr.e_type == ET_REL;
	if (df->is_rel) {
		err = index_symbols(df);
		if (err) {
			diag__say(diag, D2B_ERROR, "cannot read the symbol table");
			goto fail;
		}
	}
	if (df->dwfl)
		df->dw = dwfl_module_getdwarf(df->mod, &df->bias);
	if (!df->dw) {
		int e = dwfl_errno();

		diag__say(diag, D2B_ERROR, "no DWARF debug information (%s)",
			  e ? dwfl_errmsg(e) : "no .debug_info");
		err = -ENODATA;
		goto fail;
	}
	*ret = df;
	return 0;
fail:
	dwarf_file__free(df);
	return err;
}

int dwarf_file__open(const char *path, struct diag *diag, struct dwarf_file **ret)
{
	int fd;

	*ret = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		diag__say(diag, D2B_ERROR, "%s", strerror(-err));
		return err;
	}
	return open_fd(path, fd, diag, ret);
}

/*
 * The bytes go into an anonymous memory file (memfd_create()), so that the
 * one way in above, by file descriptor, serves them: libelf maps it
 * copy-on-write as it maps a file, and libdwfl reads it as it reads one.
 * One copy of the input, which the caller may free as soon as this returns.
 */
int dwarf_file__open_mem(const void *data, size_t size, const char *name, struct diag *diag,
			 struct dwarf_file **ret)
{
	void *p = MAP_FAILED;
	int fd, err;

	*ret = NULL;
	fd = memfd_create("dwarf2btf-input", MFD_CLOEXEC);
	if (fd >= 0 && size && ftruncate(fd, (off_t)size) == 0)
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd < 0 || (size && p == MAP_FAILED)) {
		err = -errno;
		diag__say(diag, D2B_ERROR, "cannot make a memory file of the input: %s",
			  strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (size) {
		memcpy(p, data, size);
		munmap(p, size);
	}
	return open_fd(name, fd, diag, ret);
}

void dwarf_file__free(struct dwarf_file *df)
{
	if (!df)
		return;
	hmap__release(&df->syms);
	if (df->dwfl) {
		dwfl_end(df->dwfl);
	} else {
		if (df->dw)
			dwarf_end(df->dw);
		if (df->elf)
			elf_end(df->elf);
		if (df->fd >= 0)
			close(df->fd);
	}
	elf_reloc__free(df->reloc);
	free(df->path);
	free(df);
}

const char *dwarf_file__debug_path(const struct dwarf_file *df)
{
	const char *main_file = NULL, *debug_file = NULL;

	if (!df->dwfl)
		return df->path;
	dwfl_module_info(df->mod, NULL, NULL, NULL, NULL, NULL, &main_file, &debug_file);
	return debug_file ? debug_file : main_file;
}

const char *dwarf_file__main_path(const struct dwarf_file *df)
{
	const char *main_file = NULL;

	if (!df->dwfl)
		return df->path;
	dwfl_module_info(df->mod, NULL, NULL, NULL, NULL, NULL, &main_file, NULL);
	return main_file;
}

Dwarf *dwarf_file__dwarf(const struct dwarf_file *df)
{
	return df->dw;
}

bool dwarf_file__big_endian(const struct dwarf_file *df)
{
	return df->big_endian;
}

unsigned int dwarf_file__addr_size(const struct dwarf_file *df)
{
	return df->addr_size;
}

int dwarf_file__units(struct dwarf_file *df, struct dwarf_units *units, size_t *skipped,
		      struct pages_behind *behind)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	size_t cap = 0;
	uint8_t unit_type;
	Dwarf_Half version;
	int r;

	units->dies = NULL;
	units->types = NULL;
	units->nr = 0;
	*skipped = 0;
	while ((r = dwarf_get_units(df->dw, cu, &next, &version, &unit_type, &cudie, &subdie)) == 0) {
		cu = next;
		if (behind)
			pages_behind__reach(behind, dwarf_dieoffset(&cudie));
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton) {
			(*skipped)++;
			continue;
		}
		if (units->nr == cap) {
			Dwarf_Die *p;
			uint8_t *t;

			cap = cap ? cap * 2 : 64;
			p = realloc(units->dies, cap * sizeof(*p));
			if (p)
				units->dies = p;
			t = p ? realloc(units->types, cap) : NULL;
			if (!t) {
				r = -ENOMEM;
				break;
			}
			units->types = t;
		}
		units->types[units->nr] = unit_type;
		units->dies[units->nr++] = cudie;
	}
	if (r < 0) {
		free(units->dies);
		free(units->types);
		units->dies = NULL;
		units->types = NULL;
		units->nr = 0;
		return r == -ENOMEM ? r : -EINVAL;
	}
	return 0;
}

int dwarf_file__addr_section(struct dwarf_file *df, uint64_t addr, size_t *ret_shndx,
			     uint64_t *ret_off)
{
	Dwarf_Addr a = addr + df->bias, bias;
	Elf_Scn *scn;
	GElf_Shdr shdr;

	if (df->reloc)
		return elf_reloc__section(df->reloc, addr, ret_shndx, ret_off);
	scn = dwfl_module_address_section(df->mod, &a, &bias);
	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return -ENOENT;
	*ret_shndx = elf_ndxscn(scn);
	*ret_off = a;
	return 0;
}

unsigned int dwarf_file__machine(const struct dwarf_file *df)
{
	GElf_Ehdr ehdr;

	return gelf_getehdr(df->elf, &ehdr) ? ehdr.e_machine : EM_NONE;
}

Elf *dwarf_file__elf(const struct dwarf_file *df)
{
	return df->elf;
}

bool dwarf_file__own_relocation(const struct dwarf_file *df)
{
	return df->reloc != NULL;
}

size_t dwarf_file__nr_sections(const struct dwarf_file *df)
{
	size_t n;

	return elf_getshdrnum(df->elf, &n) == 0 ? n : 0;
}

int dwarf_file__section(struct dwarf_file *df, size_t shndx, const char **ret_name,
			uint64_t *ret_size)
{
	Elf_Scn *scn = elf_getscn(df->elf, shndx);
	GElf_Shdr shdr;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return -ENOENT;
	name = elf_strptr(df->elf, df->shstrndx, shdr.sh_name);
	if (!name)
		return -ENOENT;
	*ret_name = name;
	*ret_size = shdr.sh_size;
	return 0;
}
