// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btfcmp: compare two BTF files by meaning (d2b_btf__compare), for the
 * corpus tests and the benchmark.  tests/corpus/run.sh builds it against
 * BUILD_DIR/libdwarf2btf.a; it does what `dwarf2btf --compare` does, with
 * every option of struct d2b_compare_opts on the command line.
 *
 *	btfcmp [OPTIONS] A B
 *	  --base-a=F, --base-b=F	A (B) is split BTF over F
 *	  --kinds=INT,PTR,...		compare only these kinds
 *	  --quiet-presence=FUNC,VAR	count "only in" of these kinds silently
 *	  --flatten-arrays --fwd-as-struct --ignore-index-type --ignore-linkage
 *	  --anon-sets --no-anon
 *	  --max=N			print at most N differences (default 50, 0: all)
 *
 * Exit status: 0 equal by meaning, 1 different, 2 error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf2btf.h"

struct printer {
	unsigned long max, printed;
};

static int print_diff(const struct d2b_compare_diff *d, void *arg)
{
	struct printer *p = arg;
	char line[2048];

	if (p->max && p->printed >= p->max)
		return 0;
	d2b_compare_diff__format(d, line, sizeof(line));
	printf("%s\n", line);
	p->printed++;
	return 0;
}

static int parse_kinds(const char *list, uint32_t *ret)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int k;

	if (!copy)
		return -ENOMEM;
	*ret = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 1; k <= D2B_KIND_LAST; k++)
			if (!strcasecmp(tok, d2b_kind_name(k)))
				break;
		if (k > D2B_KIND_LAST) {
			fprintf(stderr, "btfcmp: unknown kind '%s'\n", tok);
			free(copy);
			return -EINVAL;
		}
		*ret |= 1u << k;
	}
	free(copy);
	return 0;
}

static int load(const char *path, const char *base_path, struct d2b_btf **base,
		struct d2b_btf **ret)
{
	char err[512];
	int r;

	if (base_path) {
		r = d2b_btf__load_file(base_path, NULL, base, err, sizeof(err));
		if (r) {
			fprintf(stderr, "btfcmp: %s: %s\n", base_path, err);
			return r;
		}
	}
	r = d2b_btf__load_file(path, *base, ret, err, sizeof(err));
	if (r)
		fprintf(stderr, "btfcmp: %s: %s\n", path, err);
	return r;
}

static void print_summary(const struct d2b_compare_summary *s)
{
	unsigned int k;

	printf("%-11s %8s %8s %7s %7s %8s %8s %8s %8s %8s\n", "kind", "A", "B", "anon A",
	       "anon B", "same", "only A", "only B", "changed", "anon +A/+B");
	for (k = 0; k <= D2B_KIND_MAX; k++) {
		const struct d2b_compare_kind_stats *ks = &s->kind[k];

		if (!ks->nr_a && !ks->nr_b)
			continue;
		printf("%-11s %8u %8u %7u %7u %8u %8u %8u %8u %8u/%u\n", d2b_kind_name(k),
		       ks->nr_a, ks->nr_b, ks->anon_a, ks->anon_b, ks->same, ks->only_a,
		       ks->only_b, ks->changed, ks->anon_extra_a, ks->anon_extra_b);
	}
	printf("differences: %u\n", s->nr_diffs);
}

int main(int argc, char **argv)
{
	struct d2b_compare_opts opts = { 0 };
	struct d2b_compare_summary sum;
	struct printer pr = { .max = 50 };
	struct d2b_btf *base_a = NULL, *base_b = NULL, *a = NULL, *b = NULL;
	const char *path[2] = { NULL, NULL }, *bpath_a = NULL, *bpath_b = NULL;
	int i, n = 0, r, rc = 2;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strncmp(s, "--base-a=", 9)) {
			bpath_a = s + 9;
		} else if (!strncmp(s, "--base-b=", 9)) {
			bpath_b = s + 9;
		} else if (!strncmp(s, "--kinds=", 8)) {
			if (parse_kinds(s + 8, &opts.kinds))
				return 2;
		} else if (!strncmp(s, "--quiet-presence=", 17)) {
			if (parse_kinds(s + 17, &opts.quiet_presence))
				return 2;
		} else if (!strncmp(s, "--max=", 6)) {
			pr.max = strtoul(s + 6, NULL, 10);
		} else if (!strcmp(s, "--flatten-arrays")) {
			opts.flatten_arrays = true;
		} else if (!strcmp(s, "--fwd-as-struct")) {
			opts.fwd_as_struct = true;
		} else if (!strcmp(s, "--ignore-index-type")) {
			opts.ignore_index_type = true;
		} else if (!strcmp(s, "--ignore-linkage")) {
			opts.ignore_linkage = true;
		} else if (!strcmp(s, "--anon-sets")) {
			opts.anon_sets = true;
		} else if (!strcmp(s, "--no-anon")) {
			opts.no_anon = true;
		} else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "btfcmp: unknown option %s\n", s);
			return 2;
		} else if (n < 2) {
			path[n++] = s;
		} else {
			n++;
		}
	}
	if (n != 2) {
		fprintf(stderr, "usage: btfcmp [OPTIONS] A B (see the source)\n");
		return 2;
	}
	if (load(path[0], bpath_a, &base_a, &a) || load(path[1], bpath_b, &base_b, &b))
		goto out;
	r = d2b_btf__compare(a, b, &opts, print_diff, &pr, &sum);
	if (r < 0) {
		fprintf(stderr, "btfcmp: cannot compare %s and %s: %s\n", path[0], path[1],
			strerror(-r));
		goto out;
	}
	if (pr.max && sum.nr_diffs > pr.printed)
		printf("... (%lu differences shown)\n", pr.printed);
	print_summary(&sum);
	rc = r ? 1 : 0;
out:
	d2b_btf__free(a);
	d2b_btf__free(b);
	d2b_btf__free(base_a);
	d2b_btf__free(base_b);
	return rc;
}
