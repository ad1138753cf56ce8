// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writing .BTF (and .BTF.base, or .BTF.inline) into an ELF file, safely.
 *
 * Theory.  The file may be an object, a kernel module, an executable or a
 * shared library that must still link, load and run afterwards, so the
 * writer changes as little as it can and never moves a loaded byte:
 *
 *   1. check: the input is untrusted.  The ELF identification, the header
 *      and section tables and every section's and segment's extent are
 *      checked against the file size before anything else looks at them.
 *   2. plan: decide what happens to .BTF, .BTF.base and the section name
 *      table.  Existing sections keep their index (symbols, relocation and
 *      group sections name sections by index); new ones are appended to the
 *      section table.  A .BTF.base that must go is removed when it is the
 *      last, unreferenced section and otherwise becomes an inactive
 *      SHT_NULL entry.  A loaded (SHF_ALLOC) .BTF is only overwritten in
 *      place, with data of exactly its size.  Relocations that target a
 *      replaced section belonged to the old bytes, so their section is
 *      emptied.
 *   3. layout: the kept content is the ELF header, the program header
 *      table, every segment and every section that is not moved.  It is
 *      copied byte for byte, gaps included, up to its end; the new
 *      sections, the grown name table and the new section header table go
 *      after it.  The old section header table and the old copies of moved
 *      sections are dropped when they were at the end (so rewriting a file
 *      does not grow it) and left as dead bytes otherwise.
 *   4. write: into a fresh file beside the target, then owner and mode,
 *      fsync, and rename() over the target (struct safe_file).  Until the
 *      rename nothing of the target has changed; on any failure the
 *      temporary file is removed, and one that a killed writer left is
 *      removed by the next writer of the target.
 *
 * libelf parses the input (read mode, no mmap: a file truncated under us
 * gives read errors, not SIGBUS) and translates the headers we write into
 * the file's class and byte order.  The bytes are placed by hand rather than
 * by elf_update(): with ELF_F_LAYOUT it still rewrites every gap with fill
 * bytes and "corrects" header fields, and we want the kept part of the file
 * to stay exactly as it was.
 *
 * The BTF is encoded in the ELF file's byte order, whatever order the
 * d2b_btf was built or read in: the encoder takes the order
 * (btf_encode_in()), so no encoded blob is swapped afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf2btf.h"
#include "base/elf_ident.h"
#include "base/safe_file.h"
#include "btf/btf.h"

enum {
	BTF_SEC_ALIGN = 4,
	COPY_CHUNK = 1 << 20,
	/* output slots beyond the input's sections: .BTF, .BTF.base, .shstrtab, section 0 */
	EXTRA_SECS = 4,
};

/* What happens to one of the sections we write */
enum sec_action {
	SEC_KEEP,	/* left as it is (or absent and not wanted) */
	SEC_APPEND,	/* new section at the end of the section table */
	SEC_MOVE,	/* existing unloaded section: new bytes after the kept content */
	SEC_IN_PLACE,	/* existing loaded section of the same size: overwritten */
	SEC_DROP,	/* the last section, unreferenced: removed */
	SEC_BLANK,	/* any other unwanted one: its header becomes SHT_NULL */
};

struct out_sec {
	const char *name;
	size_t idx;		/* index in the input (0: none), then in the output */
	enum sec_action action;
	uint8_t *data;		/* the new contents */
	size_t size;
	uint64_t off;		/* where the contents go */
};

struct elf_out {
	const char *path;	/* as the caller spelled it, for messages */
	char *real;		/* the file we replace (symlinks resolved) */
	char *errbuf;
	size_t errlen;
	int fd;
	struct stat st;
	Elf *elf;
	GElf_Ehdr eh;
	bool big;		/* ELFDATA2MSB */
	bool elf64;		/* ELFCLASS64 */
	size_t shnum, phnum, shstrndx;
	size_t shentsize;
	GElf_Shdr *sh;		/* the output section headers */
	size_t nsh;
	struct out_sec btf, base;
	struct out_sec names;	/* the section name table (.shstrtab) */
	uint64_t keep_end;	/* end of the content copied verbatim */
	uint64_t shoff, file_end;
	struct safe_file out;	/* the new file, once created */
};

static int __attribute__((format(printf, 3, 4)))
out_err(struct elf_out *o, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* no path: the caller names the file (dwarf2btf.h) */
	if (!o->errbuf || !o->errlen)
		return err;
	va_start(ap, fmt);
	n = vsnprintf(o->errbuf, o->errlen, fmt, ap);
	va_end(ap);
	(void)n;
	return err;
}

static int libelf_err(struct elf_out *o, const char *what)
{
	return out_err(o, -EINVAL, "%s: %s", what, elf_errmsg(-1));
}

/* off + size <= limit, without overflow */
static bool extent_fits(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static const char *sec_name(struct elf_out *o, const GElf_Shdr *sh)
{
	const char *n = o->shstrndx ? elf_strptr(o->elf, o->shstrndx, sh->sh_name) : NULL;

	return n ? n : "";
}

/* ---- pass 1: check ---- */

static int check_ident(struct elf_out *o)
{
	unsigned char id[EI_NIDENT];
	ssize_t n = pread(o->fd, id, sizeof(id), 0);
	enum elf_ident r;
	char why[ELF_IDENT_WHY_LEN];

	if (n < 0)
		return out_err(o, -errno, "cannot read: %s", strerror(errno));
	r = elf_ident__check(id, n);
	if (r != ELF_IDENT_OK)
		return out_err(o, -EINVAL, "%s", elf_ident__why(r, id, why, sizeof(why)));
	o->big = id[EI_DATA] == ELFDATA2MSB;
	o->elf64 = id[EI_CLASS] == ELFCLASS64;
	return 0;
}

static int check_headers(struct elf_out *o)
{
	uint64_t fsize = o->st.st_size;
	size_t phentsize = gelf_fsize(o->elf, ELF_T_PHDR, 1, EV_CURRENT);
	size_t n;

	o->shentsize = gelf_fsize(o->elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (!gelf_getehdr(o->elf, &o->eh))
		return libelf_err(o, "cannot read the ELF header");

	/*
	 * The section header table, from the header's own fields: libelf
	 * quietly counts a table that does not fit in the file as empty.
	 */
	if (!o->eh.e_shoff) {
		if (o->eh.e_shnum)
			return out_err(o, -EINVAL, "%u section headers at offset 0", o->eh.e_shnum);
	} else {
		if (o->eh.e_shentsize != o->shentsize)
			return out_err(o, -EINVAL, "section header size %u, expected %zu",
				       o->eh.e_shentsize, o->shentsize);
		if (!extent_fits(o->eh.e_shoff, o->shentsize, fsize))
			return out_err(o, -EINVAL, "section header table truncated "
				       "(at offset %llu, file size %llu)",
				       (unsigned long long)o->eh.e_shoff, (unsigned long long)fsize);
		o->shnum = o->eh.e_shnum;
		if (!o->shnum && elf_getshdrnum(o->elf, &o->shnum))
			return libelf_err(o, "cannot count sections");
		if (!o->shnum)
			return out_err(o, -EINVAL, "empty section header table at offset %llu",
				       (unsigned long long)o->eh.e_shoff);
		if (o->shnum > (fsize - o->eh.e_shoff) / o->shentsize)
			return out_err(o, -EINVAL, "section header table truncated "
				       "(%zu entries at offset %llu, file size %llu)", o->shnum,
				       (unsigned long long)o->eh.e_shoff, (unsigned long long)fsize);
		if (elf_getshdrnum(o->elf, &n) || n != o->shnum)
			return out_err(o, -EINVAL, "unreadable section header table");
	}

	o->phnum = o->eh.e_phnum;
	if (o->phnum == PN_XNUM) {
		if (!o->shnum)
			return out_err(o, -EINVAL, "extended program header count without sections");
		o->phnum = 0;
		if (elf_getphdrnum(o->elf, &o->phnum))
			return libelf_err(o, "cannot count program headers");
	}
	if (o->phnum) {
		if (o->eh.e_phentsize != phentsize)
			return out_err(o, -EINVAL, "program header size %u, expected %zu",
				       o->eh.e_phentsize, phentsize);
		if (o->phnum > SIZE_MAX / phentsize ||
		    !extent_fits(o->eh.e_phoff, o->phnum * phentsize, fsize))
			return out_err(o, -EINVAL, "program header table truncated "
				       "(%zu entries at offset %llu, file size %llu)", o->phnum,
				       (unsigned long long)o->eh.e_phoff, (unsigned long long)fsize);
		if (elf_getphdrnum(o->elf, &n) || n != o->phnum)
			return out_err(o, -EINVAL, "unreadable program header table");
	}
	return 0;
}

static int check_sections(struct elf_out *o)
{
	uint64_t fsize = o->st.st_size;
	GElf_Shdr sh;
	size_t i;

	if (!o->shnum)
		return 0;
	if (elf_getshdrstrndx(o->elf, &o->shstrndx))
		return libelf_err(o, "invalid section name table index");
	if (o->shstrndx >= o->shnum)
		return out_err(o, -EINVAL, "section name table index %zu out of range (%zu sections)",
			       o->shstrndx, o->shnum);
	if (!o->shstrndx)
		return out_err(o, -EINVAL, "sections have no name table");
	if (!gelf_getshdr(elf_getscn(o->elf, o->shstrndx), &sh))
		return libelf_err(o, "cannot read the section name table header");
	if (sh.sh_type != SHT_STRTAB)
		return out_err(o, -EINVAL, "section name table [%zu] is not SHT_STRTAB", o->shstrndx);

	for (i = 0; i < o->shnum; i++) {
		if (!gelf_getshdr(elf_getscn(o->elf, i), &sh))
			return out_err(o, -EINVAL, "cannot read section header [%zu]: %s", i,
				       elf_errmsg(-1));
		if (i && !elf_strptr(o->elf, o->shstrndx, sh.sh_name))
			return out_err(o, -EINVAL, "section [%zu] has an invalid name offset %u",
				       i, sh.sh_name);
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    !extent_fits(sh.sh_offset, sh.sh_size, fsize))
			return out_err(o, -EINVAL, "section [%zu] '%s' extends past the end of the file",
				       i, sec_name(o, &sh));
		if (sh.sh_addralign & (sh.sh_addralign - 1))
			return out_err(o, -EINVAL, "section [%zu] '%s' has alignment %llu",
				       i, sec_name(o, &sh), (unsigned long long)sh.sh_addralign);
	}
	for (i = 0; i < o->phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, i, &ph))
			return out_err(o, -EINVAL, "cannot read program header [%zu]: %s", i,
				       elf_errmsg(-1));
		if (ph.p_filesz && !extent_fits(ph.p_offset, ph.p_filesz, fsize))
			return out_err(o, -EINVAL, "program header [%zu] extends past the end of the file", i);
	}
	return 0;
}

/* ---- pass 2: plan ---- */

static bool is_reloc(const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_REL || sh->sh_type == SHT_RELA;
}

/* Does anything name section idx (in a header, a symbol or a group)? */
static int sec_referenced(struct elf_out *o, size_t idx)
{
	size_t i, j;

	if (idx == o->shstrndx || idx >= SHN_LORESERVE)
		return 1;
	for (i = 1; i < o->shnum; i++) {
		Elf_Scn *scn = elf_getscn(o->elf, i);
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return libelf_err(o, "cannot read a section header");
		if (sh.sh_link == idx ||
		    (sh.sh_info == idx && (is_reloc(&sh) || (sh.sh_flags & SHF_INFO_LINK))))
			return 1;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_GROUP)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			return out_err(o, -EINVAL, "cannot read section [%zu] '%s': %s", i,
				       sec_name(o, &sh), elf_errmsg(-1));
		if (sh.sh_type == SHT_GROUP) {
			const Elf32_Word *w = d->d_buf;

			for (j = 1; j < d->d_size / sizeof(*w); j++)
				if (w[j] == idx)
					return 1;
			continue;
		}
		for (j = 0; sh.sh_entsize && j < sh.sh_size / sh.sh_entsize; j++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, j, &sym))
				break;
			if (sym.st_shndx == idx)
				return 1;
		}
	}
	return 0;
}

/* Find the section called name; more than one is an error. */
static int find_sec(struct elf_out *o, struct out_sec *s)
{
	size_t i;

	s->idx = 0;
	for (i = 1; i < o->shnum; i++) {
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(o->elf, i), &sh))
			return libelf_err(o, "cannot read a section header");
		if (strcmp(sec_name(o, &sh), s->name))
			continue;
		if (s->idx)
			return out_err(o, -EINVAL, "more than one %s section ([%zu] and [%zu])",
				       s->name, s->idx, i);
		s->idx = i;
	}
	return 0;
}

/* Decide how an existing or new section s gets its new contents. */
static int plan_write(struct elf_out *o, struct out_sec *s)
{
	GElf_Shdr *sh;
	size_t i;

	if (!s->idx) {
		s->action = SEC_APPEND;
		return 0;
	}
	sh = &o->sh[s->idx];
	if (sh->sh_flags & SHF_ALLOC) {
		if (sh->sh_type == SHT_NOBITS || sh->sh_size != s->size)
			return out_err(o, -ENOTSUP, "%s is loaded (SHF_ALLOC, part of a segment) and "
				       "the new BTF is %zu bytes, not %llu: cannot resize it without "
				       "relinking", s->name, s->size, (unsigned long long)sh->sh_size);
		if (sh->sh_flags & SHF_COMPRESSED)
			return out_err(o, -ENOTSUP, "%s is loaded and compressed", s->name);
		s->action = SEC_IN_PLACE;
		s->off = sh->sh_offset;
	} else {
		s->action = SEC_MOVE;
	}
	/* relocations against the old contents would patch the new ones */
	for (i = 1; i < o->shnum; i++) {
		if (!is_reloc(&o->sh[i]) || o->sh[i].sh_info != s->idx)
			continue;
		if (o->sh[i].sh_flags & SHF_ALLOC)
			return out_err(o, -ENOTSUP, "%s has dynamic relocations in section [%zu]",
				       s->name, i);
		o->sh[i].sh_size = 0;
	}
	return 0;
}

static int plan_remove(struct elf_out *o, struct out_sec *s)
{
	size_t i;
	int ref;

	if (!s->idx)
		return 0;
	if (o->sh[s->idx].sh_flags & SHF_ALLOC)
		return out_err(o, -ENOTSUP, "%s is loaded (SHF_ALLOC): cannot remove it", s->name);
	for (i = 1; i < o->shnum; i++)
		if (is_reloc(&o->sh[i]) && o->sh[i].sh_info == s->idx)
			o->sh[i].sh_size = 0;
	ref = s->idx + 1 == o->shnum ? sec_referenced(o, s->idx) : 1;
	if (ref < 0)
		return ref;
	s->action = ref ? SEC_BLANK : SEC_DROP;
	return 0;
}

/* Offset of a string ending in name within the table, or -1. */
static long find_name(const char *strs, size_t len, const char *name)
{
	size_t n = strlen(name) + 1;	/* with its NUL */
	const char *p = len >= n ? memmem(strs, len, name, n) : NULL;

	return p ? p - strs : -1;
}

/* Give section s its name, growing the name table if needed. */
static int name_sec(struct elf_out *o, struct out_sec *s)
{
	size_t n = strlen(s->name) + 1;
	long off = find_name((char *)o->names.data, o->names.size, s->name);
	uint8_t *p;

	if (off < 0) {
		if (o->names.size > UINT32_MAX - n)
			return out_err(o, -EFBIG, "section name table too large");
		p = realloc(o->names.data, o->names.size + n);
		if (!p)
			return out_err(o, -ENOMEM, "out of memory");
		memcpy(p + o->names.size, s->name, n);
		off = o->names.size;
		o->names.data = p;
		o->names.size += n;
	}
	o->sh[s->idx].sh_name = off;
	return 0;
}

static int load_names(struct elf_out *o)
{
	Elf_Data *d;
	size_t len;

	if (!o->shstrndx) {
		/* no section table at all: start one, with section 0 */
		o->names.name = ".shstrtab";
		o->names.action = SEC_APPEND;
		o->names.data = calloc(1, 1);
		if (!o->names.data)
			return out_err(o, -ENOMEM, "out of memory");
		o->names.size = 1;
		o->nsh = 1;
		return 0;
	}
	o->names.name = sec_name(o, &o->sh[o->shstrndx]);
	o->names.idx = o->shstrndx;
	d = elf_rawdata(elf_getscn(o->elf, o->shstrndx), NULL);
	len = d ? d->d_size : 0;
	o->names.data = malloc(len + 1);
	if (!o->names.data)
		return out_err(o, -ENOMEM, "out of memory");
	if (len)
		memcpy(o->names.data, d->d_buf, len);
	/* a table that does not end in NUL would run into the names we add */
	if (!len || o->names.data[len - 1])
		o->names.data[len++] = 0;
	o->names.size = len;
	return 0;
}

static int plan(struct elf_out *o, bool want_base)
{
	size_t i, old_names;
	int err;

	o->sh = calloc(o->shnum + EXTRA_SECS, sizeof(*o->sh));
	if (!o->sh)
		return out_err(o, -ENOMEM, "out of memory");
	for (i = 0; i < o->shnum; i++)
		if (!gelf_getshdr(elf_getscn(o->elf, i), &o->sh[i]))
			return libelf_err(o, "cannot read a section header");
	o->nsh = o->shnum;

	err = find_sec(o, &o->btf);
	if (!err)
		err = find_sec(o, &o->base);
	if (err)
		return err;
	if (o->shstrndx && (o->btf.idx == o->shstrndx || o->base.idx == o->shstrndx))
		return out_err(o, -EINVAL, "the section name table [%zu] is named %s", o->shstrndx,
			       o->btf.idx == o->shstrndx ? o->btf.name : o->base.name);
	err = load_names(o);
	if (!err)
		err = plan_write(o, &o->btf);
	if (!err)
		err = want_base ? plan_write(o, &o->base) : plan_remove(o, &o->base);
	if (err)
		return err;

	if (o->base.action == SEC_DROP)
		o->nsh--;
	else if (o->base.action == SEC_BLANK)
		memset(&o->sh[o->base.idx], 0, sizeof(o->sh[0]));

	old_names = o->names.size;
	if (o->btf.action == SEC_APPEND) {
		o->btf.idx = o->nsh++;
		err = name_sec(o, &o->btf);
	}
	if (!err && want_base && o->base.action == SEC_APPEND) {
		o->base.idx = o->nsh++;
		err = name_sec(o, &o->base);
	}
	if (!err && o->names.action == SEC_APPEND) {
		o->names.idx = o->nsh++;
		o->shstrndx = o->names.idx;
		err = name_sec(o, &o->names);
	}
	if (err)
		return err;
	if (o->names.action != SEC_APPEND && o->names.size != old_names) {
		if (o->sh[o->names.idx].sh_flags & SHF_ALLOC)
			return out_err(o, -ENOTSUP, "the section name table is loaded (SHF_ALLOC) "
				       "and has no room for new names");
		o->names.action = SEC_MOVE;
	}
	return 0;
}

/* ---- pass 3: layout ---- */

static bool sec_moves(struct elf_out *o, size_t i)
{
	return (i == o->btf.idx && o->btf.action == SEC_MOVE) ||
	       (i == o->base.idx && o->base.action != SEC_IN_PLACE) ||
	       (i == o->names.idx && o->names.action == SEC_MOVE);
}

static uint64_t place(uint64_t *cursor, struct out_sec *s, uint64_t align)
{
	s->off = align_up(*cursor, align);
	*cursor = s->off + s->size;
	return s->off;
}

static void set_btf_shdr(GElf_Shdr *sh, const struct out_sec *s)
{
	uint32_t name = sh->sh_name;

	memset(sh, 0, sizeof(*sh));
	sh->sh_name = name;
	sh->sh_type = SHT_PROGBITS;
	sh->sh_offset = s->off;
	sh->sh_size = s->size;
	sh->sh_addralign = BTF_SEC_ALIGN;
}

static int layout(struct elf_out *o)
{
	uint64_t end = gelf_fsize(o->elf, ELF_T_EHDR, 1, EV_CURRENT), cursor;
	GElf_Shdr *sh;
	size_t i;

	/* pass 3a: what is kept, byte for byte */
	if (o->phnum)
		end = MAX(end, o->eh.e_phoff + o->phnum * o->eh.e_phentsize);
	for (i = 0; i < o->phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, i, &ph))
			return libelf_err(o, "cannot read a program header");
		if (ph.p_filesz)
			end = MAX(end, ph.p_offset + ph.p_filesz);
	}
	for (i = 1; i < o->shnum; i++) {
		GElf_Shdr old;

		if (!gelf_getshdr(elf_getscn(o->elf, i), &old))
			return libelf_err(o, "cannot read a section header");
		if (old.sh_type == SHT_NOBITS || old.sh_type == SHT_NULL || sec_moves(o, i))
			continue;
		end = MAX(end, old.sh_offset + old.sh_size);
	}
	o->keep_end = end;

	/* pass 3b: what goes after it */
	/* the name table first: it rarely changes again, so that rewriting
	 * the file replaces the .BTF at its end instead of leaving it behind */
	cursor = end;
	if (o->names.action == SEC_MOVE || o->names.action == SEC_APPEND)
		place(&cursor, &o->names, MAX(o->sh[o->names.idx].sh_addralign, 1));
	if (o->btf.action != SEC_IN_PLACE)
		place(&cursor, &o->btf, BTF_SEC_ALIGN);
	if (o->base.data && o->base.action != SEC_IN_PLACE)
		place(&cursor, &o->base, BTF_SEC_ALIGN);
	o->shoff = align_up(cursor, o->elf64 ? 8 : 4);
	o->file_end = o->shoff + (uint64_t)o->nsh * o->shentsize;

	/* pass 3c: the section headers that change */
	if (o->btf.action != SEC_IN_PLACE)
		set_btf_shdr(&o->sh[o->btf.idx], &o->btf);
	if (o->base.data && o->base.action != SEC_IN_PLACE)
		set_btf_shdr(&o->sh[o->base.idx], &o->base);
	sh = &o->sh[o->names.idx];
	if (o->names.action == SEC_APPEND) {
		sh->sh_type = SHT_STRTAB;
		sh->sh_addralign = 1;
	}
	if (o->names.action != SEC_KEEP) {
		sh->sh_offset = o->names.off;
		sh->sh_size = o->names.size;
	}

	/* extended numbering lives in section 0 */
	if (o->nsh >= SHN_LORESERVE) {
		o->eh.e_shnum = 0;
		o->sh[0].sh_size = o->nsh;
	} else {
		o->eh.e_shnum = o->nsh;
		o->sh[0].sh_size = 0;
	}
	if (o->shstrndx >= SHN_LORESERVE) {
		o->eh.e_shstrndx = SHN_XINDEX;
		o->sh[0].sh_link = o->shstrndx;
	} else {
		o->eh.e_shstrndx = o->shstrndx;
		o->sh[0].sh_link = 0;
	}
	o->eh.e_shoff = o->shoff;
	o->eh.e_shentsize = o->shentsize;

	if (!o->elf64 && o->file_end > UINT32_MAX)
		return out_err(o, -EFBIG, "the new file would be too large for a 32-bit ELF");
	if (o->file_end > (uint64_t)LLONG_MAX)
		return out_err(o, -EFBIG, "the new file would be too large");
	return 0;
}

/* ---- BTF bytes ---- */

static int encode(struct elf_out *o, const struct d2b_btf *btf, struct out_sec *s)
{
	void *data;
	char why[256];
	int err = btf_encode_in(btf, o->big ? D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE, &data, &s->size);

	if (err) {
		btf_encode_why(btf, err, why, sizeof(why));
		return out_err(o, err, "cannot encode %s: %s", s->name, why);
	}
	s->data = data;
	return 0;
}

/* ---- pass 4: write ---- */

/* Copy the kept content [0, keep_end) from the input. */
static int copy_prefix(struct elf_out *o)
{
	uint64_t off = 0;
	uint8_t *buf = NULL;
	int err = 0;

	buf = malloc(COPY_CHUNK);
	if (!buf)
		return -ENOMEM;
	while (off < o->keep_end) {
		size_t want = MIN((uint64_t)COPY_CHUNK, o->keep_end - off);
		ssize_t n = pread(o->fd, buf, want, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0) {
			err = -ENODATA;	/* the file shrank under us */
			break;
		}
		err = safe_file__write(&o->out, buf, n, off);
		if (err)
			break;
		off += n;
	}
	free(buf);
	return err;
}

/* Convert the ELF header and section headers into the file's form. */
static int xlate(struct elf_out *o, Elf_Type type, void *mem, size_t size, void *file)
{
	Elf_Data src = { .d_buf = mem, .d_type = type, .d_size = size, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = file, .d_type = type, .d_size = size, .d_version = EV_CURRENT };

	if (!gelf_xlatetof(o->elf, &dst, &src, o->eh.e_ident[EI_DATA]))
		return libelf_err(o, "cannot convert headers");
	return 0;
}

static bool fits32(uint64_t v)
{
	return v <= UINT32_MAX;
}

static int put_headers(struct elf_out *o)
{
	bool is64 = o->elf64;
	size_t i, tsize = o->nsh * o->shentsize;
	uint8_t *mem = calloc(1, tsize), *file = malloc(tsize);
	union { Elf32_Ehdr e32; Elf64_Ehdr e64; } eh, ehf;
	const GElf_Ehdr *e = &o->eh;
	int err;

	if (!mem || !file) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < o->nsh; i++) {
		const GElf_Shdr *s = &o->sh[i];
		Elf32_Shdr *d = (Elf32_Shdr *)mem + i;

		if (is64) {
			memcpy((Elf64_Shdr *)mem + i, s, sizeof(*s));
			continue;
		}
		if (!fits32(s->sh_flags) || !fits32(s->sh_addr) || !fits32(s->sh_offset) ||
		    !fits32(s->sh_size) || !fits32(s->sh_addralign) || !fits32(s->sh_entsize)) {
			err = -EFBIG;
			goto out;
		}
		d->sh_name = s->sh_name;
		d->sh_type = s->sh_type;
		d->sh_flags = s->sh_flags;
		d->sh_addr = s->sh_addr;
		d->sh_offset = s->sh_offset;
		d->sh_size = s->sh_size;
		d->sh_link = s->sh_link;
		d->sh_info = s->sh_info;
		d->sh_addralign = s->sh_addralign;
		d->sh_entsize = s->sh_entsize;
	}
	err = xlate(o, ELF_T_SHDR, mem, tsize, file);
	if (!err)
		err = safe_file__write(&o->out, file, tsize, o->shoff);
	if (err)
		goto out;

	if (is64) {
		eh.e64 = *e;
	} else {
		memcpy(eh.e32.e_ident, e->e_ident, EI_NIDENT);
		eh.e32.e_type = e->e_type;
		eh.e32.e_machine = e->e_machine;
		eh.e32.e_version = e->e_version;
		eh.e32.e_entry = e->e_entry;
		eh.e32.e_phoff = e->e_phoff;
		eh.e32.e_shoff = e->e_shoff;
		eh.e32.e_flags = e->e_flags;
		eh.e32.e_ehsize = e->e_ehsize;
		eh.e32.e_phentsize = e->e_phentsize;
		eh.e32.e_phnum = e->e_phnum;
		eh.e32.e_shentsize = e->e_shentsize;
		eh.e32.e_shnum = e->e_shnum;
		eh.e32.e_shstrndx = e->e_shstrndx;
	}
	i = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	err = xlate(o, ELF_T_EHDR, &eh, i, &ehf);
	if (!err)
		err = safe_file__write(&o->out, &ehf, i, 0);
out:
	free(mem);
	free(file);
	return err;
}

static int write_file(struct elf_out *o)
{
	const struct out_sec *secs[] = { &o->btf, &o->base, &o->names };
	const char *what = "cannot write its temporary file";
	size_t i;
	int err;

	err = safe_file__open(&o->out, o->real);
	if (err == -ENOMEM)
		return out_err(o, err, "out of memory");
	if (err)
		return out_err(o, err, "cannot create a temporary file beside it: %s",
			       strerror(-err));
	err = copy_prefix(o);
	if (err == -ENODATA)
		return out_err(o, -EIO, "the file changed while it was being read");
	if (!err && ftruncate(o->out.fd, o->file_end))
		err = -errno;
	for (i = 0; !err && i < sizeof(secs) / sizeof(secs[0]); i++)
		if (secs[i]->size && (secs[i]->action == SEC_APPEND ||
				      secs[i]->action == SEC_MOVE || secs[i]->action == SEC_IN_PLACE))
			err = safe_file__write(&o->out, secs[i]->data, secs[i]->size,
					       secs[i]->off);
	if (!err)
		err = put_headers(o);
	if (err == -EFBIG)
		return out_err(o, err, "the new file would be too large for a 32-bit ELF");
	if (!err) {
		err = safe_file__commit(&o->out);
		if (err)
			what = safe_file__step(&o->out);
	}
	/* the temporary file is named by what it adds to the path */
	if (err)
		return out_err(o, err, "%s (%s): %s", what,
			       o->out.tmp + strlen(o->out.target), strerror(-err));
	return 0;
}

/* ---- the entry point ---- */

static int open_input(struct elf_out *o)
{
	struct stat lst;
	int err;

	if (lstat(o->path, &lst))
		return out_err(o, -errno, "%s", strerror(errno));
	if (S_ISLNK(lst.st_mode)) {
		/* replace the file the link points to, not the link */
		o->real = realpath(o->path, NULL);
		if (!o->real)
			return out_err(o, -errno, "cannot resolve the symbolic link: %s",
				       strerror(errno));
	} else {
		o->real = strdup(o->path);
		if (!o->real)
			return out_err(o, -ENOMEM, "out of memory");
	}
	o->fd = open(o->real, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0)
		return out_err(o, -errno, "%s", strerror(errno));
	if (fstat(o->fd, &o->st))
		return out_err(o, -errno, "%s", strerror(errno));
	if (!S_ISREG(o->st.st_mode))
		return out_err(o, -EINVAL, "not a regular file");
	err = check_ident(o);
	if (err)
		return err;
	if ((uint64_t)o->st.st_size < (o->elf64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return out_err(o, -EINVAL, "truncated ELF header");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return out_err(o, -EINVAL, "libelf is unusable");
	o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF)
		return libelf_err(o, "not a valid ELF file");
	err = check_headers(o);
	if (!err)
		err = check_sections(o);
	return err;
}

/* Write btf as .BTF and second (if not NULL) as o's second section. */
static int write_btf(struct elf_out *o, const struct d2b_btf *btf, const struct d2b_btf *second)
{
	int err;

	err = open_input(o);
	if (!err)
		err = encode(o, btf, &o->btf);
	if (!err && second)
		err = encode(o, second, &o->base);
	if (!err)
		err = plan(o, second != NULL);
	if (!err)
		err = layout(o);
	if (!err)
		err = write_file(o);

	safe_file__release(&o->out);
	elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->real);
	free(o->sh);
	free(o->btf.data);
	free(o->base.data);
	free(o->names.data);
	return err;
}

int d2b_elf__write_btf(const char *path, const struct d2b_btf *btf,
		       const struct d2b_btf *base_btf, char *errbuf, size_t errlen)
{
	struct elf_out o = {
		.path = path ? path : "(no file)", .errbuf = errbuf, .errlen = errlen, .fd = -1,
		.btf = { .name = ".BTF" }, .base = { .name = ".BTF.base" },
	};

	if (errbuf && errlen)
		errbuf[0] = 0;
	if (!path || !btf)
		return out_err(&o, -EINVAL, "no file or no BTF to write");
	if (base_btf && d2b_btf__start_id(btf) != d2b_btf__end_id(base_btf))
		return out_err(&o, -EINVAL, "the BTF does not continue the given base "
			       "(its first ID is %u, the base ends at %u)",
			       d2b_btf__start_id(btf), d2b_btf__end_id(base_btf));
	return write_btf(&o, btf, base_btf);
}

int d2b_elf__write_btf_inline(const char *path, const struct d2b_btf *btf,
			      const struct d2b_btf *inline_btf, char *errbuf, size_t errlen)
{
	struct elf_out o = {
		.path = path ? path : "(no file)", .errbuf = errbuf, .errlen = errlen, .fd = -1,
		.btf = { .name = ".BTF" }, .base = { .name = ".BTF.inline" },
	};

	if (errbuf && errlen)
		errbuf[0] = 0;
	if (!path || !btf || !inline_btf)
		return out_err(&o, -EINVAL, "no file or no BTF to write");
	if (d2b_btf__start_id(inline_btf) != d2b_btf__end_id(btf))
		return out_err(&o, -EINVAL, "the inline BTF does not continue the BTF "
			       "(its first ID is %u, the BTF ends at %u)",
			       d2b_btf__start_id(inline_btf), d2b_btf__end_id(btf));
	return write_btf(&o, btf, inline_btf);
}
