// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's function policy (lib/kernel/func_policy.c) and FUNC pruning
 * (lib/finish/prune.c), on hand-built BTF and an ELF symbol table made in
 * memory: which FUNCs stay, which go with their DECL_TAGs and prototypes.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <unistd.h>

#include "btf/btf.h"
#include "kernel/elf_funcs.h"
#include "kernel/func_policy.h"
#include "finish/prune.h"
#include "unit/unit.h"
#include "test.h"

/* An ELF ET_REL file (in a temp file) whose .symtab has these STT_FUNC
 * symbols, at these addresses in section 1 (.text). */
struct sym {
	const char *name;
	uint64_t addr;
};

static Elf *make_elf(const struct sym *syms, size_t n, int *ret_fd)
{
	char path[] = "/tmp/d2b-test-elf.XXXXXX";
	char strtab[4096] = "";
	size_t str_len = 1, i;
	static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	static char text_buf[64];
	GElf_Sym *st = calloc(n + 1, sizeof(*st));
	void *symbuf = calloc(n + 1, sizeof(Elf64_Sym));
	Elf_Scn *text, *sym, *str, *shstr;
	Elf_Data *d;
	GElf_Shdr sh;
	Elf *e;
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || !st || !symbuf)
		return NULL;
	unlink(path);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	gelf_newehdr(e, ELFCLASS64);
	{
		GElf_Ehdr eh;

		gelf_getehdr(e, &eh);
		eh.e_type = ET_REL;
		eh.e_machine = EM_X86_64;
		eh.e_ident[EI_DATA] = ELFDATA2LSB;
		eh.e_shstrndx = 4;
		gelf_update_ehdr(e, &eh);
	}
	for (i = 0; i < n; i++) {
		st[i + 1].st_name = (uint32_t)str_len;
		strcpy(strtab + str_len, syms[i].name);
		str_len += strlen(syms[i].name) + 1;
		st[i + 1].st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC);
		st[i + 1].st_shndx = 1;
		st[i + 1].st_value = syms[i].addr;
	}
	text = elf_newscn(e);
	d = elf_newdata(text);
	d->d_buf = text_buf;
	d->d_size = sizeof(text_buf);
	gelf_getshdr(text, &sh);
	sh.sh_name = 1;
	sh.sh_type = SHT_PROGBITS;
	sh.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	gelf_update_shdr(text, &sh);
	sym = elf_newscn(e);
	d = elf_newdata(sym);
	d->d_type = ELF_T_SYM;
	d->d_buf = symbuf;
	d->d_size = (n + 1) * sizeof(Elf64_Sym);
	for (i = 0; i <= n; i++)
		gelf_update_sym(d, (int)i, &st[i]);
	gelf_getshdr(sym, &sh);
	sh.sh_name = 7;
	sh.sh_type = SHT_SYMTAB;
	sh.sh_link = 3;
	sh.sh_info = 1;
	sh.sh_entsize = sizeof(Elf64_Sym);
	gelf_update_shdr(sym, &sh);
	str = elf_newscn(e);
	d = elf_newdata(str);
	d->d_buf = strtab;
	d->d_size = str_len;
	gelf_getshdr(str, &sh);
	sh.sh_name = 15;
	sh.sh_type = SHT_STRTAB;
	gelf_update_shdr(str, &sh);
	shstr = elf_newscn(e);
	d = elf_newdata(shstr);
	d->d_buf = (void *)shstrtab;
	d->d_size = sizeof(shstrtab);
	gelf_getshdr(shstr, &sh);
	sh.sh_name = 23;
	sh.sh_type = SHT_STRTAB;
	gelf_update_shdr(shstr, &sh);
	if (elf_update(e, ELF_C_WRITE) < 0)
		return NULL;
	elf_end(e);
	free(st);
	free(symbuf);
	*ret_fd = fd;
	return elf_begin(fd, ELF_C_READ, NULL);
}

static void note(void *arg, const char *fmt, ...)
{
	(void)arg;
	(void)fmt;
}

/* FUNC name(int a, <ptype> b) in btf; returns the FUNC's ID */
static int add_func(struct d2b_btf *btf, const char *name, uint32_t ptype)
{
	int proto = d2b_btf__add_func_proto(btf, 1);

	d2b_btf__add_param(btf, "a", 1);
	d2b_btf__add_param(btf, "b", ptype);
	(void)proto;
	return d2b_btf__add_func(btf, name, D2B_LINKAGE_STATIC, proto);
}

static void test_elf_funcs(void)
{
	static const struct sym syms[] = {
		{ "foo", 0x10 }, { "bar.isra.0", 0x20 }, { "bar.cold", 0x30 },
		{ "dup", 0x10 }, { "dup.constprop.0", 0x18 }, { "same", 0x8 }, { "same", 0x8 },
	};
	struct elf_func_info info;
	struct elf_funcs *ef;
	int fd = -1;
	Elf *e = make_elf(syms, sizeof(syms) / sizeof(syms[0]), &fd);

	REQUIRE(e);
	REQUIRE(elf_funcs__new(e, &ef) == 0);
	CHECK_EQ(elf_funcs__count(ef), 4);		/* foo bar dup same */
	CHECK(elf_funcs__find(ef, "foo", &info) && !info.ambiguous && !info.kfunc);
	CHECK(elf_funcs__find(ef, "bar", &info) && !info.ambiguous);
	CHECK(elf_funcs__find(ef, "dup", &info) && info.ambiguous);
	CHECK(elf_funcs__find(ef, "same", &info) && !info.ambiguous);
	CHECK(!elf_funcs__find(ef, "bar.cold", &info));
	CHECK(!elf_funcs__find(ef, "nope", &info));
	elf_funcs__free(ef);
	elf_end(e);
	close(fd);
}

/*
 * foo: two units, prototypes differing loosely (int vs const int: equal);
 * bar: two units, int vs long (differ: both go with consistency);
 * baz: no ELF symbol; dup: several addresses; reg: unexpected register.
 */
static void test_select_and_prune(void)
{
	static const struct sym syms[] = {
		{ "foo", 0x10 }, { "bar", 0x20 }, { "dup", 0x30 }, { "dup.isra.0", 0x38 },
		{ "reg", 0x40 },
	};
	struct d2b_btf *btf = d2b_btf__new(NULL), *out = NULL;
	uint32_t *map = NULL, i;
	struct func_rec recs[7];
	struct elf_funcs *ef;
	uint8_t drop[64] = { 0 };
	int fd = -1, cint, lng, foo1, foo2, bar1, bar2, baz, dup, reg, tag, n;
	Elf *e = make_elf(syms, sizeof(syms) / sizeof(syms[0]), &fd);

	REQUIRE(e && btf);
	REQUIRE(elf_funcs__new(e, &ef) == 0);
	CHECK_EQ(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED), 1);
	lng = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	cint = d2b_btf__add_ref(btf, D2B_KIND_CONST, NULL, 1);
	foo1 = add_func(btf, "foo", 1);
	foo2 = add_func(btf, "foo", cint);
	bar1 = add_func(btf, "bar", 1);
	bar2 = add_func(btf, "bar", lng);
	baz = add_func(btf, "baz", 1);
	dup = add_func(btf, "dup", 1);
	reg = add_func(btf, "reg", 1);
	tag = d2b_btf__add_decl_tag(btf, "t", bar1, -1);
	REQUIRE(reg > 0 && tag > 0);
	recs[0] = (struct func_rec){ foo1, 0 };
	recs[1] = (struct func_rec){ bar1, 0 };
	recs[2] = (struct func_rec){ foo2, 0 };
	recs[3] = (struct func_rec){ bar2, 0 };
	recs[4] = (struct func_rec){ baz, 0 };
	recs[5] = (struct func_rec){ dup, 0 };
	recs[6] = (struct func_rec){ reg, UNIT_FUNC_UNEXPECTED_REG };

	/* without consistency: one FUNC per name with a symbol */
	n = func_policy__select(btf, recs, 7, ef, false, drop, note, NULL, NULL);
	CHECK_EQ(n, 3);		/* foo2 bar2 baz */
	CHECK(!drop[foo1 - 1] && drop[foo2 - 1] && !drop[bar1 - 1] && drop[bar2 - 1]);
	CHECK(drop[baz - 1] && !drop[dup - 1] && !drop[reg - 1]);

	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, recs, 7, ef, true, drop, note, NULL, NULL);
	CHECK_EQ(n, 6);		/* foo2, both bars, baz, dup, reg */
	CHECK(!drop[foo1 - 1] && drop[bar1 - 1] && drop[bar2 - 1] && drop[dup - 1] && drop[reg - 1]);

	REQUIRE(prune__funcs(btf, drop, &out, &map) == 0);
	/* int long const, foo1 + its proto stay; bar1's tag goes too */
	CHECK_EQ(d2b_btf__nr_types(out), 5);
	CHECK_EQ(map[tag], 0);
	CHECK(map[foo1] != 0);
	CHECK_STR(d2b_btf__name(out, map[foo1]), "foo");
	CHECK_EQ(d2b_kind(d2b_btf__type(out, d2b_btf__type(out, map[foo1])->type)), D2B_KIND_FUNC_PROTO);
	for (i = 1; i < d2b_btf__end_id(out); i++)
		CHECK(d2b_kind(d2b_btf__type(out, i)) != D2B_KIND_DECL_TAG);
	free(map);
	d2b_btf__free(out);
	elf_funcs__free(ef);
	d2b_btf__free(btf);
	elf_end(e);
	close(fd);
}

/* A module's FUNC that the merge found in the base is compared, never
 * dropped (it once indexed drop[] below zero). */
static void test_split_base_func(void)
{
	static const struct sym syms[] = { { "foo", 0x10 } };
	struct d2b_btf *base = d2b_btf__new(NULL), *mod;
	struct func_rec recs[2];
	struct elf_funcs *ef;
	uint8_t drop[16] = { 0 };
	int fd = -1, bfoo, mfoo, lng, n;
	Elf *e = make_elf(syms, 1, &fd);

	REQUIRE(e && base);
	REQUIRE(elf_funcs__new(e, &ef) == 0);
	d2b_btf__add_int(base, "int", 4, D2B_INT_SIGNED);
	bfoo = add_func(base, "foo", 1);
	mod = d2b_btf__new(base);
	REQUIRE(mod);
	lng = d2b_btf__add_int(mod, "long", 8, D2B_INT_SIGNED);
	mfoo = add_func(mod, "foo", lng);
	recs[0] = (struct func_rec){ bfoo, 0 };
	recs[1] = (struct func_rec){ mfoo, 0 };
	n = func_policy__select(mod, recs, 2, ef, true, drop, note, NULL, NULL);
	CHECK_EQ(n, 1);		/* the module's foo differs: it goes */
	CHECK(drop[mfoo - d2b_btf__start_id(mod)]);
	memset(drop, 0, sizeof(drop));
	n = func_policy__select(mod, recs, 2, ef, false, drop, note, NULL, NULL);
	CHECK_EQ(n, 1);		/* one per name: the base's */
	d2b_btf__free(mod);
	d2b_btf__free(base);
	elf_funcs__free(ef);
	elf_end(e);
	close(fd);
}

int main(void)
{
	RUN(test_elf_funcs);
	RUN(test_select_and_prune);
	RUN(test_split_base_func);
	return test_done();
}
