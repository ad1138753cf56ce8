// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Eight lanes, each taking every eighth 64-bit word with one round: xor
 * the word in, rotate, multiply by an odd constant (a bijection of the
 * lane for a given word, and of the word for a given lane).  One
 * multiplication per word, and eight chains to overlap them, is what
 * keeps it at memory speed: hash_bytes()'s two multiplications per word
 * in one chain run at a third of it.  Words are read little-endian
 * whatever the host, so a digest means the same bytes everywhere.  The
 * tail (under a round) is padded with zeros and the length is mixed in at
 * the end, so blocks differing only by trailing zeros differ; the lanes
 * are folded with rotations and finished with hash_mix64().
 * digest__add() may be called with pieces of any size: the result is
 * that of the whole block.
 */
#include <string.h>

#include "base/digest.h"
#include "base/hmap.h"
#include "base/pages.h"

enum {
	ROUND = DIGEST_LANES * 8,	/* bytes a round takes */
	BEHIND = 1 << 20,		/* digest64_mapped() gives pages back by this */
};

static const uint64_t DIGEST_K1 = 0x9e3779b185ebca87ULL;
static const uint64_t DIGEST_K2 = 0xc2b2ae3d27d4eb4fULL;

static inline uint64_t rotl(uint64_t x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t load_le64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		w = __builtin_bswap64(w);
	return w;
}

static void rounds(struct digest *d, const unsigned char *p, size_t n)
{
	uint64_t h[DIGEST_LANES];
	int i;

	memcpy(h, d->lane, sizeof(h));
	for (; n >= ROUND; p += ROUND, n -= ROUND)
		for (i = 0; i < DIGEST_LANES; i++)
			h[i] = rotl(h[i] ^ load_le64(p + 8 * i), 29) * DIGEST_K1;
	memcpy(d->lane, h, sizeof(h));
}

void digest__init(struct digest *d, uint64_t seed)
{
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < DIGEST_LANES; i++)
		d->lane[i] = seed + (uint64_t)(i + 1) * DIGEST_K2;
}

void digest__add(struct digest *d, const void *p, size_t len)
{
	const unsigned char *s = p;
	size_t n;

	if (!len)
		return;		/* (p may be NULL then) */
	d->len += len;
	if (d->nbuf) {
		n = ROUND - d->nbuf < len ? ROUND - d->nbuf : len;
		memcpy(d->buf + d->nbuf, s, n);
		d->nbuf += n;
		s += n;
		len -= n;
		if (d->nbuf < ROUND)
			return;
		rounds(d, d->buf, ROUND);
		d->nbuf = 0;
	}
	n = len - len % ROUND;
	rounds(d, s, n);
	memcpy(d->buf, s + n, len - n);
	d->nbuf = len - n;
}

uint64_t digest__final(const struct digest *d)
{
	struct digest t = *d;
	uint64_t h = t.len * DIGEST_K2;
	int i;

	if (t.nbuf) {
		memset(t.buf + t.nbuf, 0, ROUND - t.nbuf);
		rounds(&t, t.buf, ROUND);
	}
	for (i = 0; i < DIGEST_LANES; i++)
		h = rotl(h, 23) ^ hash_mix64(t.lane[i]);
	return hash_mix64(h);
}

uint64_t digest64(const void *p, size_t len, uint64_t seed)
{
	struct digest d;

	digest__init(&d, seed);
	digest__add(&d, p, len);
	return digest__final(&d);
}

uint64_t digest64_mapped(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *s = p;
	struct pages_behind pb;
	struct digest d;
	size_t off, n;

	digest__init(&d, seed);
	pages_behind__init(&pb, s, len, BEHIND);
	for (off = 0; off < len; off += n) {
		n = len - off < BEHIND ? len - off : BEHIND;
		digest__add(&d, s + off, n);
		pages_behind__reach(&pb, off + n);
	}
	pages_behind__all(&pb);
	return digest__final(&d);
}
