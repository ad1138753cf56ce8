/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the fuzz targets that read files share: the input bytes go into a
 * file of a private directory (on /dev/shm when there is one), since the
 * library reads paths, and the writer needs a real directory to put its
 * temporary file in.  The directory is private so that what the file names
 * (.gnu_debuglink) can find nothing but itself; debuginfod is switched
 * off.  The directory is removed at exit (not after a crash: then look for
 * d2b-fuzz.* in /dev/shm or $TMPDIR).
 */
#ifndef D2B_FUZZ_FILE_H
#define D2B_FUZZ_FILE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf2btf.h"

static char fuzz_dir[64];

static inline void fuzz_dir_remove(void)
{
	DIR *d = opendir(fuzz_dir);
	struct dirent *e;

	/* the input, and a temporary file a killed writer left */
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(fuzz_dir);
}

/* The path of the private input file ("" if there is none). */
static inline const char *fuzz_path(void)
{
	static char path[96];

	if (!fuzz_dir[0]) {
		const char *tmp = access("/dev/shm", W_OK) ? getenv("TMPDIR") : "/dev/shm";

		unsetenv("DEBUGINFOD_URLS");
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/d2b-fuzz.XXXXXX", tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			fuzz_dir[0] = 0;
			return "";
		}
		atexit(fuzz_dir_remove);
		snprintf(path, sizeof(path), "%s/in", fuzz_dir);
	}
	return path;
}

/* Write data to path, replacing what was there: 0 or -1. */
static inline int fuzz_put(const char *path, const void *data, size_t size)
{
	const uint8_t *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		size -= n;
	}
	return close(fd) ? -1 : 0;
}

/* The whole of a file, malloc()ed (NULL if it cannot be read). */
static inline uint8_t *fuzz_get(const char *path, size_t *ret_size)
{
	struct stat st;
	uint8_t *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size >= 0) {
		buf = malloc(st.st_size ? st.st_size : 1);
		if (buf && pread(fd, buf, st.st_size, 0) != st.st_size) {
			free(buf);
			buf = NULL;
		}
		*ret_size = st.st_size;
	}
	close(fd);
	return buf;
}

/* d2b_diag_fn: count the errors; FUZZ_VERBOSE=1 prints every message. */
static inline void fuzz_diag(const struct d2b_diag *d, void *arg)
{
	static int verbose = -1;

	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	if (verbose)
		fprintf(stderr, "fuzz: diag %d: %s\n", d->level, d->msg);
	if (d->level == D2B_ERROR)
		++*(unsigned int *)arg;
}

/* Encode btf, parse the bytes back over base, encode again: the same bytes.
 * Returns the encoding (malloc()ed) or NULL after a message. */
static inline void *fuzz_round_trip(const struct d2b_btf *btf, const struct d2b_btf *base,
			     size_t *ret_size)
{
	struct d2b_btf *again = NULL;
	void *enc = NULL, *enc2 = NULL;
	size_t size, size2;
	char err[256];

	if (d2b_btf__encode(btf, &enc, &size)) {
		fprintf(stderr, "fuzz: encode failed\n");
		return NULL;
	}
	if (d2b_btf__parse_raw(enc, size, base, &again, err, sizeof(err))) {
		fprintf(stderr, "fuzz: our own encoding does not parse: %s\n", err);
		goto bad;
	}
	if (d2b_btf__encode(again, &enc2, &size2) || size2 != size || memcmp(enc, enc2, size)) {
		fprintf(stderr, "fuzz: the encoding read back encodes differently\n");
		goto bad;
	}
	free(enc2);
	d2b_btf__free(again);
	*ret_size = size;
	return enc;
bad:
	free(enc2);
	d2b_btf__free(again);
	free(enc);
	return NULL;
}

#endif
