// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwarf2btf: the command line.  Parses options, calls the library, prints
 * its diagnostics.  Everything else lives in lib/.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>

#include "dwarf2btf.h"
#include "cli.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [OPTION]... FILE\n"
		"Convert the DWARF debug information of the ELF file FILE into BTF and\n"
		"write it into FILE as section .BTF (replacing an existing one).\n"
		"\n"
		"Output:\n"
		"  -o, --output=OUT     write raw BTF to OUT instead of into FILE (in FILE's\n"
		"                       byte order)\n"
		"  -b, --base=BASE      write split BTF over BASE (an ELF file with .BTF, or raw BTF),\n"
		"                       as for a kernel module over vmlinux\n"
		"      --dump           print the BTF of FILE (raw BTF, or an ELF file's .BTF)\n"
		"                       in the format of 'bpftool btf dump file'; with --base, FILE\n"
		"                       is split BTF over BASE\n"
		"      --compare FILE2  compare the BTF of FILE and FILE2 by meaning (not by type\n"
		"                       ID): print each difference and counts per kind; exit 0 if\n"
		"                       equal, 3 if they differ\n"
		"      --flatten-arrays write int[5][6] as int[30], as pahole does (to match a\n"
		"                       base pahole made); with --compare: the two forms are equal\n"
		"      --ignore-policy  with --compare: ignore FUNC/VAR presence and linkage,\n"
		"                       array index types and FWD-vs-definition references\n"
		"\n"
		"Conversion:\n"
		"  -j, --jobs[=N]       walk compile units on N threads (-j alone: one per CPU;\n"
		"                       without -j: one); the output does not depend on N\n"
		"      --no-decl-tags   leave out DECL_TAG (kernels before 5.16 reject it)\n"
		"      --no-type-tags   leave out TYPE_TAG (kernels before 5.17 reject it)\n"
		"      --no-funcs       leave out FUNC\n"
		"      --no-vars        leave out VAR and DATASEC\n"
		"      --no-float       encode floating-point types as INT\n"
		"      --no-enum64      encode 64-bit enums as ENUM (values truncated)\n"
		"      --layout         add a layout section (a 32-byte header; Linux 7.1+ and\n"
		"                       libbpf 1.8 read it, older kernels refuse it); never\n"
		"                       in split BTF (-b)\n"
		"      --inline-sites[=together]\n"
		"                       also write where inlined functions' parameters are at\n"
		"                       each inlined call (LOC_PARAM, LOC_PROTO, LOCSEC: the\n"
		"                       bpf tree's kinds; older kernels and libbpf refuse\n"
		"                       them), as split BTF over the BTF written: section\n"
		"                       .BTF.inline of FILE, or with -o OUT the file\n"
		"                       OUT.inline; =together: after the other types in the\n"
		"                       same BTF (as pahole --btf_features=inline writes\n"
		"                       them, for resolve_btfids --inline)\n"
		"      --no-dedup       keep every compile unit's types (debugging)\n"
		"      --no-merge-groups  merge the compile units one by one, never in\n"
		"                       groups on several threads (the output is the same)\n"
		"      --cxx-names      C++ units: names as C++ spells them ('geo::rect'), for\n"
		"                       tools; the kernel refuses such BTF.  By default only\n"
		"                       names the kernel accepts ('rect'; functions and\n"
		"                       variables by their linkage name; others anonymous or\n"
		"                       left out, -v says which)\n"
		"      --kernel-names   the default: the opposite of --cxx-names\n"
		"\n"
		"Input:\n"
		"      --debug-dir=DIR  look in DIR too (repeatable) for the files the DWARF\n"
		"                       needs: the dwz supplementary file (by build-id under\n"
		"                       DIR/.build-id, or by name), .dwo files and FILE.dwp\n"
		"      --allow-missing-debug\n"
		"                       convert what is there when such a file is missing,\n"
		"                       and say (note:) what was left out (else an error)\n"
		"      --cache-dir=DIR  with -b: keep BASE's parse and index in DIR, for\n"
		"                       the next run over the same BASE (default:\n"
		"                       $DWARF2BTF_CACHE_DIR, else $XDG_CACHE_HOME/dwarf2btf,\n"
		"                       else ~/.cache/dwarf2btf); the output is the same\n"
		"      --no-cache       with -b: no cache (as --cache-dir=none)\n"
		"\n"
		"Reporting:\n"
		"  -v, --verbose        explain what was left out and why, show warnings, and\n"
		"                       give each message its compile unit and DIE\n"
		"      --stats          print type counts, time and memory per phase\n"
		"  -h, --help           print this help\n"
		"  -V, --version        print the version\n"
		"\n"
		"Exit status: 0 on success, 1 on error (one line on stderr naming the file\n"
		"and the problem), 2 on a usage error, 3 when --compare finds differences.\n",
		prog);
}

enum {
	OPT_DUMP = 256,
	OPT_NO_DECL_TAGS,
	OPT_NO_TYPE_TAGS,
	OPT_NO_FUNCS,
	OPT_NO_VARS,
	OPT_NO_FLOAT,
	OPT_NO_ENUM64,
	OPT_LAYOUT,
	OPT_NO_DEDUP,
	OPT_NO_MERGE_GROUPS,
	OPT_KERNEL_NAMES,
	OPT_CXX_NAMES,
	OPT_STATS,
	OPT_COMPARE,
	OPT_FLATTEN,
	OPT_IGNORE_POLICY,
	OPT_DEBUG_DIR,
	OPT_ALLOW_MISSING,
	OPT_CACHE_DIR,
	OPT_NO_CACHE,
	OPT_INLINE_SITES,
};

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "base", required_argument, NULL, 'b' },
	{ "dump", no_argument, NULL, OPT_DUMP },
	{ "jobs", optional_argument, NULL, 'j' },
	{ "no-decl-tags", no_argument, NULL, OPT_NO_DECL_TAGS },
	{ "no-type-tags", no_argument, NULL, OPT_NO_TYPE_TAGS },
	{ "no-funcs", no_argument, NULL, OPT_NO_FUNCS },
	{ "no-vars", no_argument, NULL, OPT_NO_VARS },
	{ "no-float", no_argument, NULL, OPT_NO_FLOAT },
	{ "no-enum64", no_argument, NULL, OPT_NO_ENUM64 },
	{ "layout", no_argument, NULL, OPT_LAYOUT },
	{ "no-dedup", no_argument, NULL, OPT_NO_DEDUP },
	{ "no-merge-groups", no_argument, NULL, OPT_NO_MERGE_GROUPS },
	{ "kernel-names", no_argument, NULL, OPT_KERNEL_NAMES },
	{ "cxx-names", no_argument, NULL, OPT_CXX_NAMES },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "flatten-arrays", no_argument, NULL, OPT_FLATTEN },
	{ "ignore-policy", no_argument, NULL, OPT_IGNORE_POLICY },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "allow-missing-debug", no_argument, NULL, OPT_ALLOW_MISSING },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "inline-sites", optional_argument, NULL, OPT_INLINE_SITES },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int print_diff(const struct d2b_compare_diff *d, void *arg)
{
	char line[1024];

	(void)arg;
	d2b_compare_diff__format(d, line, sizeof(line));
	printf("%s\n", line);
	return 0;
}

/* The layout sections of a and b (not meaning, but what a kernel before
 * 7.1 refuses): 1 and a line saying how when they differ. */
static int compare_layouts(const struct d2b_btf *a, const struct d2b_btf *b)
{
	const struct d2b_layout *la, *lb;
	uint32_t na, nb;

	la = d2b_btf__layout(a, &na);
	lb = d2b_btf__layout(b, &nb);
	if (na == nb && (!na || !memcmp(la, lb, na * sizeof(*la))))
		return 0;
	if (!na || !nb)
		printf("layout section only in %s (%u kinds)\n", na ? "A" : "B", na ? na : nb);
	else
		printf("layout sections differ (%u kinds in A, %u in B)\n", na, nb);
	return 1;
}

/* --compare: differences, then a table of counts per kind. */
static int compare_files(const char *a_path, const char *b_path, const struct d2b_btf *base,
			 const struct d2b_compare_opts *copts)
{
	struct d2b_btf *a = NULL, *b = NULL;
	struct d2b_compare_summary sum;
	unsigned int k;
	int n, layouts, rc = 1;

	if (cli_load_btf(a_path, base, &a) < 0 || cli_load_btf(b_path, base, &b) < 0)
		goto out;
	n = d2b_btf__compare(a, b, copts, print_diff, NULL, &sum);
	if (n < 0) {
		fprintf(stderr, "%s: comparing %s and %s: %s\n", prog, a_path, b_path, strerror(-n));
		goto out;
	}
	layouts = compare_layouts(a, b);	/* (a difference: before the table) */
	printf("%-10s %8s %8s %8s %8s %8s %8s\n", "kind", "A", "B", "same", "only A", "only B",
	       "changed");
	/* (the kinds past D2B_KIND_MAX, the inline sites', are counted in [0]) */
	for (k = 0; k <= D2B_KIND_MAX; k++) {
		const struct d2b_compare_kind_stats *ks = &sum.kind[k];

		if (!ks->nr_a && !ks->nr_b)
			continue;
		printf("%-10s %8u %8u %8u %8u %8u %8u\n", k ? d2b_kind_name(k) : "LOC_*", ks->nr_a,
		       ks->nr_b, ks->same, ks->only_a, ks->only_b, ks->changed);
	}
	printf("%u differences\n", sum.nr_diffs + layouts);
	rc = n || layouts ? 3 : 0;
out:
	d2b_btf__free(a);
	d2b_btf__free(b);
	return rc;
}

/*
 * --inline-sites: btf's inline part (d2b_btf__split_inline()) as split BTF
 * over the rest: FILE's .BTF and .BTF.inline, or OUT and OUT.inline.
 */
static int write_inline_split(const char *file, const char *output, const struct d2b_btf *btf)
{
	struct d2b_btf *main_btf = NULL, *inl = NULL;
	char errbuf[512] = "", *path = NULL;
	const char *where = output ? output : file;
	int err;

	err = d2b_btf__split_inline(btf, &main_btf, &inl);
	if (err < 0) {
		fprintf(stderr, "%s: %s: cannot split the inline sites off: %s\n", prog, file,
			strerror(-err));
		return err;
	}
	if (!output) {
		err = d2b_elf__write_btf_inline(file, main_btf, inl, errbuf, sizeof(errbuf));
	} else if (asprintf(&path, "%s.inline", output) < 0) {
		path = NULL;
		err = -ENOMEM;
	} else {
		err = d2b_btf__write_raw(main_btf, output, errbuf, sizeof(errbuf));
		where = path;
		if (!err)
			err = d2b_btf__write_raw(inl, path, errbuf, sizeof(errbuf));
	}
	if (err < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, where, errbuf[0] ? errbuf : strerror(-err));
	free(path);
	d2b_btf__free(inl);
	d2b_btf__free(main_btf);
	return err;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct d2b_opts opts = { .sz = D2B_OPTS_SZ, .diag = cli_print_diag, .diag_arg = &cli };
	const char *output = NULL, *base_path = NULL, *compare = NULL, *cache_dir = NULL, *file;
	struct d2b_compare_opts copts = { 0 };
	struct d2b_btf *base = NULL, *btf = NULL;
	const char **dirs = NULL;
	bool dump = false, inline_split = false;
	int c, err, rc = 1;

	cli_tune_malloc();
	if (cli_is_pahole(argv[0]))
		return pahole_main(argc, argv);
	while ((c = getopt_long(argc, argv, "o:b:j::vhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'b':
			base_path = optarg;
			break;
		case 'j':
			if (cli_parse_jobs(optarg, &opts.jobs)) {
				fprintf(stderr, "%s: invalid job count '%s'\n", prog, optarg);
				rc = 2;
				goto out;
			}
			break;
		case OPT_DUMP:
			dump = true;
			break;
		case OPT_NO_DECL_TAGS:
			opts.skip_decl_tags = true;
			break;
		case OPT_NO_TYPE_TAGS:
			opts.skip_type_tags = true;
			break;
		case OPT_NO_FUNCS:
			opts.funcs = D2B_FUNCS_NONE;
			break;
		case OPT_NO_VARS:
			opts.vars = D2B_VARS_NONE;
			break;
		case OPT_NO_FLOAT:
			opts.no_float = true;
			break;
		case OPT_NO_ENUM64:
			opts.no_enum64 = true;
			break;
		case OPT_LAYOUT:
			opts.layout = true;
			break;
		case OPT_NO_MERGE_GROUPS:
			opts.no_merge_groups = true;
			break;
		case OPT_NO_DEDUP:
			opts.no_dedup = true;
			break;
		case OPT_KERNEL_NAMES:
			opts.cxx_names = false;
			break;
		case OPT_CXX_NAMES:
			opts.cxx_names = true;
			break;
		case OPT_STATS:
			opts.stats = cli.stats = true;
			break;
		case OPT_COMPARE:
			compare = optarg;
			break;
		case OPT_FLATTEN:
			copts.flatten_arrays = opts.flatten_arrays = true;
			break;
		case OPT_IGNORE_POLICY:
			copts.quiet_presence = 1u << D2B_KIND_FUNC | 1u << D2B_KIND_VAR |
					       1u << D2B_KIND_DATASEC;
			copts.ignore_linkage = copts.ignore_index_type = copts.fwd_as_struct = true;
			break;
		case OPT_DEBUG_DIR: {
			const char **d = realloc(dirs, (opts.nr_debug_dirs + 1) * sizeof(*d));

			if (!d) {
				fprintf(stderr, "%s: out of memory\n", prog);
				goto out;
			}
			dirs = d;
			dirs[opts.nr_debug_dirs++] = optarg;
			opts.debug_dirs = dirs;
			break;
		}
		case OPT_ALLOW_MISSING:
			opts.allow_missing_debug = true;
			break;
		case OPT_CACHE_DIR:
			cache_dir = optarg;
			break;
		case OPT_NO_CACHE:
			cache_dir = "none";
			break;
		case OPT_INLINE_SITES:
			if (optarg && strcmp(optarg, "together")) {
				fprintf(stderr, "%s: --inline-sites takes 'together' or nothing, "
					"not '%s'\n", prog, optarg);
				rc = 2;
				goto out;
			}
			opts.inline_sites = true;
			inline_split = !optarg;
			break;
		case 'v':
			cli.verbose++;
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto out;
		case 'V':
			printf("dwarf2btf %s\n", D2B_VERSION);
			rc = 0;
			goto out;
		default:
			usage(stderr);
			rc = 2;
			goto out;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", prog, optind >= argc ? "no input file" : "too many arguments");
		usage(stderr);
		rc = 2;
		goto out;
	}
	file = argv[optind];

	if (base_path && (compare || dump) && cli_load_btf(base_path, NULL, &base) < 0)
		goto out;

	if (compare) {
		rc = compare_files(file, compare, base, &copts);
		goto out;
	}

	if (dump) {
		if (cli_load_btf(file, base, &btf) < 0)
			goto out;
		err = d2b_btf__dump(btf, stdout);
		if (err < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "%s: %s: cannot print: %s\n", prog, file, strerror(err < 0 ? -err : errno));
			goto out;
		}
		rc = 0;
		goto out;
	}

	cli_cache_dir(&cli, cache_dir);
	if (cli_convert(file, base_path, &opts, &cli, &base, &btf) < 0)
		goto out;

	if (inline_split)
		err = write_inline_split(file, output, btf);
	else
		err = cli_write_btf(file, output, btf, NULL);
	if (err < 0)
		goto out;
	rc = 0;
out:
	d2b_btf__free(btf);
	d2b_btf__free(base);
	free(dirs);
	return rc;
}
