// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline-site kinds damaged, judged as the bpf tree's kernel judges
 * them.  No kernel here loads them (6.x refuses every LOC kind), so the
 * judge is the damage itself: each damage is of a kind whose verdict the
 * bpf tree's kernel/bpf/btf.c fixes (btf_loc_param_check_meta(), the
 * loc_proto and locsec checks), and d2b_btf__verify() with
 * D2B_VERIFY_LOC_KINDS must give that verdict:
 *   refused: a LOC_PARAM named, with a kind_flag, of size 0 or over 16, of
 *     flags the kernel does not know, with a vlen its flags do not allow; a
 *     LOC_PROTO with a type or a parameter that is not a LOC_PARAM; a LOCSEC
 *     with a size, no name, a site whose func is not a FUNC or whose
 *     loc_proto is not a LOC_PROTO of the FUNC's parameter count;
 *   accepted: a register, an offset, a constant or a site's offset changed
 *     (words the kernel does not judge), the sites reordered.
 * And without the flag, as every 6.x kernel: refused, whatever the damage.
 *
 *	test_verify_loc			seeds 1 to 8, 200 damaged copies each
 *	test_verify_loc -n N -s SEED	N damaged copies for SEED
 *					(tests/mutate/run.sh, per seed)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "dwarf2btf.h"
#include "test.h"

enum {
	R = D2B_LOC_PARAM_REG, D = D2B_LOC_PARAM_DEREF, O = D2B_LOC_PARAM_OFFSET,
	S = D2B_LOC_PARAM_SIGNED, C = D2B_LOC_PARAM_CONST, A = D2B_LOC_PARAM_ADDR,
	DEFAULT_COPIES = 200,
	NR_PARAMS = 8,		/* [4, 12): the LOC_PARAMs below */
	ID_INT = 1, ID_FUNC = 3, ID_P0 = 4, ID_PROTO = 12, ID_PROTO2 = 13, ID_SEC = 14,
	ID_BAR = 16,		/* int bar(int a): a FUNC of one parameter */
};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (uint32_t)((rng >> 33) % n) : 0;
}

static int add_param(struct d2b_btf *b, uint32_t size, uint32_t flags, uint32_t v0, uint32_t v1,
		     unsigned int n)
{
	const uint32_t v[2] = { v0, v1 };

	return d2b_btf__add_loc_param(b, size, flags, v, n);
}

/* int foo(int a, int b) inlined at two sites of .text, every LOC_PARAM
 * form, and a FUNC bar of one parameter: what the bpf tree's kernel loads */
static struct d2b_btf *good(void)
{
	struct d2b_btf *b = d2b_btf__new(NULL);
	int ok = 1;

	if (!b)
		return NULL;
	ok &= d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED) == ID_INT;
	ok &= d2b_btf__add_func_proto(b, ID_INT) == 2;
	ok &= !d2b_btf__add_param(b, "a", ID_INT) && !d2b_btf__add_param(b, "b", ID_INT);
	ok &= d2b_btf__add_func(b, "foo", D2B_LINKAGE_STATIC, 2) == ID_FUNC;
	ok &= add_param(b, 4, R, 5, 0, 1) == ID_P0;
	ok &= add_param(b, 16, R, 0, 1, 2) > 0;
	ok &= add_param(b, 8, R | D, 6, 0, 1) > 0;
	ok &= add_param(b, 8, R | O, 7, 8, 2) > 0;
	ok &= add_param(b, 8, R | D | O | S, D2B_LOC_PARAM_FBREG, (uint32_t)-16, 2) > 0;
	ok &= add_param(b, 8, C, 1, 2, 2) > 0;
	ok &= add_param(b, 4, C | S, (uint32_t)-3, 0, 1) > 0;
	ok &= add_param(b, 8, C | A, 0x1000, 0, 2) == ID_P0 + NR_PARAMS - 1;
	ok &= d2b_btf__add_loc_proto(b) == ID_PROTO;
	ok &= !d2b_btf__add_loc_proto_param(b, ID_P0) && !d2b_btf__add_loc_proto_param(b, 0);
	ok &= d2b_btf__add_loc_proto(b) == ID_PROTO2;
	ok &= !d2b_btf__add_loc_proto_param(b, ID_P0 + 4) &&
	      !d2b_btf__add_loc_proto_param(b, ID_P0 + 7);
	ok &= d2b_btf__add_locsec(b, "inline.text") == ID_SEC;
	ok &= !d2b_btf__add_locsec_loc(b, ID_FUNC, ID_PROTO, 64) &&
	      !d2b_btf__add_locsec_loc(b, ID_FUNC, ID_PROTO2, 128);
	ok &= d2b_btf__add_func_proto(b, ID_INT) == ID_BAR - 1;
	ok &= !d2b_btf__add_param(b, "a", ID_INT);
	ok &= d2b_btf__add_func(b, "bar", D2B_LINKAGE_STATIC, ID_BAR - 1) == ID_BAR;
	if (!ok) {
		d2b_btf__free(b);
		return NULL;
	}
	return b;
}

static uint32_t *words(struct d2b_btf *b, uint32_t id)
{
	return (uint32_t *)btf_type_mut(b, id);
}

/* A LOC_PARAM's flags the kernel refuses (none of its switch's cases) */
static uint32_t bad_flags(void)
{
	static const uint32_t f[] = { 0, S, A, D, O, R | S, R | C, R | A, D | O, C | O, R | D | S,
				      R | D | C, 0x40, 0x80000008 };

	return f[rnd(sizeof(f) / sizeof(f[0]))];
}

/* Damage b as the kind of damage k says; true if the bpf tree's kernel
 * refuses the result, false if it accepts it */
static bool damage(struct d2b_btf *b, unsigned int k)
{
	uint32_t p = ID_P0 + rnd(NR_PARAMS), *w = words(b, p), n;

	switch (k) {
	case 0:		/* a LOC_PARAM named */
		w[0] = (uint32_t)d2b_btf__add_str(b, "x");
		return true;
	case 1:		/* ...with a kind_flag */
		w[1] |= 1u << 31;
		return true;
	case 2:		/* ...of no size, or too large a one */
		w[2] = rnd(2) ? 0 : 17 + rnd(1000);
		return true;
	case 3:		/* ...of flags the kernel does not know */
		w[3] = bad_flags();
		return true;
	case 4:		/* ...with a vlen its flags do not allow (the flags
			 * changed: a vlen changed would shift the types) */
		w[3] = d2b_vlen((struct d2b_type *)w) == 1 ? R | O : R | D;
		return true;
	case 5:		/* a LOC_PROTO with a type */
		words(b, ID_PROTO)[2] = 1 + rnd(ID_SEC);
		return true;
	case 6:		/* ...with a parameter that is not a LOC_PARAM */
		n = (uint32_t[]){ ID_INT, 2, ID_FUNC, ID_PROTO, ID_SEC, ID_BAR }[rnd(6)];
		words(b, ID_PROTO2)[3 + rnd(2)] = n;
		return true;
	case 7:		/* a LOCSEC with a size, or no name */
		if (rnd(2))
			words(b, ID_SEC)[2] = 1 + rnd(64);
		else
			words(b, ID_SEC)[0] = 0;
		return true;
	case 8:		/* a site's func not a FUNC */
		n = (uint32_t[]){ 0, ID_INT, 2, ID_P0, ID_PROTO }[rnd(5)];
		words(b, ID_SEC)[3 + 3 * rnd(2)] = n;
		return true;
	case 9:		/* a site's loc_proto not a LOC_PROTO */
		n = (uint32_t[]){ 0, ID_INT, ID_FUNC, ID_P0, ID_SEC }[rnd(5)];
		words(b, ID_SEC)[4 + 3 * rnd(2)] = n;
		return true;
	case 10:	/* a site's FUNC of another parameter count than its
			 * LOC_PROTO's */
		words(b, ID_SEC)[3 + 3 * rnd(2)] = ID_BAR;
		return true;
	default:	/* words the kernel does not judge: accepted */
		switch (rnd(4)) {
		case 0:
			w[4] = rnd(32);				/* a register or value */
			break;
		case 1:
			words(b, ID_SEC)[5 + 3 * rnd(2)] = rnd(1u << 20);	/* an offset */
			break;
		case 2:	/* the sites swapped */
			n = words(b, ID_SEC)[4];
			words(b, ID_SEC)[4] = words(b, ID_SEC)[7];
			words(b, ID_SEC)[7] = n;
			break;
		default:
			words(b, ID_PROTO)[3 + rnd(2)] = rnd(2) ? 0 : ID_P0 + rnd(NR_PARAMS);
			break;
		}
		return false;
	}
}

/* One seed: copies damaged copies, each judged; the failures counted */
static int run_seed(uint64_t seed, unsigned int copies, unsigned int *refused)
{
	unsigned int i, bad = 0;
	char why[256];

	rng = seed;
	for (i = 0; i < copies; i++) {
		struct d2b_btf *b = good(), *back = NULL;
		unsigned int k = rnd(14);
		bool want_refused;
		size_t size;
		void *data;
		int n, n6;

		if (!b)
			return -ENOMEM;
		want_refused = damage(b, k);
		/* through bytes, as a kernel gets it */
		if (d2b_btf__encode(b, &data, &size) ||
		    d2b_btf__parse_raw(data, size, NULL, &back, why, sizeof(why))) {
			printf("#   seed %llu copy %u (damage %u): cannot write and read it\n",
			       (unsigned long long)seed, i, k);
			bad++;
		} else {
			n = d2b_btf__verify(back, D2B_VERIFY_LOC_KINDS, NULL, NULL);
			n6 = d2b_btf__verify(back, 0, NULL, NULL);
			if ((n > 0) != want_refused || n6 <= 0) {
				printf("#   seed %llu copy %u (damage %u): %d violations, the bpf "
				       "tree %s it; %d without the flag\n", (unsigned long long)seed,
				       i, k, n, want_refused ? "refuses" : "accepts", n6);
				bad++;
			}
			*refused += n > 0;
		}
		free(data);
		d2b_btf__free(back);
		d2b_btf__free(b);
	}
	return (int)bad;
}

static void test_good(void)
{
	struct d2b_btf *b = good();

	REQUIRE(b);
	CHECK_EQ(d2b_btf__verify(b, D2B_VERIFY_LOC_KINDS, NULL, NULL), 0);
	CHECK_EQ(d2b_btf__verify(b, 0, NULL, NULL), 11);
	d2b_btf__free(b);
}

int main(int argc, char **argv)
{
	unsigned int copies = DEFAULT_COPIES, refused = 0, s;
	uint64_t seed = 0;
	int i, bad;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			copies = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else
			return 2;
	}
	RUN(test_good);
	for (s = seed ? 0 : 1; s <= (seed ? 0 : 8); s++) {
		refused = 0;
		bad = run_seed(seed ? seed : s, copies, &refused);
		if (bad)
			printf("FAIL verify_loc/seed/%llu: %d of %u damaged copies judged otherwise "
			       "than by the bpf tree's rules\n", (unsigned long long)(seed ? seed : s),
			       bad, copies);
		else
			printf("PASS verify_loc/seed/%llu (%u damaged copies, %u refused)\n",
			       (unsigned long long)(seed ? seed : s), copies, refused);
		test_nfail += bad != 0;
	}
	return test_done();
}
