// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What both command lines share: printing the library's diagnostics,
 * loading BTF files, job counts, and which command line argv[0] asks for.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf2btf.h"
#include "cli.h"

const char *prog = "dwarf2btf";

bool cli_is_pahole(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	size_t n;

	base = base ? base + 1 : argv0;
	n = strlen(base);
	return !strcmp(base, "pahole") || (n >= 7 && !strcmp(base + n - 7, "-pahole"));
}

/*
 * A conversion allocates and frees tables of hundreds of KiB per unit.
 * glibc maps each block over M_MMAP_THRESHOLD (128 KiB at first) on its
 * own, and every page of a new mapping costs a page fault; it raises the
 * threshold only after freeing such a block, so how many faults a run
 * takes would depend on what happened to be freed first.  Fixed
 * thresholds make it deliberate: blocks below 8 MiB come from the heap,
 * which keeps up to 16 MiB free at its top, so the tables of one unit
 * reuse the pages of the one before, for a little more peak RSS.  (Other
 * C libraries: no such knob, nothing done.)
 */
void cli_tune_malloc(void)
{
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
}

static const char *level_name(enum d2b_level level)
{
	switch (level) {
	case D2B_ERROR:
		return "error";
	case D2B_WARN:
		return "warning";
	case D2B_NOTICE:
		return "note";
	default:
		return NULL;
	}
}

void cli_print_diag(const struct d2b_diag *d, void *arg)
{
	const struct cli *cli = arg;
	const char *lvl;

	if (d->level == D2B_STATS) {
		if (cli->stats)
			fprintf(stderr, "%s: stats: %s\n", prog, d->msg);
		return;
	}
	if ((d->level == D2B_INFO && cli->verbose < 1) || (d->level == D2B_DEBUG && cli->verbose < 2))
		return;
	/* warnings are about input we could not use: shown with -v only */
	if (d->level == D2B_WARN && cli->verbose < 1)
		return;
	lvl = level_name(d->level);
	fprintf(stderr, "%s: %s: ", prog, d->file ? d->file : "?");
	if (lvl && d->level != D2B_ERROR)
		fprintf(stderr, "%s: ", lvl);
	if (d->cu && cli->verbose)
		fprintf(stderr, "%s: ", d->cu);
	if (d->die_off != UINT64_MAX && cli->verbose)
		fprintf(stderr, "DIE 0x%" PRIx64 ": ", d->die_off);
	fprintf(stderr, "%s\n", d->msg);
}

static void print_load_error(const char *path, int r, const char *err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, path, err[0] ? err : strerror(-r));
}

int cli_load_btf(const char *path, const struct d2b_btf *base, struct d2b_btf **ret)
{
	char err[512] = "";
	int r = d2b_btf__load_file(path, base, ret, err, sizeof(err));

	if (r < 0)
		print_load_error(path, r, err);
	return r;
}

void cli_cache_dir(struct cli *cli, const char *opt)
{
	const char *env = getenv("DWARF2BTF_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n = -1;

	cli->cache_dir = NULL;
	if (opt || env) {
		opt = opt ? opt : env;
		if (*opt && strcmp(opt, "none"))
			cli->cache_dir = opt;
		return;
	}
	if (xdg && *xdg == '/')
		n = snprintf(cli->cache_buf, sizeof(cli->cache_buf), "%s/dwarf2btf", xdg);
	else if (home && *home == '/')
		n = snprintf(cli->cache_buf, sizeof(cli->cache_buf), "%s/.cache/dwarf2btf", home);
	if (n > 0 && (size_t)n < sizeof(cli->cache_buf))
		cli->cache_dir = cli->cache_buf;
}

static const char *const cache_said[] = {
	[D2B_BASE_CACHE_NONE] = "not cached (the index made)",
	[D2B_BASE_CACHE_HIT] = "read from the cache",
	[D2B_BASE_CACHE_MADE] = "made and written to the cache",
	[D2B_BASE_CACHE_REMADE] = "the cache entry was damaged or out of date: made and written again",
	[D2B_BASE_CACHE_UNWRITABLE] = "made; the cache entry could not be written",
};

/* the base, with its index, and what the cache did (r >= 0) */
static int load_base(const char *path, const struct cli *cli, struct d2b_btf **ret,
		     char *err, size_t errlen)
{
	int r = d2b_btf__load_base(path, cli->cache_dir, ret, err, errlen);

	if (r >= 0 && cli->verbose && (size_t)r < sizeof(cache_said) / sizeof(cache_said[0]))
		fprintf(stderr, "%s: %s: base index %s%s%s\n", prog, path, cache_said[r],
			cli->cache_dir ? " " : "", cli->cache_dir ? cli->cache_dir : "");
	return r;
}

/* a base loaded on a thread of its own, handed over when the library asks */
struct base_loader {
	pthread_t thread;
	const char *path;
	const struct cli *cli;
	struct d2b_btf *btf;
	char err[512];
	int r;
	bool joined;
};

static void *base_loader_run(void *arg)
{
	struct base_loader *l = arg;

	l->r = load_base(l->path, l->cli, &l->btf, l->err, sizeof(l->err));
	return NULL;
}

static const struct d2b_btf *base_loader_join(void *arg)
{
	struct base_loader *l = arg;

	if (!l->joined) {
		pthread_join(l->thread, NULL);
		l->joined = true;
	}
	return l->r < 0 ? NULL : l->btf;
}

int cli_convert(const char *file, const char *base_path, const struct d2b_opts *opts,
		const struct cli *cli, struct d2b_btf **base, struct d2b_btf **btf)
{
	struct base_loader l = { .path = base_path, .cli = cli };
	struct d2b_base_later later = { .get = base_loader_join, .arg = &l };
	int r;

	*base = NULL;
	*btf = NULL;
	if (!base_path)
		return d2b_convert_file(file, NULL, opts, btf);
	/* one thread asked for (or none to be had): the base first */
	if (opts->jobs <= 1 || pthread_create(&l.thread, NULL, base_loader_run, &l)) {
		r = load_base(base_path, cli, base, l.err, sizeof(l.err));
		if (r < 0) {
			print_load_error(base_path, r, l.err);
			return r;
		}
		return d2b_convert_file(file, *base, opts, btf);
	}
	r = d2b_convert_file_later_base(file, &later, opts, btf);
	base_loader_join(&l);
	*base = l.btf;
	if (l.r < 0)
		print_load_error(base_path, l.r, l.err);
	return r;
}

int cli_parse_jobs(const char *arg, unsigned int *ret)
{
	char *end;
	long n;

	if (!arg) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		*ret = cpus > 0 ? (unsigned int)cpus : 1;
		return 0;
	}
	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || n < 1 || n > 1024)
		return -EINVAL;
	*ret = (unsigned int)n;
	return 0;
}

int cli_write_btf(const char *file, const char *output, const struct d2b_btf *btf,
		  const struct d2b_btf *base_btf)
{
	char errbuf[512] = "";
	int err;

	/* the library's message never names the file: we do, once */
	if (output)
		err = d2b_btf__write_raw(btf, output, errbuf, sizeof(errbuf));
	else
		err = d2b_elf__write_btf(file, btf, base_btf, errbuf, sizeof(errbuf));
	if (err < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, output ? output : file,
			errbuf[0] ? errbuf : strerror(-err));
	return err;
}
