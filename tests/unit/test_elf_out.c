// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * d2b_elf__write_btf() through the API: argument errors, messages, reading
 * back with the library's own reader, byte order following the ELF file.
 * The file-level cases (toolchains, targets, damaged input, full disks)
 * are in tests/elf/run.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf2btf.h"
#include "test.h"

static char dir[] = "/tmp/d2b-elf-out.XXXXXX";
static char sample[4096];
static int have_sample;

static struct d2b_btf *make_btf(const struct d2b_btf *base, const char *sname)
{
	struct d2b_btf *btf = d2b_btf__new(base);
	int i, s;

	if (!btf)
		return NULL;
	i = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	s = d2b_btf__add_composite(btf, D2B_KIND_STRUCT, sname, 8);
	if (i < 0 || s < 0 || d2b_btf__add_member(btf, "a", i, 0, 0) < 0 ||
	    d2b_btf__add_member(btf, "b", i, 32, 0) < 0) {
		d2b_btf__free(btf);
		return NULL;
	}
	return btf;
}

/* Copy the sample object to dir/name; returns the path (static buffer). */
static const char *copy_sample(const char *name)
{
	static char path[4200];
	char buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	in = open(sample, O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		return NULL;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return NULL;
	close(in);
	close(out);
	return path;
}

static void test_bad_arguments(void)
{
	struct d2b_btf *btf = make_btf(NULL, "s"), *base = make_btf(NULL, "b");
	struct d2b_btf *other = make_btf(NULL, "o");
	char err[256];

	REQUIRE(btf && base && other);
	CHECK_EQ(d2b_elf__write_btf(NULL, btf, NULL, err, sizeof(err)), -EINVAL);
	CHECK_EQ(d2b_elf__write_btf("x", NULL, NULL, err, sizeof(err)), -EINVAL);
	CHECK_EQ(d2b_elf__write_btf("x", NULL, NULL, NULL, 0), -EINVAL);
	/* btf is not split over base */
	CHECK_EQ(d2b_elf__write_btf("x", other, base, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "does not continue the given base") != NULL);
	d2b_btf__free(btf);
	d2b_btf__free(base);
	d2b_btf__free(other);
}

static void test_messages(void)
{
	struct d2b_btf *btf = make_btf(NULL, "s");
	char err[256], small[12], path[4200];

	REQUIRE(btf);
	snprintf(path, sizeof(path), "%s/missing.o", dir);
	/* the message never names the file: the caller does (dwarf2btf.h) */
	CHECK_EQ(d2b_elf__write_btf(path, btf, NULL, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "missing.o") == NULL);
	CHECK(strstr(err, "No such file") != NULL);
	CHECK_EQ(d2b_elf__write_btf(dir, btf, NULL, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not a regular file") != NULL);
	CHECK(strstr(err, dir) == NULL);
	/* a short buffer is cut, not overrun */
	memset(small, 'x', sizeof(small));
	CHECK_EQ(d2b_elf__write_btf(path, btf, NULL, small, sizeof(small)), -ENOENT);
	CHECK_EQ(strlen(small), sizeof(small) - 1);
	d2b_btf__free(btf);
}

static void test_read_back(void)
{
	struct d2b_btf *base = make_btf(NULL, "base_s"), *btf, *back = NULL;
	const char *path;
	char err[256];

	if (!have_sample)
		return;
	REQUIRE(base);
	btf = make_btf(base, "split_s");
	REQUIRE(btf);
	path = copy_sample("rb.o");
	REQUIRE(path);
	CHECK_EQ(d2b_elf__write_btf(path, btf, NULL, err, sizeof(err)), 0);
	/* split BTF reads back over the same base */
	CHECK_EQ(d2b_btf__load_file(path, base, &back, err, sizeof(err)), 0);
	if (back) {
		CHECK_EQ(d2b_btf__start_id(back), d2b_btf__start_id(btf));
		CHECK_EQ(d2b_btf__end_id(back), d2b_btf__end_id(btf));
		CHECK_STR(d2b_btf__name(back, d2b_btf__start_id(back) + 1), "split_s");
		CHECK_EQ(d2b_btf__compare(btf, back, NULL, NULL, NULL, NULL), 0);
	}
	/* and with .BTF.base */
	CHECK_EQ(d2b_elf__write_btf(path, btf, base, err, sizeof(err)), 0);
	d2b_btf__free(back);
	back = NULL;
	CHECK_EQ(d2b_btf__load_file(path, base, &back, err, sizeof(err)), 0);
	CHECK(back && d2b_btf__compare(btf, back, NULL, NULL, NULL, NULL) == 0);
	d2b_btf__free(back);
	d2b_btf__free(btf);
	d2b_btf__free(base);
}

/* The section's first bytes, read with libelf. */
static int section_magic(const char *path, const char *want, unsigned char ret[2])
{
	int fd = open(path, O_RDONLY), rc = -1;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			break;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		d = elf_rawdata(scn, NULL);
		if (d && d->d_size >= 2) {
			memcpy(ret, d->d_buf, 2);
			rc = 0;
		}
		break;
	}
out:
	elf_end(elf);
	close(fd);
	return rc;
}

static void test_byte_order_follows_elf(void)
{
	struct d2b_btf *btf = make_btf(NULL, "s"), *back = NULL;
	unsigned char magic[2] = { 0 };
	const char *path;
	char err[256];
	bool elf_big;
	int fd;
	unsigned char ident[EI_NIDENT];

	if (!have_sample)
		return;
	REQUIRE(btf);
	path = copy_sample("order.o");
	REQUIRE(path);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0 && read(fd, ident, sizeof(ident)) == (ssize_t)sizeof(ident));
	close(fd);
	elf_big = ident[EI_DATA] == ELFDATA2MSB;

	/* BTF in the other byte order still lands in the file's order */
	d2b_btf__set_endian(btf, elf_big ? D2B_ENDIAN_LITTLE : D2B_ENDIAN_BIG);
	CHECK_EQ(d2b_elf__write_btf(path, btf, NULL, err, sizeof(err)), 0);
	CHECK_EQ(section_magic(path, ".BTF", magic), 0);
	CHECK_EQ(magic[0], elf_big ? 0xeb : 0x9f);
	CHECK_EQ(magic[1], elf_big ? 0x9f : 0xeb);
	CHECK_EQ(d2b_btf__load_file(path, NULL, &back, err, sizeof(err)), 0);
	CHECK(back && d2b_btf__compare(btf, back, NULL, NULL, NULL, NULL) == 0);
	d2b_btf__free(back);
	d2b_btf__free(btf);
}

int main(void)
{
	const char *src = getenv("D2B_SRC");
	struct stat st;

	if (!mkdtemp(dir)) {
		printf("FAIL setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(sample, sizeof(sample), "%s/tests/sample/sample.o", src ? src : ".");
	have_sample = !stat(sample, &st);

	RUN(test_bad_arguments);
	RUN(test_messages);
	if (have_sample) {
		RUN(test_read_back);
		RUN(test_byte_order_follows_elf);
	} else {
		printf("SKIP test_read_back: %s not found (set D2B_SRC)\n", sample);
		printf("SKIP test_byte_order_follows_elf: %s not found (set D2B_SRC)\n", sample);
	}

	snprintf(sample, sizeof(sample), "rm -rf '%s'", dir);
	if (system(sample))
		printf("# could not remove %s\n", dir);
	return test_done();
}
