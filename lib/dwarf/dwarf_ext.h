/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * DWARF constants that elfutils' <dwarf.h> (0.188) does not name: vendor
 * extensions for BTF annotations and DWARF 5 additions.
 */
#ifndef D2B_DWARF_EXT_H
#define D2B_DWARF_EXT_H

enum {
	D2B_DW_TAG_LLVM_annotation = 0x6000,	/* clang: btf_decl_tag, btf_type_tag */
	D2B_DW_TAG_GNU_annotation = 0x6001,	/* gcc 16 */
	D2B_DW_AT_GNU_annotation = 0x2139,	/* gcc 16: the annotation chain */
	D2B_DW_LANG_C_plus_plus_17 = 0x002a,
	D2B_DW_LANG_C_plus_plus_20 = 0x002b,
	D2B_DW_LANG_C17 = 0x002c,
};

#endif
