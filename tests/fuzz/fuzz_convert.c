// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target for the whole conversion: ELF bytes -> d2b_convert_file() ->
 * d2b_btf__encode() -> d2b_elf__write_btf() into the same file.
 *
 * Invariants (a broken one aborts):
 *  - a failed conversion returns no BTF and reports a D2B_ERROR;
 *  - a converted BTF obeys the kernel's rules (d2b_btf__verify() finds
 *    nothing; C++ names allowed only with --cxx-names, and each input is
 *    converted both ways), and its encoding parses back and encodes to the
 *    same bytes;
 *  - written into the file, the .BTF reads back (d2b_btf__load_file()) as
 *    those bytes; a failed write leaves the file byte-identical;
 *  - with D2B_FUZZ_KERNEL=1 (and root), the running kernel loads the BTF
 *    converted with kernel names, where it is of the host's byte order and
 *    pointer size (BPF_BTF_LOAD): the verifier let nothing through that the
 *    kernel refuses.
 *
 * Build and run with `make fuzz` (every target, FUZZ_SECONDS each), or by
 * hand, after `make fuzz FUZZ_SECONDS=0` built it:
 *
 *	build/fuzz/fuzz_convert -timeout=10 build/fuzz/corpus/convert \
 *		build/fuzz/seeds/convert tests/fuzz/regressions/convert
 *
 * The seeds are the e2e fixtures compiled small (tests/fuzz/seeds.sh).
 * tests/unit/test_fuzz_replay.c replays tests/fuzz/regressions/convert/
 * and a deterministic smoke of mutations without libFuzzer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dwarf2btf.h"
#include "fuzz.h"
#include "fuzz_file.h"

/* The encoding enc must be what path's .BTF now holds. */
static int fuzz_convert_read_back(const char *path, const void *enc, size_t size)
{
	struct d2b_btf *btf = NULL;
	void *got = NULL;
	size_t got_size = 0;
	char err[256];
	int ret = -1;

	if (d2b_btf__load_file(path, NULL, &btf, err, sizeof(err))) {
		fprintf(stderr, "fuzz: the .BTF just written does not load: %s\n", err);
		return -1;
	}
	if (d2b_btf__encode(btf, &got, &got_size) || got_size != size || memcmp(got, enc, size))
		fprintf(stderr, "fuzz: the .BTF read back differs from what was written\n");
	else
		ret = 0;
	free(got);
	d2b_btf__free(btf);
	return ret;
}

/* Write btf into the file (holding data): it reads back, or the file stays. */
static int fuzz_convert_write(const char *path, const struct d2b_btf *btf, const void *enc,
			      size_t enc_size, const uint8_t *data, size_t size)
{
	uint8_t *now;
	size_t now_size = 0;
	char err[256];
	int ret = 0;

	if (!d2b_elf__write_btf(path, btf, NULL, err, sizeof(err)))
		return fuzz_convert_read_back(path, enc, enc_size);
	if (!err[0]) {
		fprintf(stderr, "fuzz: d2b_elf__write_btf failed without a message\n");
		return -1;
	}
	now = fuzz_get(path, &now_size);
	if (!now || now_size != size || memcmp(now, data, size)) {
		fprintf(stderr, "fuzz: a failed write (%s) changed the file\n", err);
		ret = -1;
	}
	free(now);
	return ret;
}

/* With D2B_FUZZ_KERNEL set: -1 if the kernel refuses the encoding enc of
 * btf (its log on stderr); 0 if it loads it, or cannot be asked about it */
static int fuzz_kernel_refuses(const struct d2b_btf *btf, const void *enc, size_t size)
{
	static char log[1 << 16];
	struct {	/* BPF_BTF_LOAD's part of union bpf_attr */
		uint64_t btf, log_buf;
		uint32_t size, log_size, log_level, log_true_size;
	} attr = {
		.btf = (uintptr_t)enc, .size = (uint32_t)size,
		.log_buf = (uintptr_t)log, .log_size = sizeof(log), .log_level = 1,
	};
	const uint16_t *magic = enc;
	int fd;

	if (!getenv("D2B_FUZZ_KERNEL") || *magic != 0xeB9F ||
	    d2b_btf__pointer_size(btf) != sizeof(void *))
		return 0;
	log[0] = 0;
	fd = (int)syscall(__NR_bpf, 18 /* BPF_BTF_LOAD */, &attr, sizeof(attr));
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EPERM || errno == EACCES || errno == ENOSYS || errno == ENOSPC)
		return 0;
	log[sizeof(log) - 1] = 0;
	fprintf(stderr, "fuzz: the kernel refuses the converted BTF: %s\n%s\n", strerror(errno),
		strlen(log) > 2000 ? log + strlen(log) - 2000 : log);
	return -1;
}

/* Returns 0, or -1 if an invariant broke (message on stderr). */
static int fuzz_convert_as(const uint8_t *data, size_t size, bool cxx_names)
{
	const char *path = fuzz_path();
	unsigned int errors = 0;
	struct d2b_opts opts = {
		.diag = fuzz_diag, .diag_arg = &errors, .cxx_names = cxx_names,
	};
	struct d2b_btf *btf = NULL;
	void *enc = NULL;
	size_t enc_size = 0;
	int err, ret = -1;

	if (!path[0] || fuzz_put(path, data, size)) {
		fprintf(stderr, "fuzz: cannot write the input file\n");
		return -1;
	}
	err = d2b_convert_file(path, NULL, &opts, &btf);
	if (err) {
		ret = fuzz_convert_refused(err, btf, errors, "conversion");
		goto out;
	}
	if (!btf) {
		fprintf(stderr, "fuzz: conversion succeeded without a BTF\n");
		goto out;
	}
	if (d2b_btf__verify(btf, cxx_names ? D2B_VERIFY_CXX_NAMES : 0, NULL, NULL)) {
		fprintf(stderr, "fuzz: converted BTF breaks the kernel's rules\n");
		goto out;
	}
	enc = fuzz_round_trip(btf, NULL, &enc_size);
	if (!enc || (!cxx_names && fuzz_kernel_refuses(btf, enc, enc_size)))
		goto out;
	ret = fuzz_convert_write(path, btf, enc, enc_size, data, size);
out:
	free(enc);
	d2b_btf__free(btf);
	return ret;
}

/* Both ways: the default (kernel names), and --cxx-names */
static int fuzz_convert(const uint8_t *data, size_t size)
{
	return fuzz_convert_as(data, size, false) || fuzz_convert_as(data, size, true) ? -1 : 0;
}

FUZZ_TARGET(fuzz_convert)
