/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Giving back the pages of a file mapping that has been read through, so
 * that a large input does not stay in the process's memory: the pages stay
 * in the page cache, and are read from there again if touched again.
 */
#ifndef D2B_PAGES_H
#define D2B_PAGES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether [p, p + len) lies inside one private mapping of a file (Linux's
 * /proc/self/maps says), which the caller knows it never wrote to: then
 * pages__drop() on it only forgets clean copies of the file's pages.  False
 * for heap memory, anonymous mappings, or when it cannot be told.
 */
bool pages__in_file_mapping(const void *p, size_t len);
/* Drop the whole pages inside [p, p + len) from the process (MADV_DONTNEED). */
void pages__drop(const void *p, size_t len);

/*
 * A region read front to back (unit after unit of .debug_info), whose
 * pages are dropped behind the reader a batch at a time: each madvise()
 * makes the kernel interrupt the process's other threads to flush their
 * TLBs, so one per batch (PAGES_BEHIND_BATCH), not per unit.  A fault also
 * maps the cached pages around it (the kernel's fault-around), pages
 * behind it included, so the reader ends with pages_behind__all(), which
 * drops the whole region.  Each drop makes the batches just ahead of the
 * reader present in one call (MADV_POPULATE_READ), not a fault at a time.
 * base NULL: a region that must stay (not a clean file mapping): nothing
 * is dropped.
 */
enum { PAGES_BEHIND_BATCH = 8 << 20 };
/* each drop also makes this many batches ahead of the reader present */
enum { PAGES_AHEAD_BATCHES = 2 };

struct pages_behind {
	const char *base;
	size_t size, batch;
	size_t done;		/* pages_behind__reach() dropped [base, base + done) */
};

void pages_behind__init(struct pages_behind *pb, const void *base, size_t size, size_t batch);
/* The reader is at offset pos: drop [done, pos) once that is a batch or more. */
void pages_behind__reach(struct pages_behind *pb, size_t pos);
/* The reader is done: drop the whole region. */
void pages_behind__all(const struct pages_behind *pb);

/*
 * calloc(n, size), with a large block's pages made present and writable at
 * once (MADV_POPULATE_WRITE; where the kernel lacks it, each page written
 * once).  A large calloc() block is fresh zero pages that the kernel maps
 * on first touch; a table that reads a slot before writing it would fault
 * twice per page (the shared zero page, then its copy), and with threads
 * running the second fault flushes the other CPUs' TLBs.
 */
void *pages__zalloc(size_t n, size_t size);
/*
 * About to write all over [p, p + len): make its whole pages present and
 * writable in one call (MADV_POPULATE_WRITE), where a private file
 * mapping would otherwise take a fault per page to copy it.  A hint: it
 * does nothing where the kernel cannot (or memory is read-only).
 */
void pages__prepare_write(void *p, size_t len);

#endif
