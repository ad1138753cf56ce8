/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct safe_file: replace a file without ever leaving it half written.
 * The new contents go into a temporary file beside the target (same
 * directory, so rename() is atomic); commit gives it the target's owner and
 * mode, fsyncs it, renames it over the target and fsyncs the directory.
 * Until the rename the target is untouched; release removes the temporary
 * file unless it was committed.
 *
 * A writer that is killed (SIGKILL, a crash, a power cut) cannot remove its
 * temporary file.  So the writer holds an flock() on it while it lives, and
 * open first removes the temporary files of earlier writers of the same
 * target that are gone: <target>.d2b-PID.N, a regular file of our user,
 * whose lock is free and whose PID is not running (or that is older than
 * SAFE_FILE_STALE_AGE, in case the PID was reused).  Nothing else is ever
 * removed.
 *
 *	struct safe_file f;
 *	err = safe_file__open(&f, path);
 *	if (!err) err = safe_file__write(&f, buf, len, 0);
 *	if (!err) err = safe_file__commit(&f);
 *	safe_file__release(&f);
 */
#ifndef D2B_SAFE_FILE_H
#define D2B_SAFE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum {
	/* temporary names tried before giving up (each one exists already) */
	SAFE_FILE_TRIES = 1000,
	/* seconds after which an unlocked temporary file is stale even if a
	 * process with its PID runs (PIDs are reused) */
	SAFE_FILE_STALE_AGE = 60,
};

/* The step of safe_file__commit() that failed, for the caller's message */
enum safe_file_step {
	SAFE_FILE_WRITE,	/* writing it (before commit) */
	SAFE_FILE_OWNER,	/* fchown() to the target's owner */
	SAFE_FILE_MODE,		/* fchmod() to the target's mode */
	SAFE_FILE_SYNC,		/* fsync() of the temporary file */
	SAFE_FILE_RENAME,	/* rename() over the target */
};

struct safe_file {
	char *target;		/* the file to replace (a copy of the path) */
	char *tmp;		/* the temporary file beside it: <target>.d2b-PID.N */
	int fd;			/* open on tmp for writing, or -1 */
	bool had_target;	/* target existed at open: keep its owner and mode */
	struct stat st;		/* ... as they were then */
	bool committed;
	enum safe_file_step failed;	/* after commit failed: where (0: not yet) */
	unsigned int stale_removed;	/* stale temporary files open removed */
};

/*
 * Remove the stale temporary files of target (see above), then create its
 * own, exclusively, and lock it.  A file that replaces nothing gets mode
 * 0666 less the umask, like any new file.  Returns 0 or a negative errno
 * (no temporary file is left then); release f either way.
 */
int safe_file__open(struct safe_file *f, const char *target);
/* Write all of buf at offset off: the one write loop (short writes and
 * EINTR are retried).  0 or a negative errno. */
int safe_file__write(struct safe_file *f, const void *buf, size_t len, uint64_t off);
/* Owner and mode, fsync, rename over the target, fsync the directory.
 * 0, or a negative errno with the failed step in f->failed. */
int safe_file__commit(struct safe_file *f);
/* What failed, for a message about the target: "cannot rename its
 * temporary file over it", ... ("cannot write ..." before commit). */
const char *safe_file__step(const struct safe_file *f);
/* Close and, unless committed, remove the temporary file.  Accepts a
 * safe_file whose open failed, and a zeroed one. */
void safe_file__release(struct safe_file *f);

#endif
