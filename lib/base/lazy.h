/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct lazy: a range of a file's bytes at one address, each block read
 * (pread()) the first time something asks for it, into private anonymous
 * memory.  For data read at random and mostly not at all: a kernel
 * module's merge looks at a few hundred of vmlinux's 100,000 types, and
 * a mapping of the file would bring in far more than those (the kernel
 * maps the cached pages around each one touched, 64 KiB or a whole large
 * folio), all of it counted in the process's memory.
 *
 * The caller asks before it reads: lazy__need() for a range, lazy__need_str()
 * for a NUL-terminated string.  Reads from several threads at once are
 * safe: a block's state is read with acquire order, and blocks are read
 * in under a lock, once.  A read that fails leaves the block unread and
 * the error kept (lazy__error()): callers treat the bytes as missing, and
 * whoever finishes the work asks lazy__error() before trusting a result.
 */
#ifndef D2B_LAZY_H
#define D2B_LAZY_H

#include <stddef.h>
#include <stdint.h>

struct lazy;

/*
 * The size bytes of fd at offset off (fd is duplicated: the caller may
 * close its own).  -EINVAL for an empty range, else 0 or a negative errno.
 */
int lazy__open(int fd, uint64_t off, size_t size, struct lazy **ret);
void lazy__free(struct lazy *lz);

/* The address of the range's first byte (its blocks not yet read). */
const void *lazy__data(const struct lazy *lz);
size_t lazy__size(const struct lazy *lz);

/* Make [p, p + len) readable (p inside the range): 0, -ERANGE past its
 * end, or the error of a read. */
int lazy__need(struct lazy *lz, const void *p, size_t len);
/* Make the NUL-terminated string at p readable: 0, -ERANGE if the range
 * ends first, or the error of a read. */
int lazy__need_str(struct lazy *lz, const char *p);
/* Every block read: for whoever needs all of it at once. */
int lazy__need_all(struct lazy *lz);
/* The first error a read met, or 0. */
int lazy__error(const struct lazy *lz);

/*
 * The digest (digest.h, seed 0) of the whole range, read through a small
 * buffer of the caller's process, not into the range: a pass that must
 * see every byte, and keeps none.
 */
int lazy__digest(struct lazy *lz, uint64_t *ret);

#endif
