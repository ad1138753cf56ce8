// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The temporary file is created with open(O_CREAT | O_EXCL, 0666) under a
 * name of our own rather than with mkostemp(): mkostemp() makes it 0600,
 * and a new file (one that replaces nothing) must get 0666 less the umask
 * like any other, which cannot be read without changing it (umask() is
 * process-wide, so not safe in a library).  O_EXCL makes the name safe.
 *
 * Stale temporary files.  The writer flock()s its temporary file from
 * creation until after the rename, and the kernel drops the lock when the
 * writer dies however it dies, so a free lock means no live writer -- with
 * one gap: between open() and flock().  A file is removed only if its lock is
 * free, its owner is our user, and its PID does not run (kill(pid, 0)) or it
 * has not been written for SAFE_FILE_STALE_AGE seconds; the gap's file is
 * fresh and its PID runs.  (Seen from another PID namespace it does not,
 * and a file lost there fails that writer's rename with ENOENT: the target
 * is still never half written.)  flock() works on local file systems and,
 * as fcntl() locks, on NFS; where it fails nothing is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/safe_file.h"

/* Parse "PID.N" (the rest of a temporary name): PID, or -1 */
static long stale_pid(const char *s)
{
	long pid = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9' && p - s < 10; p++)
		pid = pid * 10 + (*p - '0');
	if (p == s || *p != '.' || pid <= 0 || pid > INT_MAX)
		return -1;
	for (s = ++p; *p >= '0' && *p <= '9' && p - s < 10; p++)
		;
	return p != s && !*p ? pid : -1;
}

/* Is name (in dir) a temporary file of base whose writer is gone? */
static bool is_stale(int dir, const char *name, const char *base, size_t blen)
{
	struct stat st;
	bool stale = false;
	long pid;
	int fd;

	if (strncmp(name, base, blen) || strncmp(name + blen, ".d2b-", 5))
		return false;
	pid = stale_pid(name + blen + 5);
	if (pid < 0)
		return false;
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !flock(fd, LOCK_EX | LOCK_NB)) {
		stale = (kill((pid_t)pid, 0) && errno == ESRCH) ||
			time(NULL) - st.st_mtime > SAFE_FILE_STALE_AGE;
	}
	close(fd);	/* drops the lock: a writer that has it never unlocks */
	return stale;
}

/* Remove the stale temporary files of target; returns how many. */
static unsigned int remove_stale(const char *target)
{
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
	char *dname = slash ? strndup(target, slash == target ? 1 : slash - target) : NULL;
	size_t blen = strlen(base);
	unsigned int n = 0;
	struct dirent *e;
	DIR *d;

	if (slash && !dname)
		return 0;
	d = opendir(slash ? dname : ".");
	free(dname);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (is_stale(dirfd(d), e->d_name, base, blen) &&
		    !unlinkat(dirfd(d), e->d_name, 0))
			n++;
	}
	closedir(d);
	return n;
}

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
	f->stale_removed = remove_stale(target);
	err = -EEXIST;
	for (i = 0; i < SAFE_FILE_TRIES && err == -EEXIST; i++) {
		snprintf(f->tmp, len, "%s.d2b-%ld.%u", target, (long)getpid(), i);
		f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (f->fd < 0) {
			err = -errno;
			continue;
		}
		/* held until release; where locks do not work, go on without */
		if (!flock(f->fd, LOCK_EX | LOCK_NB) || errno != EWOULDBLOCK)
			return 0;
		/* another run is looking at it as a stale file: take the next name */
		close(f->fd);
		f->fd = -1;
		unlink(f->tmp);
	}
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
	if (err)
		return err;
	/* rename while the lock is still held, so that nobody takes the
	 * file for a stale one; close after it (fsync flushed everything) */
	f->failed = SAFE_FILE_RENAME;
	if (rename(f->tmp, f->target))
		return -errno;
	f->committed = true;
	close(f->fd);
	f->fd = -1;
	sync_dir(f->target);
	return 0;
}

const char *safe_file__step(const struct safe_file *f)
{
	switch (f->failed) {
	case SAFE_FILE_OWNER:
		return "cannot give its temporary file its owner";
	case SAFE_FILE_MODE:
		return "cannot give its temporary file its mode";
	case SAFE_FILE_SYNC:
		return "cannot sync its temporary file";
	case SAFE_FILE_RENAME:
		return "cannot rename its temporary file over it";
	default:
		return "cannot write its temporary file";
	}
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
