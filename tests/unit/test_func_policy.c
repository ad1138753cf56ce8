// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's function policy (lib/kernel/func_policy.c) and FUNC pruning
 * (lib/finish/prune.c), on hand-built BTF and an ELF symbol table made in
 * memory: which FUNCs stay, which go with their DECL_TAGs and prototypes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <unistd.h>

#include "base/diag.h"
#include "btf/btf.h"
#include "kernel/elf_funcs.h"
#include "kernel/func_policy.h"
#include "finish/prune.h"
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

/* Where func_policy__select() says what it leaves out: nobody listens */
static struct diag note;

/* pahole 1.31's rules, without and with consistent_func */
static const struct func_policy_opts old_loose = { .pahole_1_31 = true };
static const struct func_policy_opts old_strict = { .consistent = true, .pahole_1_31 = true };
/* pahole 1.32's */
static const struct func_policy_opts new_loose = { 0 };
static const struct func_policy_opts new_strict = { .consistent = true };
static const struct func_policy_opts new_true_sig = { .consistent = true, .true_signature = true };

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
	/* by address: which symbols of a name are where */
	REQUIRE(elf_funcs__find(ef, "dup", &info));
	CHECK_EQ(elf_funcs__at(ef, &info, 0x10), ELF_AT_SYMBOL);
	CHECK_EQ(elf_funcs__at(ef, &info, 0x18), ELF_AT_SYMBOL | ELF_AT_CLONE);
	CHECK_EQ(elf_funcs__at(ef, &info, 0x20), 0);
	REQUIRE(elf_funcs__find(ef, "bar", &info));
	CHECK_EQ(elf_funcs__at(ef, &info, 0x20), ELF_AT_SYMBOL | ELF_AT_CLONE);
	CHECK_EQ(elf_funcs__at(ef, &info, 0x30), 0);	/* bar.cold is no symbol of bar */
	REQUIRE(elf_funcs__find(ef, "foo", &info));
	CHECK_EQ(elf_funcs__at(ef, &info, 0x18), 0);	/* dup's, not foo's */
	elf_funcs__free(ef);
	elf_end(e);
	close(fd);
}

/* elf_funcs__mark_names(): a string's bit is elf_funcs__find()'s answer */
static void test_mark_names(void)
{
	static const struct sym syms[] = {
		{ "foo", 0x10 }, { "bar.isra.0", 0x20 }, { "bar.cold", 0x30 }, { "dup", 0x10 },
	};
	/* "bar" is also the tail of "xbar"; the last string has no NUL */
	static const char str[] = "\0foo\0nope\0xbar\0bar\0dup\0bar.cold\0\0foo";
	size_t size = sizeof(str) - 1, covered, o;
	struct elf_func_info info;
	struct elf_funcs *ef;
	uint64_t *bits;
	int fd = -1;
	Elf *e = make_elf(syms, sizeof(syms) / sizeof(syms[0]), &fd);

	REQUIRE(e);
	REQUIRE(elf_funcs__new(e, &ef) == 0);
	REQUIRE(elf_funcs__mark_names(ef, str, size, &bits, &covered) == 0);
	CHECK_EQ(covered, size - 3);	/* the last "foo" is not covered */
	for (o = 0; o < size; o++) {
		bool bit = bits[o / 64] >> (o % 64) & 1;

		if (o < covered && (o == 0 || str[o - 1] == '\0'))
			CHECK_EQ(bit, elf_funcs__find(ef, str + o, &info));
		else
			CHECK(!bit);	/* a tail, or not covered */
	}
	CHECK(bits[0] >> 1 & 1);	/* foo */
	CHECK(!(bits[0] >> 5 & 1));	/* nope */
	CHECK(bits[0] >> 15 & 1);	/* bar */
	free(bits);
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
	recs[6] = (struct func_rec){ reg, FUNC_REC_UNEXPECTED_REG };

	/* without consistency: one FUNC per name with a symbol */
	n = func_policy__select(btf, recs, 7, ef, &old_loose, drop, &note, NULL);
	CHECK_EQ(n, 3);		/* foo2 bar2 baz */
	CHECK(!drop[foo1 - 1] && drop[foo2 - 1] && !drop[bar1 - 1] && drop[bar2 - 1]);
	CHECK(drop[baz - 1] && !drop[dup - 1] && !drop[reg - 1]);

	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, recs, 7, ef, &old_strict, drop, &note, NULL);
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
	static const struct sym syms[] = { { "foo", 0x10 }, { "tfoo", 0x20 } };
	struct d2b_btf *base = d2b_btf__new(NULL), *mod;
	struct func_rec recs[2];
	struct elf_funcs *ef;
	uint8_t drop[16] = { 0 };
	int fd = -1, bfoo, mfoo, lng, n;
	Elf *e = make_elf(syms, 2, &fd);

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
	n = func_policy__select(mod, recs, 2, ef, &old_strict, drop, &note, NULL);
	CHECK_EQ(n, 1);		/* the module's foo differs: it goes */
	CHECK(drop[mfoo - d2b_btf__start_id(mod)]);
	memset(drop, 0, sizeof(drop));
	n = func_policy__select(mod, recs, 2, ef, &old_loose, drop, &note, NULL);
	CHECK_EQ(n, 1);		/* one per name: the base's */
	d2b_btf__free(mod);

	/* pahole 1.32 repeats a base FUNC whose prototype names a typedef */
	{
		struct func_copies copies = { 0 };
		struct func_policy_opts po = { .copies = &copies };
		int td = d2b_btf__add_ref(base, D2B_KIND_TYPEDEF, "myint", 1);
		int tfoo = add_func(base, "tfoo", (uint32_t)td);

		mod = d2b_btf__new(base);
		REQUIRE(mod && tfoo > 0);
		recs[0] = (struct func_rec){ bfoo, 0, 0 };
		recs[1] = (struct func_rec){ (uint32_t)tfoo, 0, 0 };
		memset(drop, 0, sizeof(drop));
		CHECK_EQ(func_policy__select(mod, recs, 1, ef, &po, drop, &note, NULL), 0);
		CHECK_EQ(copies.nr, 0);		/* foo(int a, int b): merged */
		CHECK_EQ(func_policy__select(mod, &recs[1], 1, ef, &po, drop, &note, NULL), 0);
		CHECK_EQ(copies.nr, 1);		/* tfoo(int a, myint b): repeated */
		CHECK_EQ(copies.v[0].id, (uint32_t)tfoo);
		CHECK_EQ(func_policy__add_copies(mod, &copies, NULL), 0);
		CHECK_EQ(d2b_btf__nr_types(mod), 1);
		CHECK_STR(d2b_btf__name(mod, d2b_btf__start_id(mod)), "tfoo");
		CHECK_EQ(d2b_btf__type(mod, d2b_btf__start_id(mod))->type,
			 d2b_btf__type(base, (uint32_t)tfoo)->type);
		/* 1.31: never */
		copies.nr = 0;
		po.pahole_1_31 = true;
		CHECK_EQ(func_policy__select(mod, &recs[1], 1, ef, &po, drop, &note, NULL), 0);
		CHECK_EQ(copies.nr, 0);
		func_copies__release(&copies);
	}
	d2b_btf__free(mod);
	d2b_btf__free(base);
	elf_funcs__free(ef);
	elf_end(e);
	close(fd);
}

/*
 * pahole 1.32's rules, one name each:
 *   weak: a __weak definition (code where no symbol is) met before the
 *	strong one (at the symbol): the strong one stays;
 *   str: an inline-only definition (no code) met first: the one with code
 *	at the symbol stays;
 *   isra: lost parameters, and a .isra clone's symbol at its code: out;
 *   plain: lost parameters, at a plain symbol (the ABI is the same): stays;
 *   nocall: lost parameters, clang's DW_CC_nocall: out;
 *   reord: reordered parameters: out, consistent_func or not;
 *   reg: a parameter in another register: out, consistent_func or not
 *	(1.31: only with it);
 *   fptr: prototypes whose function-pointer parameters differ (int vs
 *	long): out with consistent_func (1.31 compared arity only);
 * and with true_signature.
 */
static void test_select_132(void)
{
	static const struct sym syms[] = {
		{ "weak", 0x100 }, { "str", 0x110 }, { "isra.isra.0", 0x120 }, { "plain", 0x130 },
		{ "nocall", 0x140 }, { "reord", 0x150 }, { "reg", 0x160 }, { "fptr", 0x170 },
	};
	struct d2b_btf *btf = d2b_btf__new(NULL);
	struct func_rec recs[11];
	struct elf_funcs *ef;
	uint8_t drop[64] = { 0 };
	int fd = -1, lng, fp_int, fp_lng, weak1, weak2, str1, str2, isra, plain, nocall, reord;
	int reg, fptr1, fptr2, n;
	Elf *e = make_elf(syms, sizeof(syms) / sizeof(syms[0]), &fd);

	REQUIRE(e && btf);
	REQUIRE(elf_funcs__new(e, &ef) == 0);
	CHECK_EQ(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED), 1);
	lng = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	/* void (*)(int) and void (*)(long) */
	fp_int = d2b_btf__add_func_proto(btf, 0);
	d2b_btf__add_param(btf, NULL, 1);
	fp_int = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, (uint32_t)fp_int);
	fp_lng = d2b_btf__add_func_proto(btf, 0);
	d2b_btf__add_param(btf, NULL, (uint32_t)lng);
	fp_lng = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, (uint32_t)fp_lng);
	weak1 = add_func(btf, "weak", 1);
	weak2 = add_func(btf, "weak", lng);
	str1 = add_func(btf, "str", lng);
	str2 = add_func(btf, "str", 1);
	isra = add_func(btf, "isra", 1);
	plain = add_func(btf, "plain", 1);
	nocall = add_func(btf, "nocall", 1);
	reord = add_func(btf, "reord", 1);
	reg = add_func(btf, "reg", 1);
	fptr1 = add_func(btf, "fptr", (uint32_t)fp_int);
	fptr2 = add_func(btf, "fptr", (uint32_t)fp_lng);
	REQUIRE(fptr2 > 0);
	recs[0] = (struct func_rec){ weak1, 0, 0x900 };
	recs[1] = (struct func_rec){ weak2, 0, 0x100 };
	recs[2] = (struct func_rec){ str1, FUNC_REC_OPTIMIZED, 0 };
	recs[3] = (struct func_rec){ str2, 0, 0x110 };
	recs[4] = (struct func_rec){ isra, FUNC_REC_OPTIMIZED, 0x120 };
	recs[5] = (struct func_rec){ plain, FUNC_REC_OPTIMIZED, 0x130 };
	recs[6] = (struct func_rec){ nocall, FUNC_REC_OPTIMIZED | FUNC_REC_NOCALL, 0x140 };
	recs[7] = (struct func_rec){ reord, FUNC_REC_REORDERED, 0x150 };
	recs[8] = (struct func_rec){ reg, FUNC_REC_UNEXPECTED_REG, 0x160 };
	recs[9] = (struct func_rec){ fptr1, 0, 0x170 };
	recs[10] = (struct func_rec){ fptr2, 0, 0 };

	n = func_policy__select(btf, recs, 11, ef, &new_loose, drop, &note, NULL);
	CHECK_EQ(n, 7);		/* weak1 str1 isra nocall reord reg fptr2 */
	CHECK(drop[weak1 - 1] && !drop[weak2 - 1] && drop[str1 - 1] && !drop[str2 - 1]);
	CHECK(drop[isra - 1] && !drop[plain - 1] && drop[nocall - 1] && drop[reord - 1]);
	CHECK(drop[reg - 1] && !drop[fptr1 - 1] && drop[fptr2 - 1]);

	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, recs, 11, ef, &new_strict, drop, &note, NULL);
	CHECK_EQ(n, 10);	/* and both weak, str and fptr: their prototypes differ */
	CHECK(!drop[plain - 1]);

	/* 1.31: the first met stays; only consistent_func leaves out */
	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, recs, 11, ef, &old_loose, drop, &note, NULL);
	CHECK_EQ(n, 3);		/* weak2 str2 fptr2 */
	CHECK(!drop[weak1 - 1] && drop[weak2 - 1] && !drop[str1 - 1] && drop[str2 - 1]);
	CHECK(!drop[isra - 1] && !drop[nocall - 1] && !drop[reord - 1] && !drop[reg - 1]);
	CHECK(!drop[fptr1 - 1] && drop[fptr2 - 1]);

	/* with true_signature (no renames: no clone takes the name), lost
	 * parameters leave none out, and definitions without code are
	 * compared with none where one has code (str, fptr): only weak's
	 * two with code, reord and reg are out */
	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, recs, 11, ef, &new_true_sig, drop, &note, NULL);
	CHECK_EQ(n, 6);		/* weak1 weak2 str1 reord reg fptr2 */
	CHECK(drop[weak1 - 1] && drop[weak2 - 1] && drop[str1 - 1] && !drop[str2 - 1]);
	CHECK(!drop[isra - 1] && !drop[plain - 1] && !drop[nocall - 1] && drop[reord - 1]);
	CHECK(drop[reg - 1] && !drop[fptr1 - 1] && drop[fptr2 - 1]);

	/* fptr alone: 1.31 takes void (*)(int) for void (*)(long), 1.32 not */
	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, &recs[9], 2, ef, &old_strict, drop, &note, NULL);
	CHECK_EQ(n, 1);
	CHECK(!drop[fptr1 - 1]);
	memset(drop, 0, sizeof(drop));
	n = func_policy__select(btf, &recs[9], 2, ef, &new_strict, drop, &note, NULL);
	CHECK_EQ(n, 2);
	elf_funcs__free(ef);
	d2b_btf__free(btf);
	elf_end(e);
	close(fd);
}

/* The notes select gives, as data: kept in order, names copied */
struct notes {
	struct d2b_func_note v[16];
	char names[16][16];
	size_t nr;
};

/* The caller's d2b_diag_fn, d2b_opts.func_notes set: each note's data */
static void keep_note(const struct d2b_diag *d, void *arg)
{
	struct notes *ns = arg;

	CHECK(d->level == D2B_INFO && d->func);
	if (!d->func || ns->nr >= 16)
		return;
	ns->v[ns->nr] = *d->func;
	snprintf(ns->names[ns->nr], sizeof(ns->names[0]), "%s", d->func->name);
	ns->nr++;
}

/*
 * What select says, name by name, as pahole 1.32 and 1.31 say it:
 *   cnt	foo(int a) here, foo(int a, int b) there: the parameter count
 *   ret	int vs long returned: the return type
 *   stop	an unexpected register first: pahole compares no further
 *   late	one alike, one that differs, then an unexpected register:
 *		the prototypes, found first, are why (1.32)
 *   dup	several addresses; none	no ELF symbol
 */
static void test_notes(void)
{
	static const struct sym syms[] = {
		{ "cnt", 0x10 }, { "ret", 0x20 }, { "stop", 0x30 }, { "late", 0x40 },
		{ "dup", 0x50 }, { "dup", 0x58 },
	};
	struct d2b_btf *btf = d2b_btf__new(NULL);
	struct func_rec recs[11];
	struct notes ns = { .nr = 0 };
	struct d2b_opts opts = { .sz = D2B_OPTS_SZ, .diag = keep_note, .diag_arg = &ns,
				 .func_notes = true };
	struct diag nd;
	struct elf_funcs *ef;
	uint8_t drop[64] = { 0 };
	int fd = -1, lng, p1, cnt1, cnt2, ret1, ret2, stop1, stop2, late1, late2, dup, none;
	Elf *e = make_elf(syms, sizeof(syms) / sizeof(syms[0]), &fd);

	REQUIRE(e && btf);
	REQUIRE(elf_funcs__new(e, &ef) == 0);
	diag__init(&nd, &opts, NULL);
	CHECK_EQ(d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED), 1);
	lng = d2b_btf__add_int(btf, "long", 8, D2B_INT_SIGNED);
	p1 = d2b_btf__add_func_proto(btf, 1);
	d2b_btf__add_param(btf, "a", 1);
	cnt1 = d2b_btf__add_func(btf, "cnt", D2B_LINKAGE_STATIC, (uint32_t)p1);
	cnt2 = add_func(btf, "cnt", 1);
	ret1 = add_func(btf, "ret", 1);
	p1 = d2b_btf__add_func_proto(btf, (uint32_t)lng);
	d2b_btf__add_param(btf, "a", 1);
	d2b_btf__add_param(btf, "b", 1);
	ret2 = d2b_btf__add_func(btf, "ret", D2B_LINKAGE_STATIC, (uint32_t)p1);
	stop1 = add_func(btf, "stop", 1);
	stop2 = add_func(btf, "stop", (uint32_t)lng);
	late1 = add_func(btf, "late", 1);
	late2 = add_func(btf, "late", (uint32_t)lng);
	dup = add_func(btf, "dup", 1);
	none = add_func(btf, "none", 1);
	REQUIRE(none > 0);
	recs[0] = (struct func_rec){ cnt1, 0, 0x10 };
	recs[1] = (struct func_rec){ cnt2, 0, 0 };
	recs[2] = (struct func_rec){ ret1, 0, 0x20 };
	recs[3] = (struct func_rec){ ret2, 0, 0 };
	recs[4] = (struct func_rec){ stop1, FUNC_REC_UNEXPECTED_REG, 0x30 };
	recs[5] = (struct func_rec){ stop2, 0, 0 };
	recs[6] = (struct func_rec){ late1, 0, 0x40 };
	recs[7] = (struct func_rec){ late2, 0, 0 };
	recs[8] = (struct func_rec){ late1, FUNC_REC_UNEXPECTED_REG, 0 };
	recs[9] = (struct func_rec){ dup, 0, 0x50 };
	recs[10] = (struct func_rec){ none, 0, 0x60 };

	CHECK_EQ(func_policy__select(btf, recs, 11, ef, &new_strict, drop, &nd, NULL), 10);
	REQUIRE(ns.nr == 9);
	CHECK(ns.v[0].what == D2B_FUNC_PROTOS_DIFFER && ns.v[0].diff == D2B_PROTO_PARAM_COUNT);
	CHECK_STR(ns.names[0], "cnt");
	CHECK(ns.v[0].nr_params[0] == 1 && ns.v[0].nr_params[1] == 2);
	CHECK(ns.v[1].what == D2B_FUNC_LEFT_OUT && ns.v[1].why == D2B_FUNC_INCONSISTENT);
	CHECK_STR(ns.names[2], "dup");
	CHECK(ns.v[2].what == D2B_FUNC_LEFT_OUT && ns.v[2].why == D2B_FUNC_AMBIGUOUS);
	CHECK_STR(ns.names[3], "late");
	CHECK(ns.v[3].what == D2B_FUNC_PROTOS_DIFFER && ns.v[3].diff == D2B_PROTO_PARAM_TYPE);
	CHECK(ns.v[3].param == 1);
	CHECK_STR(ns.v[3].param_name[0], "b");
	CHECK_STR(ns.v[3].param_name[1], "b");
	CHECK(ns.v[4].what == D2B_FUNC_LEFT_OUT && ns.v[4].why == D2B_FUNC_INCONSISTENT);
	CHECK_STR(ns.names[5], "none");
	CHECK(ns.v[5].what == D2B_FUNC_LEFT_OUT && ns.v[5].why == D2B_FUNC_NO_SYMBOL);
	CHECK_STR(ns.names[6], "ret");
	CHECK(ns.v[6].what == D2B_FUNC_PROTOS_DIFFER && ns.v[6].diff == D2B_PROTO_RETURN);
	CHECK(ns.v[7].what == D2B_FUNC_LEFT_OUT && ns.v[7].why == D2B_FUNC_INCONSISTENT);
	CHECK_STR(ns.names[8], "stop");
	CHECK(ns.v[8].what == D2B_FUNC_LEFT_OUT && ns.v[8].why == D2B_FUNC_UNEXPECTED_REG);

	/* without consistent_func the differences are still said (pahole
	 * compares anyway), and only what 1.32 always leaves out goes */
	memset(drop, 0, sizeof(drop));
	ns.nr = 0;
	CHECK_EQ(func_policy__select(btf, recs, 11, ef, &new_loose, drop, &nd, NULL), 8);
	REQUIRE(ns.nr == 7);
	CHECK(ns.v[0].what == D2B_FUNC_PROTOS_DIFFER && ns.v[1].why == D2B_FUNC_AMBIGUOUS);
	CHECK(ns.v[2].what == D2B_FUNC_PROTOS_DIFFER && ns.v[3].why == D2B_FUNC_UNEXPECTED_REG);
	CHECK(ns.v[4].why == D2B_FUNC_NO_SYMBOL && ns.v[5].diff == D2B_PROTO_RETURN);
	CHECK(ns.v[6].why == D2B_FUNC_UNEXPECTED_REG);

	/* a clone whose DIE lists no parameter (its count in the flags),
	 * against its declaration's two */
	memset(drop, 0, sizeof(drop));
	ns.nr = 0;
	recs[1] = (struct func_rec){ ret1, FUNC_REC_CLONE_CHANGED, 0 };
	CHECK_EQ(func_policy__select(btf, &recs[1], 2, ef, &new_strict, drop, &nd, NULL), 1);
	REQUIRE(ns.nr == 2);
	CHECK(ns.v[0].what == D2B_FUNC_PROTOS_DIFFER && ns.v[0].diff == D2B_PROTO_PARAM_COUNT);
	CHECK(ns.v[0].nr_params[0] == 2 && ns.v[0].nr_params[1] == 0);
	CHECK(ns.v[1].what == D2B_FUNC_LEFT_OUT && ns.v[1].why == D2B_FUNC_CLONE_CHANGED);
	recs[1] = (struct func_rec){ cnt2, 0, 0 };

	/* 1.31 stops at an unexpected register too, and says why only with
	 * consistent_func (its own order: the register first) */
	memset(drop, 0, sizeof(drop));
	ns.nr = 0;
	func_policy__select(btf, recs, 11, ef, &old_strict, drop, &nd, NULL);
	REQUIRE(ns.nr == 9);
	CHECK(ns.v[3].what == D2B_FUNC_PROTOS_DIFFER && ns.v[4].why == D2B_FUNC_UNEXPECTED_REG);
	elf_funcs__free(ef);
	d2b_btf__free(btf);
	elf_end(e);
	close(fd);
}

/* d2b_opts.kernel_policy: a value no release has is refused, before the
 * file is even opened */
static void test_unknown_policy(void)
{
	struct d2b_opts o = { .funcs = D2B_FUNCS_KERNEL, .kernel_policy = 130 };
	struct d2b_btf *btf = NULL;

	CHECK_EQ(d2b_convert_file("/nonexistent/d2b-test", NULL, &o, &btf), -EINVAL);
	CHECK(btf == NULL);
	o.kernel_policy = D2B_KERNEL_POLICY_PAHOLE_1_31;
	CHECK_EQ(d2b_convert_file("/nonexistent/d2b-test", NULL, &o, &btf), -ENOENT);
}

int main(void)
{
	RUN(test_elf_funcs);
	RUN(test_mark_names);
	RUN(test_select_and_prune);
	RUN(test_split_base_func);
	RUN(test_select_132);
	RUN(test_notes);
	RUN(test_unknown_policy);
	return test_done();
}
