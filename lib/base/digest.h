/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * digest64(): a 64-bit digest of a large block of bytes (megabytes), to
 * name a cache entry by the contents it was made from and to notice an
 * entry damaged on disk.  Eight independent lanes take 64 bytes a round,
 * so it runs at about memory speed; hash_bytes() (hmap.h) stays the hash
 * of short keys.  Not a cryptographic hash: it guards against accidents
 * (a stale or torn file), not against someone who can write the cache
 * directory, who could write anything there anyway.
 */
#ifndef D2B_DIGEST_H
#define D2B_DIGEST_H

#include <stddef.h>
#include <stdint.h>

enum { DIGEST_LANES = 8 };

struct digest {
	uint64_t lane[DIGEST_LANES];
	uint64_t len;		/* bytes taken so far */
	unsigned char buf[DIGEST_LANES * 8];	/* a round's bytes not yet taken */
	size_t nbuf;
};

void digest__init(struct digest *d, uint64_t seed);
void digest__add(struct digest *d, const void *p, size_t len);
uint64_t digest__final(const struct digest *d);
/* The three above over one block. */
uint64_t digest64(const void *p, size_t len, uint64_t seed);
/*
 * The same, of a block in a read-only file mapping that nothing wrote:
 * each page read is given back behind (pages.h), so that the digest of
 * a large entry does not stay in the process's resident set; the pages
 * used later are brought back from the page cache as they are touched.
 */
uint64_t digest64_mapped(const void *p, size_t len, uint64_t seed);

#endif
