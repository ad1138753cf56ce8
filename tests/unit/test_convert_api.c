// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The conversion through the public API, as a program that links the
 * library uses it: the one error channel (d2b_opts.errbuf), conversion of
 * an ELF file's bytes in memory, and independent conversions on threads of
 * their own, at once, in one process (each must give the bytes it gives
 * alone; with one base shared by two of them too).  Run it under TSan with
 *
 *	D2B_TEST_FILTER='^test_convert_api$' make SANITIZE=thread check
 *
 * The shared library itself (its symbols, pkg-config, the example) is
 * tests/libso's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gelf.h>

#include "dwarf2btf.h"
#include "test.h"

static char sample[4096];

/* One conversion: its input and options, and what it gave. */
struct job {
	const char *name;
	bool in_memory;
	const struct d2b_btf *base;
	struct d2b_opts opts;
	char errbuf[256];
	int err;
	void *bytes;
	size_t size;
};

static void *read_all(const char *path, size_t *ret_size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*ret_size = (size_t)n;
	}
	fclose(f);
	return buf;
}

static void job_run(struct job *j)
{
	struct d2b_btf *btf = NULL;
	void *data = NULL;
	size_t size = 0;

	j->opts.errbuf = j->errbuf;
	j->opts.errlen = sizeof(j->errbuf);
	free(j->bytes);
	j->bytes = NULL;
	if (j->in_memory) {
		data = read_all(sample, &size);
		j->err = data ? d2b_convert_mem(data, size, "sample.o", j->base, &j->opts, &btf) : -EIO;
		free(data);
	} else {
		j->err = d2b_convert_file(sample, j->base, &j->opts, &btf);
	}
	if (!j->err)
		j->err = d2b_btf__encode(btf, &j->bytes, &j->size);
	d2b_btf__free(btf);
}

static void *job_thread(void *arg)
{
	job_run(arg);
	return NULL;
}

/* A failed conversion leaves its message in errbuf (never the path), a
 * successful one an empty errbuf; the diagnostics see the error too. */
static int nr_error_diags;

static void count_errors(const struct d2b_diag *d, void *arg)
{
	(void)arg;
	nr_error_diags += d->level == D2B_ERROR;
}

static void test_errbuf(void)
{
	char errbuf[256] = "stale";
	char garbage[4096];
	struct d2b_opts opts = { .diag = count_errors, .errbuf = errbuf, .errlen = sizeof(errbuf) };
	struct d2b_btf *btf = NULL;
	int err;

	err = d2b_convert_file("/nonexistent/dir/file.o", NULL, &opts, &btf);
	CHECK_EQ(err, -ENOENT);
	CHECK(btf == NULL);
	CHECK_STR(errbuf, strerror(ENOENT));
	CHECK_EQ(nr_error_diags, 1);	/* and the log has it */

	memset(garbage, 0x5a, sizeof(garbage));
	memcpy(garbage, "\177ELF", 4);
	err = d2b_convert_mem(garbage, sizeof(garbage), "/some/where/garbage.o", NULL, &opts, &btf);
	CHECK(err < 0);
	CHECK(btf == NULL);
	CHECK(errbuf[0] != '\0');
	CHECK(strstr(errbuf, "garbage.o") == NULL);
	printf("#   garbage: %s\n", errbuf);

	/* nothing at all, and a few bytes */
	errbuf[0] = '\0';
	CHECK(d2b_convert_mem(NULL, 0, NULL, NULL, &opts, &btf) < 0);
	CHECK(errbuf[0] != '\0');
	errbuf[0] = '\0';
	CHECK(d2b_convert_mem(garbage, 3, NULL, NULL, &opts, &btf) < 0);
	CHECK(errbuf[0] != '\0');

	/* no buffer wanted: nothing written, and no crash */
	opts.errbuf = NULL;
	CHECK(d2b_convert_mem(garbage, 3, NULL, NULL, &opts, &btf) < 0);

	opts.errbuf = errbuf;
	err = d2b_convert_file(sample, NULL, &opts, &btf);
	CHECK_EQ(err, 0);
	CHECK_STR(errbuf, "");
	d2b_btf__free(btf);

	/* no function to get the base with: an argument error, said */
	{
		struct d2b_base_later none = { .get = NULL };

		CHECK_EQ(d2b_convert_file_later_base(sample, &none, &opts, &btf), -EINVAL);
		CHECK_STR(errbuf, "no function to get the base with");
	}
}

static const struct d2b_btf *no_base(void *arg)
{
	(void)arg;
	return NULL;
}

static void test_errbuf_no_base(void)
{
	char errbuf[256] = "stale";
	struct d2b_opts opts = { .errbuf = errbuf, .errlen = sizeof(errbuf) };
	struct d2b_base_later later = { .get = no_base };
	struct d2b_btf *btf = NULL;

	CHECK_EQ(d2b_convert_file_later_base(sample, &later, &opts, &btf), -ECANCELED);
	CHECK(btf == NULL);
	CHECK_STR(errbuf, "no base BTF to convert over");
}

/* The offset of sample's .debug_info in its bytes data, or 0. */
static size_t debug_info_at(void *data, size_t size)
{
	Elf *elf = elf_memory(data, size);
	Elf_Scn *scn = NULL;
	size_t shstrndx, off = 0;
	GElf_Shdr sh;

	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!off && (scn = elf_nextscn(elf, scn)))
			if (gelf_getshdr(scn, &sh) &&
			    !strcmp(elf_strptr(elf, shstrndx, sh.sh_name) ?: "", ".debug_info"))
				off = sh.sh_offset;
	}
	elf_end(elf);
	return off;
}

/*
 * A damaged unit's error reaches errbuf also where no diagnostics
 * callback listens (the walk keeps its errors for it): the first DIEs'
 * abbreviation codes overwritten, as tests/e2e/malformed.sh does.
 */
static void test_errbuf_damaged_unit(void)
{
	char errbuf[256] = "stale";
	struct d2b_opts opts = { .errbuf = errbuf, .errlen = sizeof(errbuf) };
	struct d2b_btf *btf = NULL;
	size_t size = 0, off;
	uint8_t *data = read_all(sample, &size);

	REQUIRE(data != NULL);
	elf_version(EV_CURRENT);
	off = debug_info_at(data, size);
	REQUIRE(off && off + 84 <= size);
	memset(data + off + 80, 0xee, 4);
	CHECK(d2b_convert_mem(data, size, "sample.o", NULL, &opts, &btf) == -EBADMSG);
	CHECK(btf == NULL);
	CHECK(strstr(errbuf, "corrupt .debug_info in compile unit ") == errbuf);
	printf("#   damaged: %s\n", errbuf);
	free(data);
}

/* The bytes of a file and of the same bytes in memory are the same. */
static void test_mem_same_bytes(void)
{
	struct job f = { .name = "file" }, m = { .name = "memory", .in_memory = true };

	job_run(&f);
	job_run(&m);
	REQUIRE(f.err == 0 && m.err == 0);
	CHECK_EQ(f.size, m.size);
	CHECK(f.size == m.size && !memcmp(f.bytes, m.bytes, f.size));
	free(f.bytes);
	free(m.bytes);
}

/*
 * d2b_opts.sz: 0 (the 1.0 struct) and D2B_OPTS_SZ give the same bytes; a
 * newer caller's larger struct is taken when its extra fields are zero, and
 * refused with a message when one is set.
 */
static void test_opts_size(void)
{
	struct {
		struct d2b_opts o;
		unsigned char newer[16];
	} big = { .o = { .sz = sizeof(big) } };
	struct job zero = { .name = "sz 0" }, full = { .name = "sz", .opts = { .sz = D2B_OPTS_SZ } };
	struct d2b_btf *btf = NULL;
	char errbuf[256] = "x";
	int err;

	job_run(&zero);
	job_run(&full);
	REQUIRE(zero.err == 0 && full.err == 0);
	CHECK(zero.size == full.size && !memcmp(zero.bytes, full.bytes, zero.size));
	big.o.errbuf = errbuf;
	big.o.errlen = sizeof(errbuf);
	err = d2b_convert_file(sample, NULL, &big.o, &btf);
	CHECK_EQ(err, 0);
	CHECK_STR(errbuf, "");
	d2b_btf__free(btf);
	btf = NULL;
	big.newer[15] = 1;
	err = d2b_convert_file(sample, NULL, &big.o, &btf);
	CHECK_EQ(err, -EINVAL);
	CHECK(btf == NULL);
	CHECK(strstr(errbuf, "does not know") != NULL);
	free(zero.bytes);
	free(full.bytes);
}

/* Run jobs[0..n) alone, one after another, then all at once on threads of
 * their own, rounds times: each gives its bytes alone every time. */
static void run_at_once(struct job *jobs, size_t n, int rounds)
{
	void *alone[8];
	size_t alone_size[8], i;
	pthread_t th[8];
	int r;

	for (i = 0; i < n; i++) {
		job_run(&jobs[i]);
		CHECK_EQ(jobs[i].err, 0);
		alone[i] = jobs[i].bytes;
		alone_size[i] = jobs[i].size;
		jobs[i].bytes = NULL;
	}
	for (r = 0; r < rounds && !test_failed_now; r++) {
		for (i = 0; i < n; i++)
			CHECK_EQ(pthread_create(&th[i], NULL, job_thread, &jobs[i]), 0);
		for (i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		for (i = 0; i < n; i++) {
			CHECK_EQ(jobs[i].err, 0);
			if (jobs[i].size != alone_size[i] ||
			    memcmp(jobs[i].bytes, alone[i], alone_size[i])) {
				printf("#   %s: round %d: not the bytes it gives alone\n",
				       jobs[i].name, r);
				test_failed_now = 1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		free(alone[i]);
		free(jobs[i].bytes);
	}
}

/* Two different conversions at once (one with threads of its own). */
static void test_threads_independent(void)
{
	struct job jobs[2] = {
		{ .name = "default" },
		{ .name = "memory, -j2, flat, no VARs", .in_memory = true,
		  .opts = { .jobs = 2, .flatten_arrays = true, .vars = D2B_VARS_NONE,
			    .funcs = D2B_FUNCS_NONE } },
	};

	run_at_once(jobs, 2, 3);
}

/* Two split conversions over one base, which both read at once. */
static void test_threads_shared_base(void)
{
	struct d2b_opts opts = { 0 };
	struct d2b_btf *base = NULL;
	struct job jobs[2];

	REQUIRE(d2b_convert_file(sample, NULL, &opts, &base) == 0);
	memset(jobs, 0, sizeof(jobs));
	jobs[0].name = "split";
	jobs[0].base = base;
	jobs[1].name = "split, in memory, -j2";
	jobs[1].base = base;
	jobs[1].in_memory = true;
	jobs[1].opts.jobs = 2;
	run_at_once(jobs, 2, 3);
	d2b_btf__free(base);
}

/*
 * Write sample's BTF (with pad more INTs after its types) to dir/base.btf
 * (path), make its cache entry in dir, and load it from there: *ret.
 */
static void cached_base(const char *dir, char *path, size_t len, int pad, struct d2b_btf **ret)
{
	struct d2b_opts opts = { 0 };
	struct d2b_btf *base = NULL;
	char name[32];
	int i;

	*ret = NULL;
	snprintf(path, len, "%s/base.btf", dir);
	REQUIRE(d2b_convert_file(sample, NULL, &opts, &base) == 0);
	for (i = 0; i < pad; i++) {
		snprintf(name, sizeof(name), "pad%d", i);
		REQUIRE(d2b_btf__add_int(base, name, 4, 0) > 0);
	}
	REQUIRE(d2b_btf__write_raw(base, path, NULL, 0) == 0);
	d2b_btf__free(base);
	base = NULL;
	CHECK_EQ(d2b_btf__load_base(path, dir, &base, NULL, 0), D2B_BASE_CACHE_MADE);
	d2b_btf__free(base);
	CHECK_EQ(d2b_btf__load_base(path, dir, ret, NULL, 0), D2B_BASE_CACHE_HIT);
}

/*
 * The same over a base that d2b_btf__load_base() loaded, from a cache entry
 * (its types, strings and index in a read-only mapping, shared by both):
 * the bytes each gives alone, and a base loaded without a cache gives.
 */
static void test_threads_cached_base(void)
{
	char dir[] = "/tmp/d2b-test-convert-api-XXXXXX", path[300], cmd[400];
	struct d2b_btf *base = NULL, *plain = NULL;
	struct job jobs[3];

	REQUIRE(mkdtemp(dir));
	cached_base(dir, path, sizeof(path), 0, &base);
	REQUIRE(base);
	REQUIRE(d2b_btf__load_file(path, NULL, &plain, NULL, 0) == 0);
	memset(jobs, 0, sizeof(jobs));
	jobs[0].name = "over the cached base";
	jobs[0].base = base;
	jobs[1].name = "over the cached base, -j2";
	jobs[1].base = base;
	jobs[1].opts.jobs = 2;
	jobs[2].name = "over the base loaded without a cache";
	jobs[2].base = plain;
	job_run(&jobs[0]);
	job_run(&jobs[2]);
	CHECK(jobs[0].size == jobs[2].size && jobs[0].bytes && jobs[2].bytes &&
	      !memcmp(jobs[0].bytes, jobs[2].bytes, jobs[0].size));
	run_at_once(jobs, 3, 2);
	d2b_btf__free(base);
	d2b_btf__free(plain);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/*
 * A cached base reads its types and strings where the merge asks for them
 * (lib/base/lazy.c).  Cut short after it was loaded, what is gone cannot be
 * read: the conversion over it must fail and say so, not write BTF made
 * without those types.
 */
static void test_cached_base_cut(void)
{
	char dir[] = "/tmp/d2b-test-convert-api-XXXXXX", path[300], cmd[400];
	char errbuf[256] = "";
	struct d2b_opts opts = { 0 };
	struct d2b_btf *base = NULL, *out = NULL;

	REQUIRE(mkdtemp(dir));
	/* types enough that the strings start blocks past the header's */
	cached_base(dir, path, sizeof(path), 2000, &base);
	REQUIRE(base);
	/* as it is, the conversion over it succeeds */
	REQUIRE(d2b_convert_file(sample, base, &opts, &out) == 0);
	d2b_btf__free(out);
	out = NULL;
	d2b_btf__free(base);
	base = NULL;
	REQUIRE(d2b_btf__load_base(path, dir, &base, NULL, 0) == D2B_BASE_CACHE_HIT);
	CHECK_EQ(truncate(path, 64), 0);
	opts.errbuf = errbuf;
	opts.errlen = sizeof(errbuf);
	CHECK(d2b_convert_file(sample, base, &opts, &out) < 0);
	CHECK(out == NULL);
	CHECK(strstr(errbuf, "base") != NULL);
	printf("#   cut base: %s\n", errbuf);
	d2b_btf__free(out);
	d2b_btf__free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	const char *src = getenv("D2B_SRC");
	struct stat st;

	snprintf(sample, sizeof(sample), "%s/tests/sample/sample.o", src ? src : ".");
	if (stat(sample, &st)) {
		printf("SKIP test_convert_api: %s not found (set D2B_SRC)\n", sample);
		return 0;
	}
	RUN(test_errbuf);
	RUN(test_errbuf_no_base);
	RUN(test_errbuf_damaged_unit);
	RUN(test_mem_same_bytes);
	RUN(test_opts_size);
	RUN(test_threads_independent);
	RUN(test_threads_shared_base);
	RUN(test_threads_cached_base);
	RUN(test_cached_base_cut);
	return test_done();
}
