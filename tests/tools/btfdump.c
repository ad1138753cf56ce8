// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btfdump: the golden test's helper.
 *
 *	btfdump [-B BASE] FILE		print FILE's types like bpftool btf dump
 *	btfdump [-B BASE] -o OUT FILE	parse FILE and write it back as raw BTF
 *	btfdump --samples DIR		write builder-made sample blobs into DIR:
 *					all.btf, all-swapped.btf (other byte
 *					order), base.btf, split.btf (over base),
 *					split-nostr.btf (over base), loc.btf
 *					(the bpf tree's inline sites),
 *					split-loc.btf (over loc.btf)
 *
 * FILE and BASE are raw BTF or ELF files with a .BTF section.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf2btf.h"
#include "btf_samples.h"

static int write_sample(const char *dir, const char *name, struct d2b_btf *btf,
			int (*build)(struct d2b_btf *), enum d2b_endian endian)
{
	char path[4096];
	int err;

	if (!btf)
		return -ENOMEM;
	err = build(btf);
	if (err) {
		fprintf(stderr, "btfdump: building %s: %s\n", name, strerror(-err));
		return err;
	}
	d2b_btf__set_endian(btf, endian);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = d2b_btf__write_raw(btf, path, NULL, 0);
	if (err)
		fprintf(stderr, "btfdump: writing %s: %s\n", path, strerror(-err));
	return err;
}

static int make_samples(const char *dir)
{
	enum d2b_endian other = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE;
	struct d2b_btf *all = d2b_btf__new(NULL), *swapped = d2b_btf__new(NULL);
	struct d2b_btf *base = d2b_btf__new(NULL), *split = NULL, *nostr = NULL;
	struct d2b_btf *loc = d2b_btf__new(NULL), *split_loc = NULL;
	int err;

	err = write_sample(dir, "all.btf", all, sample_all_kinds, D2B_ENDIAN_NATIVE);
	if (!err)
		err = write_sample(dir, "all-swapped.btf", swapped, sample_all_kinds, other);
	if (!err)
		err = write_sample(dir, "base.btf", base, sample_base, D2B_ENDIAN_NATIVE);
	if (!err) {
		split = d2b_btf__new(base);
		err = write_sample(dir, "split.btf", split, sample_split, D2B_ENDIAN_NATIVE);
	}
	if (!err) {
		nostr = d2b_btf__new(base);
		err = write_sample(dir, "split-nostr.btf", nostr, sample_split_nostr,
				   D2B_ENDIAN_NATIVE);
	}
	if (!err)
		err = write_sample(dir, "loc.btf", loc, sample_loc, D2B_ENDIAN_NATIVE);
	if (!err) {
		split_loc = d2b_btf__new(loc);
		err = write_sample(dir, "split-loc.btf", split_loc, sample_split_loc,
				   D2B_ENDIAN_NATIVE);
	}
	d2b_btf__free(split_loc);
	d2b_btf__free(loc);
	d2b_btf__free(nostr);
	d2b_btf__free(split);
	d2b_btf__free(base);
	d2b_btf__free(swapped);
	d2b_btf__free(all);
	return err ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: btfdump [-B BASE] [-o OUT] FILE | btfdump --samples DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *base_path = NULL, *out = NULL, *file = NULL;
	struct d2b_btf *base = NULL, *btf = NULL;
	char err_msg[512];
	int i, err, ret = 1;

	if (argc == 3 && !strcmp(argv[1], "--samples"))
		return make_samples(argv[2]);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-B") && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] == '-' || file)
			usage();
		else
			file = argv[i];
	}
	if (!file)
		usage();
	if (base_path) {
		err = d2b_btf__load_file(base_path, NULL, &base, err_msg, sizeof(err_msg));
		if (err) {
			fprintf(stderr, "btfdump: %s: %s\n", base_path, err_msg);
			goto out;
		}
	}
	err = d2b_btf__load_file(file, base, &btf, err_msg, sizeof(err_msg));
	if (err) {
		fprintf(stderr, "btfdump: %s: %s\n", file, err_msg);
		goto out;
	}
	if (out) {
		err = d2b_btf__write_raw(btf, out, NULL, 0);
		if (err) {
			fprintf(stderr, "btfdump: writing %s: %s\n", out, strerror(-err));
			goto out;
		}
	} else {
		err = d2b_btf__dump(btf, stdout);
		if (err) {
			fprintf(stderr, "btfdump: dump failed: %s\n", strerror(-err));
			goto out;
		}
	}
	ret = 0;
out:
	d2b_btf__free(btf);
	d2b_btf__free(base);
	return ret;
}
