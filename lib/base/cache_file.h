/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct cache_file: data derived from an input, kept in a cache directory
 * so that the next run that has the same input reads it instead of making
 * it again.  The caller names an entry by a digest of the input (and of
 * the format it writes), so a changed input is a different name; an entry
 * holds up to CACHE_MAX_SECTIONS sections of bytes, read back in place
 * through a read-only mapping.
 *
 * Never trusted: an entry is taken only if its header says this format
 * (magic, the caller's version, the host's byte order and word size), its
 * size and section table are whole, and the digest of every byte after
 * the header is the one the header holds; anything else is "damaged"
 * (-EBADMSG, with a reason), and the caller makes the data again and
 * writes it over.  An entry is written to a temporary file and renamed
 * into place (safe_file.h), so readers, even of a directory that several
 * runs write at once, see a whole entry or none; runs that write the same
 * name at once write the same bytes, and the last rename wins.  No lock
 * is taken.  After a write, the entries beyond the `keep` most recently
 * used ones (of the same name prefix) are removed; a hit marks its entry
 * used (its mtime).
 */
#ifndef D2B_CACHE_FILE_H
#define D2B_CACHE_FILE_H

#include <stddef.h>
#include <stdint.h>

enum {
	CACHE_MAX_SECTIONS = 12,
	CACHE_ALIGN = 64,	/* bytes: every section starts at such an offset */
};

struct cache_section {
	const void *data;
	uint64_t size;
};

struct cache_file {
	void *map;		/* the whole file, read-only */
	size_t map_len;
	unsigned int nr;
	struct cache_section sec[CACHE_MAX_SECTIONS];
};

/*
 * Open entry dir/name written with format version, mapped; its sections in
 * cf->sec.  0, -ENOENT (no such entry: why is ""), -EBADMSG (damaged or
 * another format: why says how), or another negative errno.  Release cf
 * with cache_file__close() whatever the result.
 */
int cache_file__open(struct cache_file *cf, const char *dir, const char *name,
		     uint32_t version, char *why, size_t whylen);
void cache_file__close(struct cache_file *cf);
/*
 * Write entry dir/name (creating dir, mode 0700, if missing) with the nr
 * sections given, atomically; then remove the entries of dir whose names
 * start with prefix beyond the keep most recently used.  0 or a negative
 * errno, with why saying which step failed.
 */
int cache_file__write(const char *dir, const char *name, uint32_t version,
		      const struct cache_section *sec, unsigned int nr, const char *prefix,
		      unsigned int keep, char *why, size_t whylen);

#endif
