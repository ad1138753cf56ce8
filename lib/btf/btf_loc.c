// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline-site kinds of the bpf tree (2026): LOC_PARAM (where a
 * parameter's value is at a site: a register, a register and an offset,
 * a dereference, a constant), LOC_PROTO (one LOC_PARAM or none per
 * parameter of a function) and LOCSEC (a section's sites: which FUNC is
 * inlined where, with which LOC_PROTO).  Their builders, and what a
 * LOC_PARAM means, said once: the kernel's rule for its flags and vlen
 * (kernel/bpf/btf.c, btf_loc_param_check_meta()), which the verifier
 * applies, and its value written as bpftool writes it, which the dump and
 * the comparison by meaning use.
 *
 * The builder writes what it is given, checking only that the type can be
 * written (known flags, at least one value, a size, a name for a LOCSEC):
 * the kernel's rules are the verifier's to apply, as for every kind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/btf_loc.h"

enum {
	LOC_PARAM_KNOWN = D2B_LOC_PARAM_SIGNED | D2B_LOC_PARAM_CONST | D2B_LOC_PARAM_ADDR |
			  D2B_LOC_PARAM_REG | D2B_LOC_PARAM_DEREF | D2B_LOC_PARAM_OFFSET,
	LOC_PARAM_MAX_SIZE = 16,	/* bytes: the kernel's "Unexpected size" */
};

int d2b_btf__add_loc_param(struct d2b_btf *btf, uint32_t size, uint32_t flags,
			   const uint32_t *values, unsigned int nvalues)
{
	struct d2b_type *t;
	uint32_t *w;
	int id;

	if (!size || (flags & ~(uint32_t)LOC_PARAM_KNOWN) || !nvalues || !values ||
	    nvalues > D2B_MAX_VLEN_WIDE)
		return -EINVAL;
	id = btf_add_type(btf, NULL, d2b_info(D2B_KIND_LOC_PARAM, false, nvalues), size,
			  4 + (size_t)nvalues, &t);
	if (id < 0)
		return id;
	w = (uint32_t *)(t + 1);
	w[0] = flags;
	memcpy(w + 1, values, (size_t)nvalues * 4);
	return id;
}

int d2b_btf__add_loc_proto(struct d2b_btf *btf)
{
	int id = btf_add_type(btf, NULL, d2b_info(D2B_KIND_LOC_PROTO, false, 0), 0, 3, NULL);

	if (id >= 0)
		btf_set_open(btf, (uint32_t)id);
	return id;
}

int d2b_btf__add_loc_proto_param(struct d2b_btf *btf, uint32_t loc_param_id)
{
	uint32_t *w;
	int err = btf_grow_open(btf, 1u << D2B_KIND_LOC_PROTO, 1, &w);

	if (!err)
		w[0] = loc_param_id;
	return err;
}

int d2b_btf__add_locsec(struct d2b_btf *btf, const char *name)
{
	int id;

	if (!name || !*name)
		return -EINVAL;
	id = btf_add_type(btf, name, d2b_info(D2B_KIND_LOCSEC, false, 0), 0, 3, NULL);
	if (id >= 0)
		btf_set_open(btf, (uint32_t)id);
	return id;
}

int d2b_btf__add_locsec_loc(struct d2b_btf *btf, uint32_t func_id, uint32_t loc_proto_id,
			    uint32_t offset)
{
	uint32_t *w;
	int err = btf_grow_open(btf, 1u << D2B_KIND_LOCSEC, 3, &w);

	if (!err) {
		w[0] = func_id;
		w[1] = loc_proto_id;
		w[2] = offset;
	}
	return err;
}

/* ---- what a LOC_PARAM means ---- */

enum {
	F_SIGNED = D2B_LOC_PARAM_SIGNED,
	F_CONST = D2B_LOC_PARAM_CONST,
	F_ADDR = D2B_LOC_PARAM_ADDR,
	F_REG = D2B_LOC_PARAM_REG,
	F_DEREF = D2B_LOC_PARAM_DEREF,
	F_OFFSET = D2B_LOC_PARAM_OFFSET,
};

/* The vlen range a combination of flags allows, or false for one the
 * kernel does not know.  SIGNED goes with a constant or an offset only. */
static bool flags_vlen(uint32_t flags, uint32_t size, uint32_t *lo, uint32_t *hi)
{
	uint32_t base = flags & ~(uint32_t)F_SIGNED;

	if (base == F_CONST || base == (F_CONST | F_ADDR)) {
		/* a constant: one word, or two (low first) past 4 bytes */
		*lo = size > 4 ? 2 : 1;
		*hi = size > 8 ? 0 : 2;
		return true;
	}
	if (flags == F_REG) {
		*lo = 1;	/* a register, or a value in two */
		*hi = 2;
		return true;
	}
	if (flags == (F_REG | F_DEREF)) {
		*lo = *hi = 1;
		return true;
	}
	if (base == (F_REG | F_OFFSET) || base == (F_REG | F_DEREF | F_OFFSET)) {
		*lo = 2;	/* the register, an offset of one or two words */
		*hi = 3;
		return true;
	}
	return false;
}

const char *btf_loc_param_problem(const struct d2b_type *t)
{
	uint32_t vlen = d2b_vlen(t), lo, hi;

	if (!t->size || t->size > LOC_PARAM_MAX_SIZE)
		return "a size of 0 or over 16 bytes";
	if (!vlen)
		return "no value (vlen 0)";
	if (!flags_vlen(d2b_loc_param_flags(t), t->size, &lo, &hi))
		return "flags the kernel does not know";
	if (vlen < lo || vlen > hi)
		return "a vlen its flags and size do not allow";
	return NULL;
}

static const char *reg_name(uint32_t reg, char *buf, size_t len)
{
	if (reg == D2B_LOC_PARAM_FBREG)
		return "fbreg";
	snprintf(buf, len, "reg%" PRIu32, reg);
	return buf;
}

/* Words [from, from + n) (n of 1 or 2) as one number, low word first;
 * signed: sign-extended from bits bits */
static uint64_t words_value(const uint32_t *v, unsigned int n, bool is_signed, unsigned int bits)
{
	uint64_t x = v[0] | (n > 1 ? (uint64_t)v[1] << 32 : 0);

	if (is_signed && bits < 64 && (x >> (bits - 1)) & 1)
		x |= ~0ull << bits;
	return x;
}

/* "0x10", "-0x10" (a signed negative one) */
static int format_number(char *buf, size_t len, const char *sep_pos, const char *sep_neg,
			 uint64_t x, bool is_signed)
{
	if (is_signed && (int64_t)x < 0)
		return snprintf(buf, len, "%s0x%" PRIx64, sep_neg, -x);
	return snprintf(buf, len, "%s0x%" PRIx64, sep_pos, x);
}

static int format_raw(const struct d2b_type *t, char *buf, size_t len)
{
	const uint32_t *v = d2b_loc_param_values(t);
	uint32_t i, n = d2b_vlen(t) > 4 ? 4 : d2b_vlen(t);
	int w, total = snprintf(buf, len, "?");

	for (i = 0; i < n; i++) {
		w = snprintf(buf + ((size_t)total < len ? (size_t)total : len),
			     (size_t)total < len ? len - (size_t)total : 0, " 0x%" PRIx32, v[i]);
		total += w;
	}
	return total;
}

int btf_loc_param_format(const struct d2b_type *t, char *buf, size_t len)
{
	uint32_t flags = d2b_loc_param_flags(t), vlen = d2b_vlen(t);
	const uint32_t *v = d2b_loc_param_values(t);
	bool is_signed = flags & F_SIGNED;
	char r0[16], r1[16], off[32];
	const char *reg;

	if (btf_loc_param_problem(t))
		return format_raw(t, buf, len);
	if (flags & F_CONST) {
		uint64_t x = words_value(v, vlen, is_signed,
					 t->size < 8 && t->size * 8 < vlen * 32 ? t->size * 8
										: vlen * 32);

		format_number(off, sizeof(off), "", "-", x, is_signed);
		return snprintf(buf, len, "%s%s", off, flags & F_ADDR ? " (addr)" : "");
	}
	reg = reg_name(v[0], r0, sizeof(r0));
	if (flags == F_REG && vlen == 2)
		return snprintf(buf, len, "%s, %s", reg, reg_name(v[1], r1, sizeof(r1)));
	off[0] = '\0';
	if (flags & F_OFFSET)
		format_number(off, sizeof(off), " + ", " - ",
			      words_value(v + 1, vlen - 1, is_signed, (vlen - 1) * 32), is_signed);
	if (flags & F_DEREF)
		return snprintf(buf, len, "*(%s%s)", reg, off);
	return snprintf(buf, len, "%s%s", reg, off);
}
