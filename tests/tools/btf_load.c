// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btf_load: ask the running kernel whether it accepts a BTF blob.
 *
 *	btf_load FILE [--base BASE] [-q]
 *
 * FILE is raw BTF or an ELF file with a .BTF section; with --base, FILE is
 * split BTF over BASE (raw or ELF).  BPF_BTF_LOAD is the strictest BTF
 * validator there is (it runs the resolve phase that boot-time vmlinux
 * parsing skips), so the end-to-end tests feed every converted file to it.
 *
 * The bytes loaded are exactly the bytes in the file, not a re-encoding:
 * a converter bug in the header or section layout must not be hidden by a
 * reader that normalises it.  The syscall takes no base BTF, so split BTF
 * is merged with its base first: split type IDs and string offsets already
 * continue after the base's, so the merge is a concatenation of the type
 * sections and of the string sections under one new header.
 *
 * Exit: 0 accepted; 1 rejected or unreadable (the reason and the kernel
 * log's tail go to stderr); 2 cannot test here (no bpf syscall, not
 * privileged, foreign byte order): callers SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf2btf.h"
#include "bpf_btf_load.h"

enum {
	EXIT_ACCEPTED = 0,
	EXIT_REJECTED = 1,
	EXIT_CANNOT_TEST = 2,
	LOG_SIZE = 16 << 20,
	LOG_TAIL_LINES = 25,
	MAX_INPUT = 256 << 20,
};

struct blob {
	uint8_t *data;
	size_t size;
};

static const char *prog = "btf_load";

static int read_file(const char *path, struct blob *ret)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	if (st.st_size > MAX_INPUT) {
		err = -EFBIG;
		goto out;
	}
	ret->size = (size_t)st.st_size;
	ret->data = malloc(ret->size ? ret->size : 1);
	if (!ret->data) {
		err = -ENOMEM;
		goto out;
	}
	while (got < ret->size) {
		n = read(fd, ret->data + got, ret->size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			goto out;
		}
		got += (size_t)n;
	}
out:
	close(fd);
	return err;
}

/* Replace an ELF file's bytes by a copy of its .BTF section's. */
static int elf_extract_btf(struct blob *b, const char **why)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err = -ENOENT;

	*why = "no .BTF section";
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)b->data, b->size);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		*why = "malformed ELF";
		err = -EINVAL;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		uint8_t *copy;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF"))
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			*why = ".BTF is SHT_NOBITS";
			err = -EINVAL;
			goto out;
		}
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf) {
			*why = "cannot read .BTF";
			err = -EINVAL;
			goto out;
		}
		copy = malloc(d->d_size ? d->d_size : 1);
		if (!copy) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(copy, d->d_buf, d->d_size);
		b->size = d->d_size;	/* before elf_end(), which frees d */
		elf_end(elf);
		free(b->data);
		b->data = copy;
		return 0;
	}
out:
	elf_end(elf);
	return err;
}

static bool is_elf(const struct blob *b)
{
	return b->size >= 4 && !memcmp(b->data, "\177ELF", 4);
}

/*
 * Read FILE's BTF bytes.  Returns 0, or an exit code with the reason
 * printed.
 */
static int load_blob(const char *path, struct blob *b)
{
	const char *why;
	int err;

	err = read_file(path, b);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(-err));
		return EXIT_REJECTED;
	}
	if (is_elf(b) && elf_extract_btf(b, &why)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		return EXIT_REJECTED;
	}
	if (b->size >= 2 && b->data[0] == 0xeb && b->data[1] == 0x9f &&
	    *(uint16_t *)b->data != D2B_BTF_MAGIC) {
		fprintf(stderr, "%s: %s: BTF in the other byte order: the kernel cannot load it here\n",
			prog, path);
		return EXIT_CANNOT_TEST;
	}
	return 0;
}

/* Bounds of a blob's sections, checked just enough to copy them safely;
 * everything else is the kernel's to judge. */
static int blob_sections(const struct blob *b, const struct d2b_header **hdr, const char *path)
{
	const struct d2b_header *h = (const void *)b->data;

	if (b->size < sizeof(*h) || h->magic != D2B_BTF_MAGIC || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > b->size ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > b->size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > b->size) {
		fprintf(stderr, "%s: %s: not a well-formed BTF header (cannot merge with the base)\n",
			prog, path);
		return -EINVAL;
	}
	*hdr = h;
	return 0;
}

/* One blob with base's types and strings followed by split's. */
static int merge_split(const struct blob *base, const struct blob *split, struct blob *ret,
		       const char *base_path, const char *split_path)
{
	const struct d2b_header *bh, *sh;
	struct d2b_header h = {
		.magic = D2B_BTF_MAGIC,
		.version = D2B_BTF_VERSION,
		.hdr_len = sizeof(h),
	};
	uint8_t *p;

	if (blob_sections(base, &bh, base_path) || blob_sections(split, &sh, split_path))
		return -EINVAL;
	h.type_len = bh->type_len + sh->type_len;
	h.str_off = h.type_len;
	h.str_len = bh->str_len + sh->str_len;
	ret->size = sizeof(h) + (size_t)h.type_len + h.str_len;
	ret->data = p = malloc(ret->size);
	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, base->data + bh->hdr_len + bh->type_off, bh->type_len);
	p += bh->type_len;
	memcpy(p, split->data + sh->hdr_len + sh->type_off, sh->type_len);
	p += sh->type_len;
	memcpy(p, base->data + bh->hdr_len + bh->str_off, bh->str_len);
	p += bh->str_len;
	memcpy(p, split->data + sh->hdr_len + sh->str_off, sh->str_len);
	return 0;
}

static void print_log_tail(const char *log)
{
	const char *p = log + strlen(log);
	int lines = 0;

	while (p > log && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	while (p > log && lines <= LOG_TAIL_LINES) {
		p--;
		if (*p == '\n')
			lines++;
	}
	if (*p == '\n')
		p++;
	if (p != log)
		fprintf(stderr, "  ...\n");
	fprintf(stderr, "%s%s", p, *p && log[strlen(log) - 1] != '\n' ? "\n" : "");
}

static int kernel_check(const struct blob *b, const char *what)
{
	char *log = NULL;
	int fd, err, ret = EXIT_REJECTED;

	fd = bpf_btf_load(b->data, b->size, NULL, 0, 0);
	if (fd >= 0) {
		close(fd);
		printf("%s: %s: accepted by the kernel (%zu bytes)\n", prog, what, b->size);
		return EXIT_ACCEPTED;
	}
	err = errno;
	if (err == ENOSYS || err == EPERM || err == EACCES) {
		fprintf(stderr, "%s: %s: cannot test: bpf(BPF_BTF_LOAD): %s%s\n", prog, what,
			strerror(err), err == ENOSYS ? "" : " (needs root or CAP_BPF)");
		return EXIT_CANNOT_TEST;
	}
	fprintf(stderr, "%s: %s: rejected by the kernel: %s\n", prog, what, strerror(err));
	log = calloc(1, LOG_SIZE);
	if (!log)
		return EXIT_REJECTED;
	fd = bpf_btf_load(b->data, b->size, log, LOG_SIZE, 1);
	if (fd >= 0) {
		/* accepted with a log buffer, refused without: report, still a failure */
		close(fd);
		fprintf(stderr, "%s: %s: (accepted on the retry with a log: flaky?)\n", prog, what);
	} else if (log[0]) {
		fprintf(stderr, "kernel log (tail):\n");
		print_log_tail(log);
	}
	free(log);
	return ret;
}

static void usage(void)
{
	fprintf(stderr, "usage: %s FILE [--base BASE]\n"
		"  load FILE's BTF (raw, or an ELF's .BTF) with bpf(BPF_BTF_LOAD)\n"
		"  exit 0 accepted, 1 rejected, 2 cannot test here\n", prog);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *base_path = NULL;
	struct blob b = {0}, base = {0}, merged = {0};
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--base") && i + 1 < argc) {
			base_path = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage();
			return 0;
		} else if (argv[i][0] == '-' || path) {
			usage();
			return EXIT_REJECTED;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		usage();
		return EXIT_REJECTED;
	}

	ret = load_blob(path, &b);
	if (ret)
		goto out;
	if (base_path) {
		ret = load_blob(base_path, &base);
		if (ret)
			goto out;
		if (merge_split(&base, &b, &merged, base_path, path)) {
			ret = EXIT_REJECTED;
			goto out;
		}
		ret = kernel_check(&merged, path);
	} else {
		ret = kernel_check(&b, path);
	}
out:
	free(b.data);
	free(base.data);
	free(merged.data);
	return ret;
}
