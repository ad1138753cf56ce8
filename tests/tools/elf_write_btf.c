// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Helper for tests/elf/run.sh: write a known BTF into an ELF file with
 * d2b_elf__write_btf(), and check what a file holds.
 *
 *	elf_write_btf write FILE VARIANT [BASE_VARIANT]
 *	elf_write_btf check FILE VARIANT [BASE_VARIANT]
 *	elf_write_btf size VARIANT
 *
 * VARIANT n is a BTF built with the builder API whose size grows with n;
 * with BASE_VARIANT b it is split over base variant b, which goes to
 * .BTF.base.  "write" prints "error: <errbuf>" and exits 1 on failure.
 * "check" reads the sections back with libelf (not with the library's own
 * reader) and compares them byte for byte with the expected encoding in the
 * file's byte order; without BASE_VARIANT it also checks there is no
 * .BTF.base.  "size" prints the encoded size of .BTF for a variant.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf2btf.h"

/* Variant n: int, long, and n structs with a growing number of members. */
static struct d2b_btf *build(unsigned int n, const struct d2b_btf *base, const char *prefix)
{
	struct d2b_btf *btf = d2b_btf__new(base);
	char name[64];
	unsigned int i, m;
	int t_int, t_long, t;

	if (!btf)
		return NULL;
	snprintf(name, sizeof(name), "%sint", prefix);
	t_int = d2b_btf__add_int(btf, name, 4, D2B_INT_SIGNED);
	snprintf(name, sizeof(name), "%slong", prefix);
	t_long = d2b_btf__add_int(btf, name, 8, D2B_INT_SIGNED);
	if (t_int < 0 || t_long < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%sstruct_%u", prefix, i);
		t = d2b_btf__add_composite(btf, D2B_KIND_STRUCT, name, 8 * (i + 1));
		if (t < 0)
			goto fail;
		for (m = 0; m <= i; m++) {
			snprintf(name, sizeof(name), "m%u", m);
			if (d2b_btf__add_member(btf, name, m % 2 ? t_int : t_long, 64 * m, 0) < 0)
				goto fail;
		}
		if (d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, t) < 0)
			goto fail;
	}
	return btf;
fail:
	d2b_btf__free(btf);
	return NULL;
}

/* Encoded bytes of btf in the given byte order. */
static int encode_as(struct d2b_btf *btf, bool big, void **ret, size_t *size)
{
	d2b_btf__set_endian(btf, big ? D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE);
	return d2b_btf__encode(btf, ret, size);
}

static Elf_Data *find_section(Elf *elf, const char *want, int *count)
{
	Elf_Scn *scn = NULL;
	Elf_Data *found = NULL;
	size_t shstrndx;

	*count = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		if (sh.sh_type != SHT_PROGBITS || sh.sh_addralign != 4 ||
		    ((sh.sh_flags & SHF_ALLOC) == 0 && sh.sh_flags)) {
			printf("# %s: type %u flags %#llx align %llu\n", want, sh.sh_type,
			       (unsigned long long)sh.sh_flags, (unsigned long long)sh.sh_addralign);
			return NULL;
		}
		if (sh.sh_offset % 4)
			printf("# %s: offset %#llx is not 4-aligned\n", want,
			       (unsigned long long)sh.sh_offset);
		(*count)++;
		found = elf_rawdata(scn, NULL);
	}
	return found;
}

static int check_one(Elf *elf, const char *name, struct d2b_btf *want, bool big)
{
	void *data = NULL;
	size_t size;
	int count, err;
	Elf_Data *d = find_section(elf, name, &count);

	if (!want) {
		if (count) {
			printf("# %s is still there\n", name);
			return 1;
		}
		return 0;
	}
	if (count != 1 || !d) {
		printf("# %d %s sections (expected 1)\n", count, name);
		return 1;
	}
	err = encode_as(want, big, &data, &size);
	if (err) {
		printf("# encode: %s\n", strerror(-err));
		return 1;
	}
	err = d->d_size != size || memcmp(d->d_buf, data, size);
	if (err)
		printf("# %s differs: %zu bytes in the file, %zu expected\n", name, d->d_size, size);
	free(data);
	return err;
}

static int check(const char *path, struct d2b_btf *btf, struct d2b_btf *base)
{
	int fd = open(path, O_RDONLY), rc = 1;
	Elf *elf;
	GElf_Ehdr eh;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		printf("# %s: %s\n", path, elf_errmsg(-1));
		goto out;
	}
	rc = check_one(elf, ".BTF", btf, eh.e_ident[EI_DATA] == ELFDATA2MSB) |
	     check_one(elf, ".BTF.base", base, eh.e_ident[EI_DATA] == ELFDATA2MSB);
out:
	elf_end(elf);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	struct d2b_btf *btf = NULL, *base = NULL;
	char errbuf[512];
	int rc = 2, err;

	if (argc == 3 && !strcmp(argv[1], "size")) {
		void *data;
		size_t size;

		btf = build(atoi(argv[2]), NULL, "");
		if (!btf || encode_as(btf, false, &data, &size))
			return 1;
		printf("%zu\n", size);
		free(data);
		d2b_btf__free(btf);
		return 0;
	}
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s write|check FILE VARIANT [BASE_VARIANT]\n"
				"       %s size VARIANT\n", argv[0], argv[0]);
		return 2;
	}
	if (argc == 5) {
		base = build(atoi(argv[4]), NULL, "base_");
		if (!base)
			goto out;
	}
	btf = build(atoi(argv[3]), base, "");
	if (!btf)
		goto out;

	if (!strcmp(argv[1], "write")) {
		err = d2b_elf__write_btf(argv[2], btf, base, errbuf, sizeof(errbuf));
		if (err) {
			printf("error: %s (%s)\n", errbuf, strerror(-err));
			rc = 1;
		} else {
			rc = 0;
		}
	} else if (!strcmp(argv[1], "check")) {
		rc = check(argv[2], btf, base);
	}
out:
	d2b_btf__free(btf);
	d2b_btf__free(base);
	return rc;
}
