// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The temporary file is created with open(O_CREAT | O_EXCL, 0666) under a
 * name of our own rather than with mkostemp(): mkostemp() makes it 0600,
 * and a new file (one that replaces nothing) must get 0666 less the umask
 * like any other, which cannot be read without changing it (umask() is
 * process-wide, so not safe in a library).  O_EXCL makes the name safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/safe_file.h"

int safe_file__open(struct safe_file *f, const char *target)
{
	size_t len = strlen(target) + sizeof(".d2b-") + 2 * 3 * sizeof(long) + 2;
	unsigned int i;
	int err;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->target = strdup(target);
	f->tmp = malloc(len);
	if (!f->target || !f->tmp) {
		free(f->tmp);
		f->tmp = NULL;
		return -ENOMEM;
	}
	f->had_target = !stat(target, &f->st);
	for (i = 0; i < SAFE_FILE_TRIES; i++) {
		snprintf(f->tmp, len, "%s.d2b-%ld.%u", target, (long)getpid(), i);
		f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (f->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	err = -errno;
	free(f->tmp);
	f->tmp = NULL;
	return err;
}

int safe_file__write(struct safe_file *f, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(f->fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* fsync the directory so that the rename itself is durable */
static void sync_dir(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int safe_file__commit(struct safe_file *f)
{
	int err = 0;

	/* keep owner and mode: chown first, it may clear set-id bits */
	if (f->had_target) {
		f->failed = SAFE_FILE_OWNER;
		if (fchown(f->fd, f->st.st_uid, f->st.st_gid))
			err = -errno;
		if (!err) {
			f->failed = SAFE_FILE_MODE;
			if (fchmod(f->fd, f->st.st_mode & 07777))
				err = -errno;
		}
	}
	if (!err) {
		f->failed = SAFE_FILE_SYNC;
		if (fsync(f->fd))
			err = -errno;
	}
	if (close(f->fd) && !err) {
		f->failed = SAFE_FILE_SYNC;
		err = -errno;
	}
	f->fd = -1;
	if (err)
		return err;
	f->failed = SAFE_FILE_RENAME;
	if (rename(f->tmp, f->target))
		return -errno;
	f->committed = true;
	sync_dir(f->target);
	return 0;
}

void safe_file__release(struct safe_file *f)
{
	/* fd is valid only while tmp is set: a zeroed safe_file is released safely */
	if (f->tmp && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp && !f->committed)
		unlink(f->tmp);
	free(f->tmp);
	free(f->target);
	f->tmp = NULL;
	f->target = NULL;
}
