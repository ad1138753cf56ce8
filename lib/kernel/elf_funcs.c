// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The function symbols of an ELF file, sorted by name, and its kfuncs.
 *
 * Symbols: every STT_FUNC symbol gives (name cut at the first '.', address);
 * sorting by (name's hash, name, address) puts a name's addresses side by
 * side, so one pass keeps one entry per name and notes names with several
 * addresses.
 * Each name keeps its symbols' addresses (and which are .isra/.constprop
 * clones), a few at most, for the questions asked by address.
 * A hash index of the names answers the lookups, one per subprogram DIE.
 *
 * kfuncs: the kernel's BTF_KFUNCS_START() makes a "set8" in .BTF_ids, a
 * symbol __BTF_ID__set8__<set> over { u32 cnt; u32 flags; { u32 id;
 * u32 flags; } pairs[] } whose flags have bit 0 (BTF_SET8_KFUNCS) set;
 * each BTF_ID_FLAGS(func, name, flags) inside it is a symbol
 * __BTF_ID__func__<name>__<n> at its pair.  A function symbol inside a
 * kfunc set's range is a kfunc, with that pair's flags.  The section is
 * read as 32-bit words in the file's byte order.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "kernel/elf_funcs.h"

enum {
	BTF_SET8_KFUNCS = 1 << 0,
};

static const char set8_prefix[] = "__BTF_ID__set8__";
static const char func_prefix[] = "__BTF_ID__func__";

struct elf_func {
	char *name;
	uint64_t hash;		/* hash_str(name) */
	uint64_t addr;
	bool ambiguous;
	bool kfunc;
	bool clone;		/* collect_funcs(): a .isra/.constprop symbol */
	char *dotted;		/* collect_funcs(): the symbol's name if it has a '.' */
	uint32_t kfunc_flags;
	uint32_t first_sym, nr_syms;	/* its symbols in syms[] */
};

/* One symbol of a name, by address */
struct elf_func_sym {
	uint64_t addr;
	bool clone;
	char *dotted;		/* the symbol's whole name (foo.isra.0), or NULL */
};

struct elf_funcs {
	struct elf_func *funcs;	/* by name; one per name */
	size_t nr;
	struct elf_func_sym *syms;	/* every symbol, by (name, address) */
	size_t nr_syms;
	struct hmap index;	/* name hash -> index in funcs: lookups per DIE */
};

/* foo.cold and foo.part.N are pieces of foo, not functions of their own */
static bool is_function_piece(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot && (strstr(dot, ".cold") || strstr(dot, ".part"));
}

/* foo.isra.N and foo.constprop.N are foo with another calling convention */
static bool is_clone(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot && (strstr(dot, ".isra") || strstr(dot, ".constprop"));
}

/* By name's hash first: what matters is that a name's symbols end up side
 * by side, and comparing hashes spares the sort most reads of the names */
static int func_cmp(const void *pa, const void *pb)
{
	const struct elf_func *a = pa, *b = pb;
	int c;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* aliases: by whole name, so that elf_funcs__dotted_at() is stable */
	if (!a->dotted || !b->dotted)
		return !!a->dotted - !!b->dotted;
	return strcmp(a->dotted, b->dotted);
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *ret)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Shdr dyn_shdr;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB) {
			*ret = shdr;
			return scn;
		}
		if (shdr.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dyn_shdr = shdr;
		}
	}
	if (dynsym)
		*ret = dyn_shdr;
	return dynsym;
}

static int collect_funcs(struct elf_funcs *ef, Elf *elf, Elf_Data *syms, const GElf_Shdr *shdr)
{
	size_t i, n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;

	ef->funcs = calloc(n ? n : 1, sizeof(*ef->funcs));
	if (!ef->funcs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *name, *dot;
		GElf_Sym sym;

		if (!gelf_getsym(syms, (int)i, &sym))
			return -EBADMSG;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || !*name || is_function_piece(name))
			continue;
		dot = strchr(name, '.');
		ef->funcs[ef->nr].name = dot ? strndup(name, dot - name) : strdup(name);
		if (!ef->funcs[ef->nr].name)
			return -ENOMEM;
		ef->funcs[ef->nr].hash = hash_str(ef->funcs[ef->nr].name);
		ef->funcs[ef->nr].addr = sym.st_value;
		ef->funcs[ef->nr].clone = is_clone(name);
		ef->nr++;
		if (dot && !(ef->funcs[ef->nr - 1].dotted = strdup(name)))
			return -ENOMEM;
	}
	return 0;
}

/* One entry per name, noting names with several addresses; each name's
 * symbols stay in syms[]. */
static int unique_names(struct elf_funcs *ef)
{
	size_t i, j, out = 0;

	qsort(ef->funcs, ef->nr, sizeof(*ef->funcs), func_cmp);
	ef->syms = calloc(ef->nr ? ef->nr : 1, sizeof(*ef->syms));
	if (!ef->syms)
		return -ENOMEM;
	for (i = 0; i < ef->nr; i++) {
		ef->syms[i].addr = ef->funcs[i].addr;
		ef->syms[i].clone = ef->funcs[i].clone;
		ef->syms[i].dotted = ef->funcs[i].dotted;
		ef->funcs[i].dotted = NULL;
	}
	ef->nr_syms = ef->nr;
	for (i = 0; i < ef->nr; i = j) {
		struct elf_func f = ef->funcs[i];

		f.first_sym = (uint32_t)i;
		for (j = i + 1; j < ef->nr && ef->funcs[j].hash == f.hash &&
			    !strcmp(ef->funcs[j].name, f.name); j++) {
			if (ef->funcs[j].addr != f.addr)
				f.ambiguous = true;
			free(ef->funcs[j].name);
		}
		f.nr_syms = (uint32_t)(j - i);
		ef->funcs[out++] = f;
	}
	ef->nr = out;
	return 0;
}

static int index_names(struct elf_funcs *ef)
{
	size_t i;
	int err;

	for (i = 0; i < ef->nr; i++) {
		err = hmap__add(&ef->index, ef->funcs[i].hash, i);
		if (err)
			return err;
	}
	return 0;
}

/* (h: hash_str(name)) */
static struct elf_func *find_func_hashed(const struct elf_funcs *ef, const char *name, uint64_t h)
{
	struct hmap_iter it;
	uint64_t i;

	hmap__iter_init(&ef->index, h, &it);
	while (hmap__next(&ef->index, &it, &i)) {
		if (!strcmp(ef->funcs[i].name, name))
			return &ef->funcs[i];
	}
	return NULL;
}

static struct elf_func *find_func(const struct elf_funcs *ef, const char *name)
{
	return find_func_hashed(ef, name, hash_str(name));
}

/* "__BTF_ID__func__vfs_close__12" -> "vfs_close" (in buf), or NULL */
static const char *kfunc_name(const char *sym, char *buf, size_t size)
{
	const char *s = sym + sizeof(func_prefix) - 1, *end;
	size_t len;

	if (strncmp(sym, func_prefix, sizeof(func_prefix) - 1) != 0)
		return NULL;
	end = s + strlen(s);
	while (end > s && end[-1] >= '0' && end[-1] <= '9')
		end--;
	if (end - s < 3 || end[-1] != '_' || end[-2] != '_')
		return NULL;
	len = (size_t)(end - 2 - s);
	if (len == 0 || len >= size)
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

/* The word at byte offset off of .BTF_ids, if it is inside. */
static bool ids_word(Elf_Data *ids, uint64_t off, uint32_t *ret)
{
	if (off % 4 || off + 4 > ids->d_size)
		return false;
	*ret = ((const uint32_t *)ids->d_buf)[off / 4];
	return true;
}

struct range {
	uint64_t start, end;
};

/* The .BTF_ids section: its words, its index, the address of its start. */
struct btf_ids {
	Elf_Data *ids;		/* NULL: none */
	size_t ndx;
	uint64_t addr;
};

static void find_btf_ids(Elf *elf, struct btf_ids *ret)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;
	GElf_Ehdr ehdr;

	memset(ret, 0, sizeof(*ret));
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".BTF_ids") && shdr.sh_type != SHT_NOBITS) {
			ret->ndx = elf_ndxscn(scn);
			ret->ids = elf_getdata_rawchunk(elf, shdr.sh_offset, shdr.sh_size,
							ELF_T_WORD);
			break;
		}
	}
	/* in a relocatable file (a module) symbol values are offsets in their
	 * section, whatever address the section header shows (libdwfl lays
	 * ET_REL sections out at addresses of its own) */
	if (ret->ids && !(gelf_getehdr(elf, &ehdr) && ehdr.e_type == ET_REL))
		ret->addr = shdr.sh_addr;
}

/* The kfuncs' BTF_SET8s of the n symbols syms: the ranges they cover in sets. */
static size_t kfunc_sets(Elf *elf, Elf_Data *syms, size_t n, const GElf_Shdr *shdr,
			 const struct btf_ids *bi, struct range *sets)
{
	size_t i, nr_sets = 0;

	for (i = 0; i < n; i++) {
		const char *name;
		GElf_Sym sym;
		uint32_t flags;

		if (!gelf_getsym(syms, (int)i, &sym) || sym.st_shndx != bi->ndx)
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || strncmp(name, set8_prefix, sizeof(set8_prefix) - 1) != 0)
			continue;
		if (sym.st_value < bi->addr || !ids_word(bi->ids, sym.st_value - bi->addr + 4, &flags))
			continue;
		if (flags & BTF_SET8_KFUNCS) {
			sets[nr_sets].start = sym.st_value;
			sets[nr_sets].end = sym.st_value + sym.st_size;
			nr_sets++;
		}
	}
	return nr_sets;
}

static int collect_kfuncs(struct elf_funcs *ef, Elf *elf, Elf_Data *syms, const GElf_Shdr *shdr)
{
	size_t i, n = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0, nr_sets;
	struct range *sets;
	struct btf_ids bi;

	find_btf_ids(elf, &bi);
	if (!bi.ids)
		return 0;
	sets = calloc(n ? n : 1, sizeof(*sets));
	if (!sets)
		return -ENOMEM;
	nr_sets = kfunc_sets(elf, syms, n, shdr, &bi, sets);
	for (i = 0; i < n && nr_sets; i++) {
		char buf[512];
		const char *name, *fname;
		struct elf_func *f;
		GElf_Sym sym;
		uint32_t flags;
		size_t s;

		if (!gelf_getsym(syms, (int)i, &sym) || sym.st_shndx != bi.ndx)
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		fname = name ? kfunc_name(name, buf, sizeof(buf)) : NULL;
		if (!fname)
			continue;
		for (s = 0; s < nr_sets; s++) {
			if (sets[s].start <= sym.st_value && sym.st_value < sets[s].end)
				break;
		}
		/* the pair is { id, flags }: the symbol is at id */
		if (s == nr_sets || !ids_word(bi.ids, sym.st_value - bi.addr + 4, &flags))
			continue;
		f = find_func(ef, fname);
		if (f) {
			f->kfunc = true;
			f->kfunc_flags = flags;
		}
	}
	free(sets);
	return 0;
}

int elf_funcs__new(Elf *elf, struct elf_funcs **ret)
{
	struct elf_funcs *ef = calloc(1, sizeof(*ef));
	Elf_Data *syms;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	int err = 0;

	*ret = NULL;
	if (!ef)
		return -ENOMEM;
	hmap__init(&ef->index, false);
	scn = find_symtab(elf, &shdr);
	if (scn) {
		syms = elf_getdata(scn, NULL);
		if (!syms)
			err = -EBADMSG;
		if (!err)
			err = collect_funcs(ef, elf, syms, &shdr);
		if (!err && ef->nr > UINT32_MAX)
			err = -E2BIG;
		if (!err)
			err = unique_names(ef);
		if (!err)
			err = index_names(ef);
		if (!err) {
			err = collect_kfuncs(ef, elf, syms, &shdr);
		}
	}
	if (err) {
		elf_funcs__free(ef);
		return err;
	}
	*ret = ef;
	return 0;
}

void elf_funcs__free(struct elf_funcs *ef)
{
	size_t i;

	if (!ef)
		return;
	for (i = 0; i < ef->nr; i++) {
		free(ef->funcs[i].name);
		free(ef->funcs[i].dotted);	/* (unique_names() not reached) */
	}
	for (i = 0; i < ef->nr_syms; i++)
		free(ef->syms[i].dotted);
	free(ef->funcs);
	free(ef->syms);
	hmap__release(&ef->index);
	free(ef);
}

/*
 * Marking the names of a string section.  The walk asks for each function
 * DIE whether its name is a function's, in every unit that declares it:
 * in a kernel, several questions per name, each answered by a hash, a
 * probe and a compare with a name of the symbol table, on memory the walk
 * has long left, so that each misses the caches.  The names are strings
 * of .debug_str, so one pass over the section, string after string,
 * answers all questions at once: a bit per byte offset, set at the first
 * byte of each string that names a function.  A question about a string
 * that starts there (the section's first byte, or one after a NUL) is
 * then one bit; a name that is the tail of a longer string (a linker
 * merged "lock" into "spin_lock") is still asked of the symbol table.
 */
int elf_funcs__mark_names(const struct elf_funcs *ef, const char *str, size_t size,
			  uint64_t **ret, size_t *ret_covered)
{
	uint64_t *bits;
	size_t off = 0;

	*ret = NULL;
	*ret_covered = 0;
	bits = calloc(size / 64 + 1, sizeof(*bits));
	if (!bits)
		return -ENOMEM;
	while (ef->nr && off < size) {
		const char *s = str + off, *nul = memchr(s, '\0', size - off);
		size_t len;

		if (!nul)
			break;	/* a last string without its NUL: not covered */
		len = (size_t)(nul - s);
		if (len && find_func_hashed(ef, s, hash_bytes(s, len, 0)))
			bits[off / 64] |= 1ULL << (off % 64);
		off += len + 1;
	}
	*ret = bits;
	*ret_covered = off;
	return 0;
}

size_t elf_funcs__count(const struct elf_funcs *ef)
{
	return ef->nr;
}

bool elf_funcs__find(const struct elf_funcs *ef, const char *name, struct elf_func_info *ret)
{
	const struct elf_func *f;

	if (!ef->nr)
		return false;
	f = find_func(ef, name);
	if (!f)
		return false;
	ret->ambiguous = f->ambiguous;
	ret->kfunc = f->kfunc;
	ret->kfunc_flags = f->kfunc_flags;
	ret->first_sym = f->first_sym;
	ret->nr_syms = f->nr_syms;
	return true;
}

unsigned int elf_funcs__at(const struct elf_funcs *ef, const struct elf_func_info *info,
			   uint64_t addr)
{
	unsigned int at = 0;
	uint32_t i;

	for (i = info->first_sym; i < info->first_sym + info->nr_syms; i++) {
		if (ef->syms[i].addr == addr)
			at |= ELF_AT_SYMBOL | (ef->syms[i].clone ? ELF_AT_CLONE : 0);
	}
	return at;
}

const char *elf_funcs__dotted_at(const struct elf_funcs *ef, const struct elf_func_info *info,
				 uint64_t addr)
{
	uint32_t i;

	for (i = info->first_sym; i < info->first_sym + info->nr_syms; i++) {
		if (ef->syms[i].addr == addr && ef->syms[i].dotted)
			return ef->syms[i].dotted;
	}
	return NULL;
}
