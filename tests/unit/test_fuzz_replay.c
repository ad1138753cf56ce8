// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The libFuzzer targets of tests/fuzz without libFuzzer:
 *
 *  regression/T/FILE  every input under tests/fuzz/regressions/T/ (what the
 *		fuzzers found) goes through target T, in a child process so that
 *		a crash or a hang (REPLAY_SECONDS) is one FAIL.  One listed in
 *		tests/fuzz/regressions/known-failures is a SKIP with its reason
 *		while it fails, and a PASS that says it is listed once it passes
 *		(not a FAIL: some fail only under the sanitizers);
 *  smoke_T	a fixed-seed stream of mutations (bytes, bits, truncations) of
 *		tests/sample/sample.o, of its BTF, or of its debug sections goes
 *		through target T.
 *
 * Targets: convert, base, die_reader, btf_raw and split_file
 * (tests/fuzz/fuzz_T.c); split_file's smoke mutates the package in
 * tests/fuzz/regressions/split_file/.
 * Run it under make SANITIZE=address,undefined to catch out-of-bounds
 * reads.  The source tree is $D2B_SRC (tests/run.sh sets it), else ".".
 */
#include <dirent.h>
#include <signal.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/wait.h>

#include "test.h"

/* each target's libFuzzer entry point under its own name */
#define LLVMFuzzerTestOneInput fuzz_convert_entry
#include "../fuzz/fuzz_convert.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_base_entry
#include "../fuzz/fuzz_base.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_die_reader_entry
#include "../fuzz/fuzz_die_reader.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_btf_raw_entry
#include "../fuzz/fuzz_btf_raw.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_split_file_entry
#include "../fuzz/fuzz_split_file.c"
#undef LLVMFuzzerTestOneInput

enum {
	SMOKE_RUNS = 150,	/* mutations per target */
	MAX_KNOWN = 64,
	REPLAY_SECONDS = 10,	/* an input that runs longer hangs */
	KNOWN_SECONDS = 2,	/* ... or, for a known failure, this */
};

typedef int (*target_fn)(const uint8_t *data, size_t size);

static const struct target {
	const char *name;
	target_fn fn;
} targets[] = {
	{ "convert", fuzz_convert },
	{ "base", fuzz_base },
	{ "die_reader", fuzz_die_reader },
	{ "btf_raw", fuzz_btf_raw },
	{ "split_file", fuzz_split_file },
};

static const char *src_dir(void)
{
	const char *s = getenv("D2B_SRC");

	return s && *s ? s : ".";
}

/* Run fn over an exact-size copy of data (so ASan sees any overread). */
static int run_target(target_fn fn, const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	int r;

	if (!copy)
		return -1;
	memcpy(copy, data, size);
	r = fn(copy, size);
	free(copy);
	return r;
}

/* ---- regressions ---- */

static char known[MAX_KNOWN][600];
static char known_why[MAX_KNOWN][600];
static unsigned int nr_known;

/* tests/fuzz/regressions/known-failures: "TARGET/FILE reason" lines */
static void read_known(void)
{
	char path[4096], line[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fuzz/regressions/known-failures", src_dir());
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nr_known < MAX_KNOWN) {
		char *sp;

		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		sp = strchr(line, ' ');
		snprintf(known_why[nr_known], sizeof(known_why[0]), "%s", sp ? sp + 1 : "");
		if (sp)
			*sp = 0;
		snprintf(known[nr_known++], sizeof(known[0]), "%s", line);
	}
	fclose(f);
}

static const char *known_failure(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_known; i++)
		if (!strcmp(known[i], name))
			return known_why[i];
	return NULL;
}

/* 0: the input passes; else a wait status or -1 */
static int replay(const struct target *t, const char *path, unsigned int seconds)
{
	size_t size = 0;
	uint8_t *data = fuzz_get(path, &size);
	int status = -1;
	pid_t pid;

	if (!data)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		alarm(seconds);
		/* (the sanitizers' "exit 1" is a failure too) */
		_exit(run_target(t->fn, data, size) ? 3 : 0);
	}
	free(data);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : (status ? status : -1);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_regressions(const struct target *t)
{
	char dir[4096], path[4352], name[300], *names[1024];
	unsigned int i, n = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions/%s", src_dir(), t->name);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)) && n < 1024)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		const char *why;
		int r;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(name, sizeof(name), "%s/%s", t->name, names[i]);
		why = known_failure(name);
		r = replay(t, path, why ? KNOWN_SECONDS : REPLAY_SECONDS);
		if (!r && why) {
			/* (not a FAIL: some fail only under the sanitizers) */
			printf("PASS regression/%s: listed in tests/fuzz/regressions/"
			       "known-failures but passes: remove it there if it is fixed\n", name);
		} else if (!r) {
			printf("PASS regression/%s\n", name);
		} else if (why) {
			printf("SKIP regression/%s: known failure: %s\n", name, why);
		} else {
			printf("FAIL regression/%s: %s %d%s\n", name,
			       r > 0 && WIFSIGNALED(r) ? "signal" : "exit status",
			       r > 0 && WIFSIGNALED(r) ? WTERMSIG(r) : r > 0 ? WEXITSTATUS(r) : r,
			       r > 0 && WIFSIGNALED(r) && WTERMSIG(r) == SIGALRM ?
			       " (runs too long: a hang?)" : "");
			test_nfail++;
		}
		free(names[i]);
	}
	fflush(stdout);
}

/* ---- smoke: mutations of sample.o and what it gives ---- */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* SMOKE_RUNS mutations of seed through fn; every one must keep the invariants */
static void smoke(target_fn fn, const uint8_t *seed, size_t size)
{
	uint8_t *b = malloc(size);
	unsigned int i, k, nbad = 0;

	REQUIRE(b && size >= 16);
	CHECK_EQ(run_target(fn, seed, size), 0);
	for (i = 0; i < SMOKE_RUNS; i++) {
		size_t len = size;
		unsigned int n = 1 + rng() % 4;

		memcpy(b, seed, size);
		for (k = 0; k < n; k++) {
			uint64_t r = rng();
			size_t at = (r >> 8) % size;

			switch (r & 3) {
			case 0: b[at] ^= 1u << (r >> 40) % 8; break;
			case 1: b[at] = (uint8_t)(r >> 40); break;
			case 2: b[at] = (r >> 40) & 1 ? 0xff : 0; break;
			case 3: if (!k) len = at; break;
			}
		}
		if (run_target(fn, b, len)) {
			if (nbad++ < 5)
				printf("#   mutation %u broke an invariant\n", i);
			test_failed_now = 1;
		}
	}
	free(b);
}

static uint8_t *sample;
static size_t sample_size;

static void test_smoke_convert(void)
{
	smoke(fuzz_convert, sample, sample_size);
}

static void test_smoke_base(void)
{
	struct d2b_btf *btf = NULL;
	void *raw = NULL;
	size_t size = 0;

	REQUIRE(!d2b_convert_file(fuzz_base_object(), NULL, NULL, &btf));
	REQUIRE(!d2b_btf__encode(btf, &raw, &size));
	smoke(fuzz_base, raw, size);
	free(raw);
	d2b_btf__free(btf);
}

/* sample.o's debug sections in fuzz_die_reader.c's input form */
static void test_smoke_die_reader(void)
{
	static const char *const names[DIE_SEC_NR] = {
		".debug_info", ".debug_types", ".debug_abbrev", ".debug_str",
		".debug_line_str", ".debug_str_offsets", ".debug_addr",
	};
	Elf_Data *data[DIE_SEC_NR] = { 0 };
	uint8_t *in = NULL;
	size_t shstrndx, total = FUZZ_DIE_HEADER, at = FUZZ_DIE_HEADER;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int i;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)sample, sample_size);
	REQUIRE(elf && !elf_getshdrstrndx(elf, &shstrndx));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (i = 0; i < DIE_SEC_NR; i++)
			if (!strcmp(name, names[i]))
				data[i] = elf_getdata(scn, NULL);
	}
	for (i = 0; i < DIE_SEC_NR; i++)
		total += data[i] ? data[i]->d_size : 0;
	in = calloc(1, total);
	CHECK(in && data[0] && data[2]);
	for (i = 0; in && i < DIE_SEC_NR; i++) {
		uint32_t len = data[i] ? data[i]->d_size : 0;

		in[1 + 4 * i] = len;
		in[2 + 4 * i] = len >> 8;
		in[3 + 4 * i] = len >> 16;
		in[4 + 4 * i] = len >> 24;
		if (len)
			memcpy(in + at, data[i]->d_buf, len);
		at += len;
	}
	if (in && !test_failed_now)
		smoke(fuzz_die_reader, in, total);
	free(in);
	elf_end(elf);
}

static void test_smoke_btf_raw(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	void *raw = NULL;
	size_t size = 0;

	REQUIRE(btf && !sample_all_kinds(btf) && !d2b_btf__encode(btf, &raw, &size));
	smoke(fuzz_btf_raw, raw, size);
	free(raw);
	d2b_btf__free(btf);
}

/* a DWARF 5 package (llvm-dwp-19) */
static void test_smoke_split_file(void)
{
	char path[4096];
	uint8_t *dwp;
	size_t size;

	snprintf(path, sizeof(path), "%s/tests/fuzz/regressions/split_file/clang5.dwp",
		 src_dir());
	dwp = fuzz_get(path, &size);
	REQUIRE(dwp);
	smoke(fuzz_split_file, dwp, size);
	free(dwp);
}

int main(void)
{
	unsigned int i;

	sample = fuzz_get(fuzz_base_object(), &sample_size);
	if (!sample) {
		printf("FAIL fuzz_replay: cannot read %s (set D2B_SRC)\n", fuzz_base_object());
		return 1;
	}
	read_known();
	fuzz_path();	/* the children's input files go into our directory */
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		test_regressions(&targets[i]);
	RUN(test_smoke_convert);
	RUN(test_smoke_base);
	RUN(test_smoke_die_reader);
	RUN(test_smoke_btf_raw);
	RUN(test_smoke_split_file);
	free(sample);
	return test_done();
}
