/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a LOC_PARAM means (btf_loc.c): the bpf tree's rule for its fields,
 * and its value in words, for the verifier, the dump and the comparison.
 */
#ifndef D2B_BTF_LOC_H
#define D2B_BTF_LOC_H

#include <stddef.h>

#include "dwarf2btf.h"

/* NULL if t, a LOC_PARAM, keeps the rules the bpf tree's kernel checks
 * (btf_loc_param_check_meta(): a size of 1 to 16 bytes, no kind_flag, a
 * known combination of flags and a vlen that fits it); else what it
 * breaks, as one phrase ("flags 0x40", "vlen 3 for a constant"). */
const char *btf_loc_param_problem(const struct d2b_type *t);

/* t's value as bpftool writes it: "reg1", "*(reg2 + 0x10)", "fbreg -
 * 0x10", "0x123456789abcdef0 (addr)", "0xdeadbeeffeedface"; snprintf()'s
 * result.  A LOC_PARAM that breaks the rules gets its words in hex. */
int btf_loc_param_format(const struct d2b_type *t, char *buf, size_t len);

#endif
