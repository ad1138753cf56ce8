// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An entry: a header of HEADER_SIZE bytes, then the sections, each at a
 * multiple of CACHE_ALIGN (zeros between them).  The header holds the
 * section table and two digests (digest.h): one of the header's own bytes
 * before it, one of every byte from HEADER_SIZE to the end.  Reading an
 * entry costs one pass over it (the digest, at about memory speed) and no
 * copy: the sections are used where the mapping has them.
 *
 * The payload is written first, in place through the temporary file, its
 * digest taken on the way; the header last.  A reader never sees the
 * temporary file, so a run killed while writing leaves at most that file,
 * which the next writer of the name removes (safe_file.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cache_file.h"
#include "base/digest.h"
#include "base/safe_file.h"

enum {
	HEADER_SIZE = 256,
	BYTE_ORDER_MARK = 0x01020304,
};

static const char CACHE_MAGIC[8] = { 'D', '2', 'B', 'C', 'A', 'C', 'H', 'E' };

struct header {
	char magic[8];
	uint32_t version;	/* the caller's format */
	uint32_t order;		/* BYTE_ORDER_MARK as the writer stored it */
	uint32_t word;		/* the writer's sizeof(size_t) */
	uint32_t nr;
	uint64_t file_size;
	uint64_t payload_digest;	/* of bytes HEADER_SIZE .. file_size */
	struct {
		uint64_t off, size;
	} sec[CACHE_MAX_SECTIONS];
	uint64_t header_digest;	/* of the fields above */
};

_Static_assert(sizeof(struct header) <= HEADER_SIZE, "cache header too large");

static int why_err(int err, char *why, size_t whylen, const char *msg)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return err;
}

static uint64_t header_digest(const struct header *h)
{
	return digest64(h, offsetof(struct header, header_digest), 0);
}

void cache_file__close(struct cache_file *cf)
{
	if (cf->map)
		munmap(cf->map, cf->map_len);
	memset(cf, 0, sizeof(*cf));
}

/* Is the header h (of a file of size bytes) one we wrote, whole? */
static const char *check_header(const struct header *h, uint64_t size, uint32_t version)
{
	unsigned int i;

	if (memcmp(h->magic, CACHE_MAGIC, sizeof(CACHE_MAGIC)))
		return "not a dwarf2btf cache entry";
	if (h->header_digest != header_digest(h))
		return "its header is damaged";
	if (h->order != BYTE_ORDER_MARK || h->word != sizeof(size_t))
		return "written on a host of another byte order or word size";
	if (h->version != version)
		return "written in another format version";
	if (h->file_size != size)
		return "cut short or grown since written";
	if (h->nr > CACHE_MAX_SECTIONS)
		return "its section table is damaged";
	for (i = 0; i < h->nr; i++) {
		if (h->sec[i].off < HEADER_SIZE || h->sec[i].off % CACHE_ALIGN ||
		    h->sec[i].off > size || h->sec[i].size > size - h->sec[i].off)
			return "its section table is damaged";
	}
	return NULL;
}

int cache_file__open(struct cache_file *cf, const char *dir, const char *name,
		     uint32_t version, char *why, size_t whylen)
{
	const struct header *h;
	const char *bad;
	struct stat st;
	char *path;
	unsigned int i;
	int fd, err = 0;

	memset(cf, 0, sizeof(*cf));
	if (why && whylen)
		why[0] = '\0';
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : why_err(-errno, why, whylen, strerror(errno));
	if (fstat(fd, &st)) {
		err = why_err(-errno, why, whylen, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < HEADER_SIZE) {
		err = why_err(-EBADMSG, why, whylen, "not a regular file of a header's size");
		goto out;
	}
	cf->map_len = (size_t)st.st_size;
	cf->map = mmap(NULL, cf->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (cf->map == MAP_FAILED) {
		cf->map = NULL;
		err = why_err(-errno, why, whylen, strerror(errno));
		goto out;
	}
	h = cf->map;
	bad = check_header(h, (uint64_t)st.st_size, version);
	if (!bad && digest64_mapped((const char *)cf->map + HEADER_SIZE, cf->map_len - HEADER_SIZE, 0) !=
		    h->payload_digest)
		bad = "its contents are damaged (digest mismatch)";
	if (bad) {
		err = why_err(-EBADMSG, why, whylen, bad);
		goto out;
	}
	cf->nr = h->nr;
	for (i = 0; i < h->nr; i++) {
		cf->sec[i].data = (const char *)cf->map + h->sec[i].off;
		cf->sec[i].size = h->sec[i].size;
	}
	/* most recently used: kept longest (best effort: not ours, read-only) */
	(void)futimens(fd, NULL);
out:
	close(fd);
	if (err)
		cache_file__close(cf);
	return err;
}

/* mkdir -p dir, the last component 0700 (a cache is the user's own) */
static int make_dir(const char *dir)
{
	char *p, *s = strdup(dir);
	int err = 0;

	if (!s)
		return -ENOMEM;
	for (p = s + 1; *p && !err; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(s, 0755) && errno != EEXIST)
			err = -errno;
		*p = '/';
	}
	if (!err && mkdir(s, 0700) && errno != EEXIST)
		err = -errno;
	free(s);
	return err;
}

struct entry {
	char *name;
	struct timespec used;
};

static int newest_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? 1 : -1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Remove dir's entries named prefix* beyond the keep most recently used
 * (never a writer's temporary file, which safe_file.c looks after). */
static void evict(const char *dir, const char *prefix, unsigned int keep)
{
	struct entry *e = NULL, *ne;
	size_t n = 0, cap = 0, i, plen = strlen(prefix);
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;

		if (strncmp(de->d_name, prefix, plen) || strstr(de->d_name, ".d2b-") ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			ne = realloc(e, cap * sizeof(*e));
			if (!ne)
				break;
			e = ne;
		}
		e[n].name = strdup(de->d_name);
		if (!e[n].name)
			break;
		e[n++].used = st.st_mtim;
	}
	if (n > keep) {
		qsort(e, n, sizeof(*e), newest_first);
		for (i = keep; i < n; i++)
			(void)unlinkat(dirfd(d), e[i].name, 0);
	}
	for (i = 0; i < n; i++)
		free(e[i].name);
	free(e);
	closedir(d);
}

static const unsigned char zeros[CACHE_ALIGN];

int cache_file__write(const char *dir, const char *name, uint32_t version,
		      const struct cache_section *sec, unsigned int nr, const char *prefix,
		      unsigned int keep, char *why, size_t whylen)
{
	struct header h = { .version = version, .order = BYTE_ORDER_MARK,
			    .word = sizeof(size_t), .nr = nr };
	struct safe_file f = { .fd = -1 };
	struct digest d;
	uint64_t off = HEADER_SIZE, pad;
	unsigned char head[HEADER_SIZE] = { 0 };
	unsigned int i;
	char *path = NULL;
	int err;

	if (why && whylen)
		why[0] = '\0';
	if (nr > CACHE_MAX_SECTIONS)
		return why_err(-EINVAL, why, whylen, "too many sections");
	err = make_dir(dir);
	if (err)
		return why_err(err, why, whylen, "cannot make the directory");
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return why_err(-ENOMEM, why, whylen, "out of memory");
	err = safe_file__open(&f, path);
	if (err) {
		why_err(err, why, whylen, "cannot create a temporary file");
		goto out;
	}
	memcpy(h.magic, CACHE_MAGIC, sizeof(CACHE_MAGIC));
	digest__init(&d, 0);
	for (i = 0; i < nr && !err; i++) {
		h.sec[i].off = off;
		h.sec[i].size = sec[i].size;
		err = safe_file__write(&f, sec[i].data, sec[i].size, off);
		digest__add(&d, sec[i].data, sec[i].size);
		off += sec[i].size;
		pad = (CACHE_ALIGN - off % CACHE_ALIGN) % CACHE_ALIGN;
		if (!err && pad && i + 1 < nr)
			err = safe_file__write(&f, zeros, pad, off);
		if (pad && i + 1 < nr) {
			digest__add(&d, zeros, pad);
			off += pad;
		}
	}
	h.file_size = off;
	h.payload_digest = digest__final(&d);
	h.header_digest = header_digest(&h);
	memcpy(head, &h, sizeof(h));
	if (!err)
		err = safe_file__write(&f, head, sizeof(head), 0);
	if (err) {
		why_err(err, why, whylen, "cannot write it");
		goto out;
	}
	err = safe_file__commit(&f);
	if (err) {
		why_err(err, why, whylen, safe_file__step(&f));
		goto out;
	}
	evict(dir, prefix, keep);
out:
	safe_file__release(&f);
	free(path);
	return err;
}
