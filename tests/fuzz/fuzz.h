/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one body of every fuzz target (tests/fuzz/fuzz_*.c): the target's
 * check returns 0, or -1 after a message on stderr where an invariant
 * broke; FUZZ_TARGET(check) makes it libFuzzer's entry, which aborts on -1
 * so that libFuzzer keeps the input.  tests/unit/test_fuzz_replay.c and
 * test_btf_fuzz_smoke.c include the targets, renaming the entry.
 *
 * And the checks of a refusal, which the targets make alike: a call that
 * failed must leave nothing behind and say why.
 */
#ifndef D2B_FUZZ_H
#define D2B_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dwarf2btf.h"

#define FUZZ_TARGET(check)						\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);	\
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)	\
	{								\
		if (check(data, size))					\
			abort();					\
		return 0;						\
	}

/* A parse (what) that failed left no BTF and a reason in err: 0, else -1
 * after a message. */
static inline int fuzz_parse_refused(const struct d2b_btf *btf, const char *err, const char *what)
{
	if (!btf && err[0])
		return 0;
	fprintf(stderr, "fuzz: failed %s left %s\n", what, btf ? "a btf" : "no reason");
	return -1;
}

/* A conversion (what) that failed with r left no BTF, a negative errno and
 * an error diagnostic (errors, as fuzz_diag() counts them): 0, else -1
 * after a message. */
static inline int fuzz_convert_refused(int r, const struct d2b_btf *btf, unsigned int errors,
				       const char *what)
{
	if (r < 0 && !btf && errors)
		return 0;
	fprintf(stderr, "fuzz: failed %s (%d) left %s\n", what, r,
		btf ? "a BTF" : r > 0 ? "a positive error" : "no error message");
	return -1;
}

#endif
