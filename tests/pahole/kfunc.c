// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * decl_tag_kfuncs (tests/pahole/run.sh): a kfunc set in .BTF_ids as the
 * kernel's BTF_KFUNCS_START / BTF_ID_FLAGS / BTF_KFUNCS_END emit it
 * (include/linux/btf_ids.h):
 *   __BTF_ID__set8__myset: { u32 cnt; u32 flags = BTF_SET8_KFUNCS (1);
 *                            { u32 id; u32 flags; } pairs[] }
 *   __BTF_ID__func__NAME__N at each pair's id.
 * my_fast_kfunc's pair has KF_FASTCALL (1 << 12), my_arena_kfunc's
 * KF_ARENA_RET | KF_ARENA_ARG1 (1 << 13 | 1 << 14: with the attributes
 * feature, its pointers get TYPE_TAG "address_space(1)").  not_a_kfunc is in a
 * set8 whose flags are 0 (BTF_SET8_START: not kfuncs).  With -DMAIN a
 * main() makes it an executable.
 */
__attribute__((noinline)) int my_kfunc(int a)
{
	return a + 1;
}

__attribute__((noinline)) int my_fast_kfunc(int a, int b)
{
	return a * b;
}

__attribute__((noinline)) void *my_arena_kfunc(void *p, int n)
{
	return (char *)p + n;
}

__attribute__((noinline)) int not_a_kfunc(int a)
{
	return a - 1;
}

__attribute__((noinline)) int plain_function(int a)
{
	return my_kfunc(a) + my_fast_kfunc(a, 2) + not_a_kfunc(a) +
	       (my_arena_kfunc(&a, 0) != 0);
}

#ifdef MAIN
int main(int argc, char **argv)
{
	(void)argv;
	return plain_function(argc) > 100;
}
#endif

/* BTF_ID_FLAGS(func, NAME, FLAGS) */
#define KFUNC(name, n, flags)						\
	".local __BTF_ID__func__" #name "__" #n "\n"			\
	".type __BTF_ID__func__" #name "__" #n ", STT_OBJECT\n"		\
	".size __BTF_ID__func__" #name "__" #n ", 4\n"			\
	"__BTF_ID__func__" #name "__" #n ":\n"				\
	".zero 4\n"							\
	".long " #flags "\n"

/* BTF_SET8_START(set) with the set's flags */
#define SET8_START(set, flags)						\
	".local " #set "\n"						\
	#set ":\n"							\
	".local __BTF_ID__set8__" #set "\n"				\
	"__BTF_ID__set8__" #set ":\n"					\
	".zero 4\n"							\
	".long " #flags "\n"

#define SET8_END(set) ".size __BTF_ID__set8__" #set ", .-" #set "\n"

asm(".pushsection .BTF_ids,\"a\"\n"
    SET8_START(myset, 1)
    KFUNC(my_kfunc, 1, 0)
    KFUNC(my_fast_kfunc, 2, (1 << 12))
    KFUNC(my_arena_kfunc, 4, (1 << 13 | 1 << 14))
    SET8_END(myset)
    SET8_START(otherset, 0)
    KFUNC(not_a_kfunc, 3, 0)
    SET8_END(otherset)
    ".popsection\n");
