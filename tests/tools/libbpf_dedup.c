// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbpf_dedup: the reference our dedup is measured against.
 *
 *	libbpf_dedup [--no-dedup] IN [OUT]
 *
 * Reads BTF (raw, or an ELF file's .BTF) with libbpf, runs libbpf's
 * btf__dedup() on it (unless --no-dedup) and prints the number of types
 * per kind, one "KIND count" line each, in kind order, then "total N".
 * OUT, if given, receives the result as raw BTF.  Exit 0 on success, 1 on
 * an error, 2 on a usage error.
 *
 * tests/dedup/run.sh converts a file with dwarf2btf --no-dedup (every unit's
 * types, as pahole hands them to libbpf) and compares this tool's counts of
 * libbpf's dedup with dwarf2btf's own dedup.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

static const char *const kind_names[] = {
	"UNKN", "INT", "PTR", "ARRAY", "STRUCT", "UNION", "ENUM", "FWD", "TYPEDEF",
	"VOLATILE", "CONST", "RESTRICT", "FUNC", "FUNC_PROTO", "VAR", "DATASEC",
	"FLOAT", "DECL_TAG", "TYPE_TAG", "ENUM64",
};

enum { NR_KINDS = sizeof(kind_names) / sizeof(kind_names[0]) };

static int write_raw(const struct btf *btf, const char *path)
{
	__u32 size;
	const void *data = btf__raw_data(btf, &size);
	FILE *f;
	int ok;

	if (!data)
		return -ENOMEM;
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	ok = fwrite(data, 1, size, f) == size;
	ok &= fclose(f) == 0;
	return ok ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	unsigned long counts[NR_KINDS] = { 0 };
	const char *in, *out = NULL;
	bool dedup = true;
	struct btf *btf;
	uint32_t id, n;
	int i = 1, err;

	if (i < argc && strcmp(argv[i], "--no-dedup") == 0) {
		dedup = false;
		i++;
	}
	if (argc - i < 1 || argc - i > 2) {
		fprintf(stderr, "usage: %s [--no-dedup] IN [OUT]\n", argv[0]);
		return 2;
	}
	in = argv[i];
	if (argc - i == 2)
		out = argv[i + 1];
	btf = btf__parse(in, NULL);
	if (!btf) {
		fprintf(stderr, "libbpf_dedup: %s: %s\n", in, strerror(errno));
		return 1;
	}
	err = dedup ? btf__dedup(btf, NULL) : 0;
	if (err) {
		fprintf(stderr, "libbpf_dedup: %s: btf__dedup: %s\n", in, strerror(-err));
		btf__free(btf);
		return 1;
	}
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		unsigned int k = btf_kind(btf__type_by_id(btf, id));

		counts[k < NR_KINDS ? k : 0]++;
	}
	for (i = 1; i < NR_KINDS; i++) {
		if (counts[i])
			printf("%s %lu\n", kind_names[i], counts[i]);
	}
	printf("total %u\n", n - 1);
	if (out) {
		err = write_raw(btf, out);
		if (err) {
			fprintf(stderr, "libbpf_dedup: %s: %s\n", out, strerror(-err));
			btf__free(btf);
			return 1;
		}
	}
	btf__free(btf);
	return 0;
}
