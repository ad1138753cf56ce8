// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libdwarf2btf in a program of its own: convert an ELF file's DWARF into
 * BTF in process, count its types by walking them, and write its bytes.
 *
 *	cc -o convert convert.c $(pkg-config --cflags --libs dwarf2btf)
 *	./convert [-j JOBS] [-b BASE] [-m] FILE OUT.btf
 *
 * -b: split BTF over BASE (a raw BTF file, or an ELF file's .BTF: vmlinux
 * for a module); -m: read FILE into memory first and convert the bytes
 * (d2b_convert_mem()), as a tool that holds a program's image would.  OUT
 * gets what `dwarf2btf -o OUT [-b BASE] FILE` writes, byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf2btf.h>

/* Warnings and notes, as they come: the errors are in opts.errbuf. */
static void print_diag(const struct d2b_diag *d, void *arg)
{
	(void)arg;
	if (d->level == D2B_WARN || d->level == D2B_NOTICE)
		fprintf(stderr, "convert: %s: %s\n", d->file ? d->file : "?", d->msg);
}

/* All of path's bytes, in a malloc()ed buffer. */
static void *read_file(const char *path, size_t *ret_size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t size = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (size == cap) {
			char *p = realloc(buf, cap = cap ? 2 * cap : 1 << 20);

			if (!p) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
	} while (n);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	fclose(f);
	*ret_size = size;
	return buf;
}

static int write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, size, f) == size;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	char errbuf[512];
	struct d2b_opts opts = { .sz = D2B_OPTS_SZ, .diag = print_diag, .errbuf = errbuf, .errlen = sizeof(errbuf) };
	struct d2b_btf *base = NULL, *btf = NULL;
	unsigned int counts[D2B_KIND_LAST + 1] = { 0 };
	const char *base_path = NULL, *in, *out;
	void *data = NULL, *enc = NULL;
	size_t size = 0, enc_size = 0;
	int c, err, in_memory = 0, rc = 1;
	uint32_t id;

	while ((c = getopt(argc, argv, "j:b:m")) != -1) {
		switch (c) {
		case 'j': opts.jobs = (unsigned int)atoi(optarg); break;
		case 'b': base_path = optarg; break;
		case 'm': in_memory = 1; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	in = argv[optind];
	out = argv[optind + 1];

	/* every failing call: a negative errno, and its message in errbuf */
	if (base_path && d2b_btf__load_file(base_path, NULL, &base, errbuf, sizeof(errbuf)) < 0) {
		fprintf(stderr, "convert: %s: %s\n", base_path, errbuf);
		return 1;
	}
	if (in_memory) {
		data = read_file(in, &size);
		if (!data) {
			fprintf(stderr, "convert: %s: %s\n", in, strerror(errno));
			goto out;
		}
		err = d2b_convert_mem(data, size, in, base, &opts, &btf);
		free(data);	/* copied: no longer needed */
	} else {
		err = d2b_convert_file(in, base, &opts, &btf);
	}
	if (err < 0) {
		fprintf(stderr, "convert: %s: %s\n", in, errbuf);
		goto out;
	}

	/* walk the types: a split BTF's own are [start_id, end_id) */
	for (id = d2b_btf__start_id(btf); id < d2b_btf__end_id(btf); id++)
		counts[d2b_kind(d2b_btf__type(btf, id))]++;
	printf("%s: %u types", in, d2b_btf__nr_types(btf));
	for (c = 1; c <= D2B_KIND_LAST; c++) {
		if (counts[c])
			printf(", %u %s", counts[c], d2b_kind_name((unsigned int)c));
	}
	printf("\n");

	/* the bytes: header, types, strings, in the target's byte order */
	err = d2b_btf__encode(btf, &enc, &enc_size);
	if (err < 0) {
		fprintf(stderr, "convert: %s: %s\n", in, strerror(-err));
		goto out;
	}
	if (write_file(out, enc, enc_size)) {
		fprintf(stderr, "convert: %s: %s\n", out, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(enc);
	d2b_btf__free(btf);	/* before its base */
	d2b_btf__free(base);
	return rc;
usage:
	fprintf(stderr, "usage: %s [-j JOBS] [-b BASE] [-m] FILE OUT.btf\n", argv[0]);
	return 2;
}
