// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the file helpers in lib/base: struct safe_file (replace a
 * file through a temporary one and rename, removing the temporary files
 * that killed writers left) and the ELF identification check.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/elf_ident.h"
#include "base/safe_file.h"
#include "test.h"

static char dir[] = "/tmp/d2b-test-safe-file-XXXXXX";

/* Files in dir, dot files included (a leftover temporary would be one) */
static int count_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* dir/name, in a static buffer */
static const char *path_of(const char *name)
{
	static char path[300];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* The whole of a small file, NUL-terminated, in a static buffer */
static const char *contents(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return "(missing)";
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return buf;
}

static void put(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd >= 0) {
		CHECK_EQ(write(fd, s, strlen(s)), (long long)strlen(s));
		CHECK_EQ(fchmod(fd, mode), 0);
		close(fd);
	}
}

static void test_new_file(void)
{
	const char *path = path_of("new");
	struct safe_file f;
	struct stat st;
	mode_t mask = umask(022);

	CHECK_EQ(safe_file__open(&f, path), 0);
	CHECK(f.fd >= 0 && f.tmp && strstr(f.tmp, ".d2b-"));
	CHECK_EQ(count_entries(), 1);			/* only the temporary file */
	/* writes land at their offsets, in any order */
	CHECK_EQ(safe_file__write(&f, "world", 5, 6), 0);
	CHECK_EQ(safe_file__write(&f, "hello ", 6, 0), 0);
	CHECK_EQ(safe_file__write(&f, "", 0, 0), 0);
	CHECK_EQ(safe_file__commit(&f), 0);
	safe_file__release(&f);
	CHECK_STR(contents(path), "hello world");
	/* a new file: 0666 less the umask, like any other */
	CHECK(!stat(path, &st) && (st.st_mode & 07777) == 0644);
	CHECK_EQ(count_entries(), 1);
	unlink(path);
	umask(mask);
}

static void test_replace_keeps_mode(void)
{
	const char *path = path_of("old");
	struct safe_file f;
	struct stat st;

	put(path, "old contents", 0640);
	CHECK_EQ(safe_file__open(&f, path), 0);
	CHECK_EQ(safe_file__write(&f, "new", 3, 0), 0);
	CHECK_STR(contents(path), "old contents");	/* untouched until the rename */
	CHECK_EQ(safe_file__commit(&f), 0);
	safe_file__release(&f);
	CHECK_STR(contents(path), "new");
	CHECK(!stat(path, &st) && (st.st_mode & 07777) == 0640 && st.st_uid == getuid());
	CHECK_EQ(count_entries(), 1);
	unlink(path);
}

static void test_release_without_commit(void)
{
	const char *path = path_of("kept");
	struct safe_file f;

	put(path, "keep me", 0644);
	CHECK_EQ(safe_file__open(&f, path), 0);
	CHECK_EQ(safe_file__write(&f, "half", 4, 0), 0);
	safe_file__release(&f);		/* a failure on the way: nothing changes */
	CHECK_STR(contents(path), "keep me");
	CHECK_EQ(count_entries(), 1);
	unlink(path);
}

static void test_failures(void)
{
	struct safe_file f, zero = { 0 };
	char path[300];

	/* no such directory: an error, nothing created */
	CHECK_EQ(safe_file__open(&f, path_of("nodir/x")), -ENOENT);
	CHECK(f.tmp == NULL && f.fd == -1);
	safe_file__release(&f);
	CHECK_EQ(count_entries(), 0);
	/* a zeroed one is released safely: its fd 0 is not closed */
	if (fcntl(0, F_GETFD) < 0)
		CHECK_EQ(open("/dev/null", O_RDONLY), 0);
	safe_file__release(&zero);
	CHECK(fcntl(0, F_GETFD) >= 0);
	/* the rename fails (the target is a non-empty directory): the step is
	 * named and release removes the temporary file */
	snprintf(path, sizeof(path), "%s", path_of("adir"));
	REQUIRE(mkdir(path, 0755) == 0);
	put(path_of("adir/x"), "x", 0644);
	CHECK_EQ(safe_file__open(&f, path), 0);
	CHECK_EQ(safe_file__write(&f, "data", 4, 0), 0);
	CHECK(safe_file__commit(&f) < 0);
	CHECK_EQ(f.failed, SAFE_FILE_RENAME);
	safe_file__release(&f);
	CHECK_EQ(count_entries(), 1);
	CHECK_STR(contents(path_of("adir/x")), "x");
	unlink(path_of("adir/x"));
	rmdir(path);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* name, printf-style, in dir */
static void __attribute__((format(printf, 2, 3))) name_in(char *buf, const char *fmt, ...)
{
	char name[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(buf, 300, "%s/%s", dir, name);
}

/* A PID that ran and is gone (a reaped child) */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/* What killed writers leave is removed by the next writer of the same
 * target, and nothing else is: other targets, other names, live writers,
 * directories, links. */
static void test_stale_temporaries(void)
{
	char stale[300], other[300], alive[300], old[300], odd[5][300], sub[300], link[300];
	char theirs[300];
	const char *path = path_of("t");
	struct timeval two_min_ago[2];
	struct safe_file f, g;
	pid_t dead = dead_pid();
	unsigned int i;

	REQUIRE(dead > 0);
	put(path, "target", 0644);
	name_in(stale, "t.d2b-%d.0", (int)dead);
	name_in(other, "u.d2b-%d.0", (int)dead);
	/* our own PID runs: a fresh unlocked file is kept (a writer between
	 * open and flock), an old one goes (the PID was reused) */
	name_in(alive, "t.d2b-%d.7", (int)getpid());
	name_in(old, "t.d2b-%d.8", (int)getpid());
	name_in(odd[0], "t.d2b-%d.0.bak", (int)dead);
	name_in(odd[1], "t.d2b-%d", (int)dead);
	name_in(odd[2], "t.d2b-x%d.0", (int)dead);
	name_in(odd[3], "t.d2b-99999999999.0");
	name_in(odd[4], "tx.d2b-%d.0", (int)dead);
	name_in(sub, "t.d2b-%d.1", (int)dead);
	name_in(link, "t.d2b-%d.2", (int)dead);
	put(stale, "half written", 0644);
	put(other, "another target's", 0644);
	put(alive, "fresh", 0644);
	put(old, "old", 0644);
	two_min_ago[0].tv_sec = two_min_ago[1].tv_sec = time(NULL) - 2 * SAFE_FILE_STALE_AGE;
	two_min_ago[0].tv_usec = two_min_ago[1].tv_usec = 0;
	CHECK_EQ(utimes(old, two_min_ago), 0);
	for (i = 0; i < 5; i++)
		put(odd[i], "not ours", 0644);
	CHECK_EQ(mkdir(sub, 0755), 0);
	CHECK_EQ(symlink("t", link), 0);
	/* another user's (as root we can make one) */
	name_in(theirs, "t.d2b-%d.3", (int)dead);
	put(theirs, "someone else's", 0644);
	if (geteuid() == 0)
		CHECK_EQ(chown(theirs, 65534, 65534), 0);

	CHECK_EQ(safe_file__open(&f, path), 0);
	CHECK_EQ(f.stale_removed, geteuid() == 0 ? 2u : 3u);
	CHECK(!exists(stale) && !exists(old));	/* (and theirs, when it is ours) */
	CHECK(exists(other) && exists(alive) && exists(sub) && exists(link));
	CHECK(exists(theirs) == (geteuid() == 0));
	for (i = 0; i < 5; i++)
		CHECK(exists(odd[i]));
	/* a second writer of the same target leaves the first one's file
	 * alone (it is locked), even when it looks old */
	CHECK_EQ(utimes(f.tmp, two_min_ago), 0);
	CHECK_EQ(safe_file__open(&g, path), 0);
	CHECK_EQ(g.stale_removed, 0u);
	CHECK(exists(f.tmp));
	CHECK(strcmp(f.tmp, g.tmp));
	safe_file__release(&g);
	CHECK_EQ(safe_file__write(&f, "new", 3, 0), 0);
	CHECK_EQ(safe_file__commit(&f), 0);
	safe_file__release(&f);
	CHECK_STR(contents(path), "new");

	unlink(path);
	unlink(other);
	unlink(alive);
	for (i = 0; i < 5; i++)
		unlink(odd[i]);
	rmdir(sub);
	unlink(link);
	unlink(theirs);
	CHECK_EQ(count_entries(), 0);
}

/* A file a writer holds is locked, so a killed writer's lock is free. */
static void test_temporary_is_locked(void)
{
	const char *path = path_of("locked");
	struct safe_file f;
	int fd;

	CHECK_EQ(safe_file__open(&f, path), 0);
	fd = open(f.tmp, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK);
	close(fd);
	safe_file__release(&f);
	CHECK_EQ(count_entries(), 0);
}

static void test_elf_ident(void)
{
	unsigned char id[EI_NIDENT] = { 0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, EV_CURRENT };
	char why[64];

	CHECK_EQ(elf_ident__check(id, sizeof(id)), ELF_IDENT_OK);
	CHECK_EQ(elf_ident__check(id, 0), ELF_IDENT_NOT_ELF);
	CHECK_EQ(elf_ident__check(id, 3), ELF_IDENT_NOT_ELF);
	CHECK_EQ(elf_ident__check(id, 4), ELF_IDENT_TRUNCATED);
	CHECK_EQ(elf_ident__check(id, EI_NIDENT - 1), ELF_IDENT_TRUNCATED);
	CHECK_EQ(elf_ident__check("\x7f" "ELG", 4), ELF_IDENT_NOT_ELF);
	CHECK_STR(elf_ident__why(ELF_IDENT_NOT_ELF, id, why, sizeof(why)), "not an ELF file");
	CHECK_STR(elf_ident__why(ELF_IDENT_TRUNCATED, id, why, sizeof(why)), "truncated ELF header");
	id[EI_CLASS] = 3;
	CHECK_EQ(elf_ident__check(id, sizeof(id)), ELF_IDENT_BAD_CLASS);
	CHECK_STR(elf_ident__why(ELF_IDENT_BAD_CLASS, id, why, sizeof(why)), "unsupported ELF class 3");
	id[EI_CLASS] = ELFCLASS32;
	id[EI_DATA] = 0;
	CHECK_EQ(elf_ident__check(id, sizeof(id)), ELF_IDENT_BAD_DATA);
	CHECK_STR(elf_ident__why(ELF_IDENT_BAD_DATA, id, why, sizeof(why)),
		  "unsupported ELF data encoding 0");
	id[EI_DATA] = ELFDATA2MSB;
	id[EI_VERSION] = 2;
	CHECK_EQ(elf_ident__check(id, sizeof(id)), ELF_IDENT_BAD_VERSION);
	CHECK_STR(elf_ident__why(ELF_IDENT_BAD_VERSION, id, why, sizeof(why)),
		  "unsupported ELF version 2");
	id[EI_VERSION] = EV_CURRENT;
	CHECK_EQ(elf_ident__check(id, sizeof(id)), ELF_IDENT_OK);
}

int main(void)
{
	RUN(test_elf_ident);
	if (!mkdtemp(dir)) {
		printf("FAIL safe_file: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	RUN(test_new_file);
	RUN(test_replace_keeps_mode);
	RUN(test_release_without_commit);
	RUN(test_failures);
	RUN(test_stale_temporaries);
	RUN(test_temporary_is_locked);
	rmdir(dir);
	return test_done();
}
