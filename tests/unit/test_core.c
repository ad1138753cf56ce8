// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the foundation: hmap, strtab, ptr_cache, pages, the
 * d2b_btf builder and its string-only "names" base.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf/btf.h"
#include "btf/str_adder.h"
#include "base/hmap.h"
#include "base/pages.h"
#include "base/ptr_cache.h"
#include "base/str_memo.h"
#include "base/strtab.h"
#include "merge/dedup.h"
#include "test.h"

static void hmap_case(bool collide)
{
	struct hmap m;
	struct hmap_iter it;
	uint64_t v, i, n;

	hmap__init(&m, collide);
	for (i = 0; i < 1000; i++)
		CHECK_EQ(hmap__add(&m, i * 7919, i), 0);
	CHECK_EQ(hmap__add(&m, 7919 * 5, 12345), 0);	/* second value under one key */
	for (i = 0; i < 1000; i++) {
		hmap__iter_init(&m, i * 7919, &it);
		n = 0;
		while (hmap__next(&m, &it, &v)) {
			/* with collisions every value comes back: the caller filters */
			if (v == i || (i == 5 && v == 12345))
				n++;
		}
		CHECK_EQ(n, i == 5 ? 2 : 1);
	}
	CHECK(!hmap__find(&m, 1, &v) || collide);
	CHECK_EQ(hmap__set(&m, 3 * 7919, 99), 0);
	if (!collide) {
		CHECK(hmap__find(&m, 3 * 7919, &v));
		CHECK_EQ(v, 99);
	}
	hmap__release(&m);
}

static void test_hmap(void)
{
	hmap_case(false);
}

static void test_hmap_forced_collisions(void)
{
	hmap_case(true);
}

/* HMAP_EMPTY cannot be stored (a slot keeps val + 1, 0 marking it free);
 * everything else can, 0 included, by add() or set() */
static void test_hmap_values(void)
{
	struct hmap m;
	uint64_t v;

	hmap__init(&m, false);
	CHECK_EQ(hmap__add(&m, 1, HMAP_EMPTY), -EINVAL);
	CHECK_EQ(hmap__set(&m, 1, HMAP_EMPTY), -EINVAL);
	CHECK_EQ(hmap__set(&m, 5, 0), 0);
	CHECK_EQ(hmap__set(&m, 5, HMAP_EMPTY), -EINVAL);
	CHECK(hmap__find(&m, 5, &v));
	CHECK_EQ(v, 0);
	CHECK_EQ(hmap__add(&m, 1, HMAP_EMPTY - 1), 0);
	CHECK_EQ(hmap__add(&m, 2, 0), 0);
	CHECK(hmap__find(&m, 1, &v));
	CHECK_EQ(v, HMAP_EMPTY - 1);
	CHECK(hmap__find(&m, 2, &v));
	CHECK_EQ(v, 0);
	CHECK(!hmap__find(&m, 3, &v));
	hmap__clear(&m);
	CHECK(!hmap__find(&m, 2, &v));
	hmap__release(&m);
}

/* values sharing a key come back in the order they were added, also after
 * the table grew while their run of slots wrapped past its end */
static void test_hmap_grow_order(void)
{
	struct hmap m;
	struct hmap_iter it;
	uint64_t v, i, key;

	for (key = 0; key < 64; key++) {
		hmap__init(&m, false);
		for (i = 0; i < 3000; i++)
			CHECK_EQ(hmap__add(&m, key, i), 0);
		hmap__iter_init(&m, key, &it);
		for (i = 0; hmap__next(&m, &it, &v) && v == i; i++)
			;
		CHECK_EQ(i, 3000);
		hmap__release(&m);
	}
}

/* clear() empties a table whatever it held: a large one mostly unused is
 * given back, one mostly used is wiped; either way it fills again, and
 * values sharing a key come back in the order they were added */
static void test_hmap_clear(void)
{
	struct hmap m;
	struct hmap_iter it;
	uint64_t v, i, round, big;

	hmap__init(&m, false);
	for (i = 0; i < 5000; i++)
		CHECK_EQ(hmap__add(&m, i, i), 0);
	big = m.cap;
	for (round = 0; round < 3; round++) {
		hmap__clear(&m);
		CHECK_EQ(m.len, 0);
		CHECK(!hmap__find(&m, 7, &v));
		for (i = 0; i < (round == 1 ? 4000 : 10); i++)
			CHECK_EQ(hmap__add(&m, 42, i), 0);
		hmap__iter_init(&m, 42, &it);
		for (i = 0; hmap__next(&m, &it, &v); i++)
			CHECK_EQ(v, i);
		CHECK_EQ(i, round == 1 ? 4000 : 10);
	}
	/* wiped after 4,000 of them, given back after 10: small again */
	CHECK(m.cap < big);
	hmap__release(&m);
}

/* hash_bytes: every length's tail is hashed, and equal bytes hash equal */
/*
 * hash_bytes()'s values, as the byte-by-byte form of its tail (memcpy()
 * into a zeroed word) gave them on a little-endian host, for every tail
 * length: the word-loading tail must give the same.
 */
static void test_hash_bytes_golden(void)
{
	static const struct {
		size_t n;
		uint64_t h;
	} golden[] = {
		{  1, 0xa6214f056a038909ULL }, {  2, 0x61c62dfedb01d9dfULL },
		{  3, 0x74100c5ce28a453fULL }, {  4, 0x153b8e0f7d3506c3ULL },
		{  5, 0x78b1b1a0e5045d80ULL }, {  6, 0x5c4e11bc76877c22ULL },
		{  7, 0x34bb371403f541f1ULL }, {  8, 0x7eb47a6d30892dd5ULL },
		{  9, 0xe70c24dbd81c4be4ULL }, { 10, 0xaeb47a00d0c77a50ULL },
		{ 11, 0xeb87f90f2f3f84adULL }, { 12, 0x9eb1923bcc552100ULL },
		{ 13, 0x5074d3b9451c8947ULL }, { 14, 0x4a1b86ebb0b0328cULL },
		{ 15, 0x4167d2947b7314c8ULL }, { 16, 0xdb7e6d12e8ca64efULL },
		{ 17, 0x1ea9e18f4ce61e60ULL },
	};
	const char *s = "struct_page_frag_cache.offset";
	size_t i;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		return;		/* (the values differ on a big-endian host) */
	for (i = 0; i < sizeof(golden) / sizeof(golden[0]); i++)
		CHECK_EQ(hash_bytes(s, golden[i].n, 0), golden[i].h);
}

static void test_hash_bytes(void)
{
	const char s[] = "abcdefghijklmnopqrstuvwxyz";
	char copy[sizeof(s)];
	size_t n;

	for (n = 1; n < sizeof(s) - 1; n++) {
		memset(copy, 'x', sizeof(copy));
		memcpy(copy, s, n);
		CHECK(hash_bytes(s, n, 0) != hash_bytes(s, n + 1, 0));
		CHECK(hash_bytes(s, n, 0) != hash_bytes(s + 1, n, 0));
		CHECK_EQ(hash_bytes(s, n, 0), hash_bytes(copy, n, 0));
	}
	CHECK_EQ(hash_str("abc"), hash_bytes("abc", 3, 0));
	CHECK(hash_bytes("abc", 3, 0) != hash_bytes("abc", 3, 1));
	test_hash_bytes_golden();
}

/* str_memo answers as the table does: found strings (then from the memo,
 * checked), strings the table lacks, a slot another string holds (order 0:
 * one slot for all), and another table */
static void test_str_memo(void)
{
	static const char data[] = "\0alpha\0beta\0gamma";
	struct strtab *st = strtab__new(false), *other = strtab__new(false);
	struct str_memo *m = str_memo__new(0);
	static const char *const words[] = { "alpha", "beta", "gamma", "delta", "alp" };
	size_t i, round;

	REQUIRE(st && other && m);
	CHECK_EQ(strtab__load(st, data, sizeof(data)), 0);
	CHECK(strtab__add(other, "beta") > 0);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			const char *w = words[i];
			size_t len = strlen(w);
			uint64_t h = hash_bytes(w, len, 0);

			CHECK_EQ(str_memo__find(m, st, w, len, h), strtab__find(st, w));
			CHECK_EQ(str_memo__find(m, st, w, len, h), strtab__find(st, w));
		}
	}
	CHECK_EQ(str_memo__find(m, other, "beta", 4, hash_bytes("beta", 4, 0)),
		 strtab__find(other, "beta"));
	CHECK_EQ(str_memo__find(m, other, "alpha", 5, hash_bytes("alpha", 5, 0)), -ENOENT);
	CHECK(!str_memo__new(25));
	str_memo__free(m);
	strtab__free(st);
	strtab__free(other);
}

static void test_ptr_cache(void)
{
	static const char region[64] = "a\0bb\0ccc";
	struct ptr_cache *c = ptr_cache__new(region, sizeof(region), 2);
	uint32_t v;
	int i;

	REQUIRE(c);
	CHECK(ptr_cache__covers(c, region));
	CHECK(ptr_cache__covers(c, region + 63));
	CHECK(!ptr_cache__covers(c, region + 64));
	CHECK(!ptr_cache__get(c, region + 2, &v));
	ptr_cache__put(c, region + 2, 7);
	CHECK(ptr_cache__get(c, region + 2, &v));
	CHECK_EQ(v, 7);
	ptr_cache__put(c, "elsewhere", 9);	/* outside: not kept */
	CHECK(!ptr_cache__get(c, "elsewhere", &v));
	/* four slots: later pointers replace earlier ones, never mix them up */
	for (i = 0; i < 64; i++)
		ptr_cache__put(c, region + i, 100 + i);
	for (i = 0; i < 64; i++) {
		if (ptr_cache__get(c, region + i, &v))
			CHECK_EQ(v, 100 + (uint32_t)i);
	}
	ptr_cache__free(c);
	CHECK(!ptr_cache__new(region, 1, 40));
}

/* A file mapping can give its pages back and read the same bytes again;
 * heap memory is never called a file mapping */
static void test_pages(void)
{
	char path[] = "/tmp/d2b-test-pages.XXXXXX";
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 4 * (size_t)page, i;
	char *buf = malloc(len), *map;
	int fd;

	REQUIRE(buf);
	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 7);
	map = test_map_file(path, buf, len, PROT_READ | PROT_WRITE, &fd);
	REQUIRE(map != MAP_FAILED);
	CHECK_EQ(memcmp(map, buf, len), 0);
	CHECK(pages__in_file_mapping(map, len));
	CHECK(pages__in_file_mapping(map + 1, len - 2));
	CHECK(!pages__in_file_mapping(map, len + (size_t)page));
	CHECK(!pages__in_file_mapping(buf, len));
	CHECK(!pages__in_file_mapping(NULL, len));
	pages__drop(map + 1, len - 1);	/* pages 1..3 whole */
	CHECK_EQ(memcmp(map, buf, len), 0);
	/* made writable at once: the mapping's copy changes, never the file */
	pages__prepare_write(map + 1, len - 2);
	CHECK_EQ(memcmp(map, buf, len), 0);
	map[len - 1] = 'x';
	CHECK(pread(fd, buf, 1, (off_t)len - 1) == 1 && buf[0] != 'x');
	munmap(map, len);
	/* a read-only mapping: nothing happens */
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	REQUIRE(map != MAP_FAILED);
	pages__prepare_write(map, len);
	CHECK(pread(fd, buf, len, 0) == (ssize_t)len && !memcmp(map, buf, len));
	munmap(map, len);
	close(fd);
	unlink(path);
	free(buf);
}

/*
 * pages_behind: the pages behind the reader are dropped once a batch of
 * them is, not before; the bytes read again are the file's; the end drops
 * the whole region (pages touched behind the last batch too); a drop makes
 * the batches ahead present; a NULL base drops nothing.  Counted by
 * /proc/self/pagemap.
 */
static void test_pages_behind(void)
{
	char path[] = "/tmp/d2b-test-behind.XXXXXX";
	size_t page = (size_t)sysconf(_SC_PAGESIZE), npages = 64, len = npages * page, i;
	struct pages_behind pb;
	char *buf = malloc(len), *map;
	volatile char sink = 0;
	int fd;

	REQUIRE(buf);
	for (i = 0; i < len; i++)
		buf[i] = (char)(i * 13);
	map = test_map_file(path, buf, len, PROT_READ | PROT_WRITE, &fd);
	REQUIRE(map != MAP_FAILED);
	for (i = 0; i < len; i += page)
		sink += map[i];
	if (test_mapped_pages(map, len) < 0) {
		printf("#   /proc/self/pagemap unreadable: counts not checked\n");
	} else {
		CHECK_EQ(test_mapped_pages(map, len), npages);
		pages_behind__init(&pb, map, len, 8 * page);
		pages_behind__reach(&pb, 8 * page - 1);		/* less than a batch */
		CHECK_EQ(test_mapped_pages(map, len), npages);
		pages_behind__reach(&pb, 8 * page + 1);		/* pages 0..7 */
		CHECK_EQ(test_mapped_pages(map, len), npages - 8);
		CHECK_EQ(pb.done, 8 * page + 1);
		pages_behind__reach(&pb, 4 * page);		/* behind: nothing */
		pages_behind__reach(&pb, len + 1);		/* past the end: nothing */
		CHECK_EQ(pb.done, 8 * page + 1);
		CHECK_EQ(test_mapped_pages(map, len), npages - 8);
		CHECK_EQ(memcmp(map, buf, len), 0);		/* read again: the file's */
		CHECK_EQ(test_mapped_pages(map, len), npages);
		pages_behind__all(&pb);
		CHECK_EQ(test_mapped_pages(map, len), 0);
		/* a drop makes the PAGES_AHEAD_BATCHES batches ahead present,
		 * untouched: the whole pages from the reader's offset on (the
		 * kernel may map the pages around them too) */
		pages_behind__init(&pb, map, len, 8 * page);
		pages_behind__reach(&pb, 8 * page + 1);
		CHECK_EQ(test_mapped_pages(map + 9 * page, 15 * page), 15);
		pages_behind__all(&pb);
		/* a region that must stay */
		for (i = 0; i < len; i += page)
			sink += map[i];
		pages_behind__init(&pb, NULL, len, 1);
		pages_behind__reach(&pb, len);
		pages_behind__all(&pb);
		CHECK_EQ(test_mapped_pages(map, len), npages);
	}
	CHECK_EQ(memcmp(map, buf, len), 0);
	(void)sink;
	munmap(map, len);
	close(fd);
	unlink(path);
	free(buf);
}

/*
 * pages__zalloc(): zeroed like calloc(), and a large block's pages are
 * present before the first touch (mincore() says so; a plain calloc() of
 * fresh pages leaves them absent), so that reading a slot before writing
 * it costs no second fault.  Sizes whose product overflows are refused.
 */
static void test_pages_zalloc(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 4 << 20, i, inner, absent = 0;
	unsigned char *p = pages__zalloc(n, 1), *lo, *vec;

	REQUIRE(p && page > 0);
	lo = (unsigned char *)(((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1));
	inner = (size_t)(p + n - lo) / (size_t)page;
	vec = malloc(inner);
	REQUIRE(vec);
	CHECK_EQ(mincore(lo, inner * (size_t)page, vec), 0);
	for (i = 0; i < inner; i++)
		absent += !(vec[i] & 1);
	CHECK_EQ(absent, 0);
	for (i = 0; i < n; i += 4093)
		CHECK_EQ(p[i], 0);
	p[n - 1] = 1;
	free(vec);
	free(p);
	p = pages__zalloc(3, 5);
	CHECK(p && !p[14]);
	free(p);
	CHECK(!pages__zalloc(SIZE_MAX / 2, 3));
}

/* The names base: equal strings get their first offset; BTFs over it use
 * its offsets, and a memo gives the same answers as the lookup */
static void test_names_base(void)
{
	static const char sec[] = "int\0long\0int\0ng\0";
	struct d2b_btf *names = btf_new_names(sec, sizeof(sec) - 1), *u1, *u2;
	struct ptr_cache *memo = ptr_cache__new(sec, sizeof(sec) - 1, 4);
	struct str_adder s1, s2, sn;
	int a, b, c, d, e, f;

	REQUIRE(names && memo);
	CHECK_EQ(d2b_btf__nr_types(names), 0);
	CHECK_STR(d2b_btf__str(names, 1), "int");
	u1 = d2b_btf__new(names);
	u2 = d2b_btf__new(names);
	REQUIRE(u1 && u2);
	str_adder__init(&s1, u1);
	str_adder__init(&s2, u2);
	str_adder__init(&sn, names);
	CHECK_EQ(str_adder__use_names(&s1, memo), 0);
	CHECK_EQ(str_adder__use_names(&s2, memo), 0);
	CHECK_EQ(str_adder__use_names(&sn, memo), -EINVAL);	/* not over a names base */
	CHECK_EQ(d2b_btf__start_id(u1), 1);
	a = str_adder__add(&s1, sec);		/* "int" at its first offset */
	b = str_adder__add(&s1, sec + 9);	/* the second "int": the same */
	c = str_adder__add(&s2, sec + 9);	/* from the memo */
	d = str_adder__add(&s2, sec + 6);	/* "ng", a string of its own */
	e = str_adder__add(&s1, "not there");	/* u1's own */
	/* "ong", only a suffix of "long": its place in the tails range,
	 * twice the same, and the same in another BTF (from the memo) */
	f = str_adder__add(&s1, sec + 5);
	CHECK_EQ(f, (int)(btf_names_tails(names) + 1 + 5));
	CHECK_STR(d2b_btf__str(u1, (uint32_t)f), "ong");
	CHECK_STR(d2b_btf__str(names, (uint32_t)f), "ong");
	CHECK_EQ(str_adder__add(&s1, sec + 5), f);
	CHECK_EQ(str_adder__add(&s2, sec + 5), f);
	CHECK_EQ(btf_end_str(names), 2 * btf_names_tails(names));
	CHECK_EQ(btf_start_str(u1), btf_end_str(names));
	CHECK_EQ(a, 1);
	CHECK_EQ(b, 1);
	CHECK_EQ(c, 1);
	CHECK_EQ(d, 14);
	CHECK(e > (int)sizeof(sec));
	CHECK_STR(d2b_btf__str(u1, (uint32_t)e), "not there");
	CHECK_STR(d2b_btf__str(u2, (uint32_t)d), "ng");
	d2b_btf__free(u1);
	d2b_btf__free(u2);
	d2b_btf__free(names);
	ptr_cache__free(memo);
}

/* A names base whose strings are all different (a linker's merged
 * .debug_str): a whole string is its offset + 1 without a lookup, a suffix
 * of a longer one still what the lookup finds, or an own string */
static void test_names_base_unique(void)
{
	static const char sec[] = "int\0long\0ng\0";
	struct d2b_btf *names = btf_new_names(sec, sizeof(sec) - 1), *u;
	struct ptr_cache *memo = ptr_cache__new(sec, sizeof(sec) - 1, 4);
	struct str_adder a;

	REQUIRE(names && memo);
	u = d2b_btf__new(names);
	REQUIRE(u);
	str_adder__init(&a, u);
	CHECK_EQ(str_adder__use_names(&a, memo), 0);
	CHECK_EQ(str_adder__add(&a, sec), 1);
	CHECK_EQ(str_adder__add(&a, sec + 9), 10);	/* "ng" itself, not long's tail */
	CHECK_EQ(str_adder__add(&a, sec + 6), 10);	/* "ng" as long's tail: the same */
	/* "ong": only a tail, at its place in the tails range */
	CHECK_EQ(str_adder__add(&a, sec + 5), (int)(btf_names_tails(names) + 1 + 5));
	CHECK_EQ(str_adder__add(&a, sec + 4), 5);
	d2b_btf__free(u);
	d2b_btf__free(names);
	ptr_cache__free(memo);
}

/*
 * One name, three ways: the tail of "unsigned int" and of "uint" in a
 * names base where "int" is no string of its own (clang's .debug_str), and
 * a string from elsewhere.  Three units, each an INT of that name, merge
 * into one as they come, not only in the final merge: a tail's place in
 * the section is not its name.  (It was, and the structs holding one int
 * and those holding the other stayed apart, the final merge failing to
 * join such graphs: the 6.12 test kernel built by clang came out with 9 %
 * more types than libbpf's dedup makes.)
 */
static void test_names_base_tails_merge(void)
{
	static const char sec[] = "unsigned int\0uint\0long\0";
	const char *name[3] = { sec + 9, sec + 14, "int" };
	struct d2b_btf *names = btf_new_names(sec, sizeof(sec) - 1), *u[3] = { 0 }, *out;
	struct ptr_cache *memo = ptr_cache__new(sec, sizeof(sec) - 1, 4);
	struct dedup_opts opts = { .names = names };
	const uint32_t *final_map;
	struct dedup *d = NULL;
	int k;

	out = d2b_btf__new(NULL);
	REQUIRE(names && memo && out);
	CHECK_EQ(dedup__new(out, &opts, &d), 0);
	for (k = 0; k < 3 && d; k++) {
		struct str_adder a;

		u[k] = d2b_btf__new(names);
		REQUIRE(u[k]);
		str_adder__init(&a, u[k]);
		CHECK_EQ(str_adder__use_names(&a, memo), 0);
		CHECK_EQ(btf_add_int_off(u[k], str_adder__add(&a, name[k]), 4, D2B_INT_SIGNED), 1);
		CHECK_STR(d2b_btf__str(u[k], d2b_btf__type(u[k], 1)->name_off), "int");
		CHECK_EQ(dedup__add_unit(d, u[k], NULL), 0);
	}
	CHECK_EQ(d2b_btf__nr_types(dedup__btf(d)), 1);
	CHECK_EQ(dedup__finish(d, &final_map), 0);
	CHECK_EQ(d2b_btf__nr_types(out), 1);
	CHECK_STR(d2b_btf__name(out, 1), "int");
	dedup__free(d);
	d2b_btf__free(out);

	/* the same through a group of the first two: one INT in the group,
	 * which the third unit's meets in the destination */
	out = d2b_btf__new(NULL);
	REQUIRE(out);
	CHECK_EQ(dedup__new(out, &opts, &d), 0);
	if (d) {
		struct dedup *g = NULL;
		uint32_t map[2];

		CHECK_EQ(dedup__new_group(d, &g), 0);
		for (k = 0; k < 2 && g; k++)
			CHECK_EQ(dedup__add_unit(g, u[k], NULL), 0);
		if (g) {
			CHECK_EQ(d2b_btf__nr_types(dedup__btf(g)), 1);
			CHECK_EQ(dedup__add_group(d, g, map), 0);
			dedup__free(g);
		}
		CHECK_EQ(dedup__add_unit(d, u[2], NULL), 0);
		CHECK_EQ(d2b_btf__nr_types(dedup__btf(d)), 1);
		CHECK_EQ(dedup__finish(d, &final_map), 0);
		CHECK_EQ(d2b_btf__nr_types(out), 1);
		dedup__free(d);
	}
	for (k = 0; k < 3; k++)
		d2b_btf__free(u[k]);
	d2b_btf__free(out);
	d2b_btf__free(names);
	ptr_cache__free(memo);
}

/*
 * Own strings over a names base lie past its tails range, which can take
 * them past BTF's largest string offset: such BTFs are only merged, by
 * their strings' bytes, into an output of its own strings.  (A section of
 * 9 MB put a unit's first own string at 18 MB, which was refused.)
 */
static void test_names_base_own_past_limit(void)
{
	enum { N = 9 << 20 };
	char *sec = malloc(N);
	struct d2b_btf *names, *u, *out = d2b_btf__new(NULL);
	struct dedup_opts opts = { 0 };
	const uint32_t *final_map;
	struct dedup *d = NULL;
	int r;

	REQUIRE(sec && out);
	memset(sec, 'a', N);
	sec[N / 2] = sec[N - 1] = '\0';
	names = btf_new_names(sec, N);
	REQUIRE(names);
	u = d2b_btf__new(names);
	REQUIRE(u);
	CHECK(btf_start_str(u) > D2B_MAX_NAME_OFF);
	r = d2b_btf__add_str(u, "own");
	CHECK(r > D2B_MAX_NAME_OFF);
	CHECK_STR(d2b_btf__str(u, (uint32_t)r), "own");
	CHECK_EQ(d2b_btf__add_int(u, "own", 4, D2B_INT_SIGNED), 1);
	opts.names = names;
	CHECK_EQ(dedup__new(out, &opts, &d), 0);
	if (d) {
		CHECK_EQ(dedup__add_unit(d, u, NULL), 0);
		CHECK_EQ(dedup__finish(d, &final_map), 0);
		CHECK_STR(d2b_btf__name(out, 1), "own");
		dedup__free(d);
	}
	d2b_btf__free(u);
	d2b_btf__free(out);
	d2b_btf__free(names);
	free(sec);
}

/*
 * strtab__load() indexes each string some strings after reading it (to
 * prefetch): many strings, duplicates near and far from their first copy,
 * each with and without forced collisions, still find their first offset.
 */
static void test_strtab_load_many(void)
{
	enum { N = 300 };
	char data[N * 8], name[16];
	int64_t first[N];
	size_t len = 1, i;
	int fc;

	data[0] = 0;
	for (i = 0; i < N; i++) {
		/* a copy of string i % 97 (far), or pairs side by side (near) */
		size_t k = i >= 200 ? 1000 + i / 2 : i % 97;

		snprintf(name, sizeof(name), "s%zu", k);
		first[i] = len;
		memcpy(data + len, name, strlen(name) + 1);
		len += strlen(name) + 1;
	}
	for (fc = 0; fc < 2; fc++) {
		struct strtab *st = strtab__new(fc);

		CHECK_EQ(strtab__load(st, data, len), 0);
		CHECK(strtab__loaded_dups(st));
		CHECK_EQ(strtab__size(st), len);
		for (i = 0; i < N; i++) {
			size_t k = i >= 200 ? 1000 + i / 2 : i % 97;
			size_t j;

			/* the first string with this text */
			for (j = 0; strcmp(data + first[j], data + first[i]); j++)
				;
			snprintf(name, sizeof(name), "s%zu", k);
			CHECK_EQ(strtab__find(st, name), first[j]);
		}
		CHECK_EQ(strtab__find(st, "s97"), -ENOENT);
		strtab__free(st);
	}
}

/*
 * The index grows (rehashed from the tags it keeps) while strings are
 * added: every string keeps its offset and is found again, with forced
 * collisions too, and after a load as well as from empty.
 */
static void test_strtab_grow(void)
{
	enum { N = 3000 };
	static int64_t off[N];
	char name[16];
	int fc, i;

	for (fc = 0; fc < 2; fc++) {
		struct strtab *st = strtab__new(fc);
		int n = fc ? N / 10 : N;

		REQUIRE(st);
		CHECK_EQ(strtab__load(st, "\0pre\0", 5), 0);
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "n%d", i);
			off[i] = strtab__add(st, name);
			CHECK(off[i] > 0);
		}
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "n%d", i);
			CHECK_EQ(strtab__find(st, name), off[i]);
			CHECK_EQ(strtab__add(st, name), off[i]);
		}
		CHECK_EQ(strtab__find(st, "pre"), 1);
		CHECK_EQ(strtab__find(st, "n"), -ENOENT);
		strtab__free(st);
	}
}

static void test_strtab(void)
{
	struct strtab *st = strtab__new(false), *st2 = strtab__new(true);
	int64_t a, b, c;

	REQUIRE(st && st2);
	CHECK_EQ(strtab__add(st, ""), 0);
	CHECK_EQ(strtab__add(st, NULL), 0);
	a = strtab__add(st, "foo");
	b = strtab__add(st, "bar");
	c = strtab__add(st, "foo");
	CHECK_EQ(a, 1);
	CHECK_EQ(b, 5);
	CHECK_EQ(c, a);
	CHECK_EQ(strtab__find(st, "bar"), b);
	CHECK_EQ(strtab__find(st, "baz"), -ENOENT);
	CHECK_STR(strtab__str(st, a), "foo");
	CHECK_EQ(strtab__size(st), 9);
	CHECK(strtab__str(st, 100) == NULL);
	/* equality, not the hash, decides */
	CHECK_EQ(strtab__add(st2, "x"), 1);
	CHECK_EQ(strtab__add(st2, "y"), 3);
	CHECK_EQ(strtab__add(st2, "x"), 1);
	CHECK_EQ(strtab__add_len(st2, "yz", 1), 3);
	/* load keeps bytes and offsets, including duplicates */
	CHECK_EQ(strtab__load(st2, "\0a\0a\0", 5), -EBUSY);
	strtab__free(st2);
	st2 = strtab__new(false);
	CHECK_EQ(strtab__load(st2, "\0a\0b\0a\0", 7), 0);
	CHECK_EQ(strtab__find(st2, "a"), 1);
	CHECK_EQ(strtab__find(st2, "b"), 3);
	CHECK_EQ(strtab__size(st2), 7);
	CHECK(strtab__loaded_dups(st2));
	strtab__free(st2);
	st2 = strtab__new(false);
	CHECK_EQ(strtab__load(st2, "\0a\0ba\0", 6), 0);
	CHECK(!strtab__loaded_dups(st2));
	/* a section: "" put before it, a NUL after it (even a cut one's) */
	CHECK_EQ(strtab__load_section(st2, "x\0", 2), -EBUSY);
	strtab__free(st2);
	st2 = strtab__new(false);
	CHECK_EQ(strtab__load_section(st2, "a\0b\0a\0cut", 9), 0);
	CHECK_EQ(strtab__size(st2), 11);
	CHECK_EQ(memcmp(strtab__data(st2), "\0a\0b\0a\0cut\0", 11), 0);
	CHECK_EQ(strtab__find(st2, "a"), 1);
	CHECK_EQ(strtab__find(st2, "b"), 3);
	CHECK_EQ(strtab__find(st2, "cut"), 7);
	CHECK(strtab__loaded_dups(st2));
	strtab__free(st2);
	st2 = strtab__new(false);
	CHECK_EQ(strtab__load_section(st2, "", 0), 0);
	CHECK_EQ(strtab__size(st2), 2);
	CHECK_EQ(strtab__add(st2, "new"), 2);
	strtab__free(st);
	strtab__free(st2);
	test_strtab_load_many();
	test_strtab_grow();
}

static void test_builder_kinds(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	const struct d2b_type *t;
	int i_int, i_s, i_e, i_fp, i_f, i_v, i_ds, i_arr;

	REQUIRE(btf);
	i_int = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	CHECK_EQ(i_int, 1);
	CHECK_EQ(d2b_btf__add_int(btf, "", 4, 0), -EINVAL);	/* INT needs a name */
	i_s = d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "s", 8);
	CHECK_EQ(d2b_btf__add_member(btf, "a", i_int, 0, 0), 0);
	CHECK_EQ(d2b_btf__add_member(btf, "b", i_int, 32, 3), 0);
	t = d2b_btf__type(btf, i_s);
	REQUIRE(t);
	CHECK_EQ(d2b_kind(t), D2B_KIND_STRUCT);
	CHECK_EQ(d2b_vlen(t), 2);
	CHECK(d2b_kflag(t));
	CHECK_EQ(d2b_member_bit_offset(t, &btf_members(t)[1]), 32);
	CHECK_EQ(d2b_member_bitfield_size(t, &btf_members(t)[1]), 3);
	CHECK_EQ(d2b_member_bitfield_size(t, &btf_members(t)[0]), 0);
	i_e = d2b_btf__add_enum64(btf, "big", 8, false);
	CHECK_EQ(d2b_btf__add_enum_value(btf, "V", 0x100000001LL), 0);
	t = d2b_btf__type(btf, i_e);
	CHECK_EQ(btf_enum64_val(&btf_enums64(t)[0]), 0x100000001LL);
	CHECK_EQ(d2b_btf__add_enum(btf, "small", 4, true) > 0, 1);
	CHECK_EQ(d2b_btf__add_enum_value(btf, "TOO_BIG", 0x100000000LL), -E2BIG);
	i_fp = d2b_btf__add_func_proto(btf, i_int);
	CHECK_EQ(d2b_btf__add_param(btf, "x", i_int), 0);
	CHECK_EQ(d2b_btf__add_param(btf, NULL, 0), 0);
	i_f = d2b_btf__add_func(btf, "f", D2B_LINKAGE_GLOBAL, i_fp);
	CHECK_EQ(d2b_vlen(d2b_btf__type(btf, i_f)), D2B_LINKAGE_GLOBAL);
	i_v = d2b_btf__add_var(btf, "v", D2B_LINKAGE_STATIC, i_s);
	i_ds = d2b_btf__add_datasec(btf, ".data", 64);
	CHECK_EQ(d2b_btf__add_datasec_var(btf, i_v, 8, 8), 0);
	/* members only go to the open type */
	CHECK_EQ(d2b_btf__add_member(btf, "x", i_int, 0, 0), -EINVAL);
	i_arr = d2b_btf__add_array(btf, i_s, i_int, 4);
	CHECK_EQ(d2b_btf__resolve_size(btf, i_arr), 32);
	CHECK_EQ(d2b_btf__resolve_size(btf, i_v), 8);
	CHECK_EQ(d2b_btf__add_decl_tag(btf, "tag", i_s, 1) > 0, 1);
	CHECK_EQ(d2b_btf__add_decl_tag(btf, "tag", i_s, -2), -EINVAL);
	CHECK_EQ(d2b_btf__add_type_tag(btf, "user", i_int) > 0, 1);
	CHECK_EQ(d2b_btf__add_ref(btf, D2B_KIND_PTR, "named", i_int), -EINVAL);
	CHECK_EQ(d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, NULL, i_int), -EINVAL);
	CHECK_EQ(d2b_btf__add_float(btf, "f3", 3), -EINVAL);
	CHECK_STR(d2b_btf__name(btf, i_ds), ".data");
	CHECK(d2b_btf__type(btf, 1000) == NULL);
	CHECK_EQ(d2b_kind(d2b_btf__type(btf, 0)), D2B_KIND_UNKN);
	CHECK_STR(d2b_kind_name(D2B_KIND_ENUM64), "ENUM64");
	d2b_btf__free(btf);
}

static void test_reserve_define(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	int s, p, i;

	REQUIRE(btf);
	/* room made ahead adds no type */
	CHECK_EQ(btf_reserve_room(btf, 1000, 100), 0);
	CHECK_EQ(d2b_btf__nr_types(btf), 0);
	s = btf_reserve(btf);
	CHECK_EQ(s, 1);
	CHECK(d2b_btf__type(btf, s) == NULL);	/* not yet defined */
	p = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, s);
	i = d2b_btf__add_int(btf, "int", 4, 0);
	CHECK_EQ(btf_define(btf, s), 0);
	CHECK_EQ(d2b_btf__add_composite(btf, D2B_KIND_STRUCT, "node", 16), s);
	CHECK_EQ(d2b_btf__add_member(btf, "next", p, 0, 0), 0);
	CHECK_EQ(d2b_btf__add_member(btf, "v", i, 64, 0), 0);
	CHECK(d2b_btf__type(btf, s) != NULL);
	CHECK_EQ(d2b_vlen(d2b_btf__type(btf, s)), 2);
	CHECK_EQ(btf_define(btf, s), -EINVAL);	/* defined once */
	CHECK_EQ(d2b_btf__end_id(btf), 4);
	d2b_btf__free(btf);
}

static void test_field_iter(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL);
	struct btf_field_iter it;
	uint32_t *f;
	int n, i, fp;

	REQUIRE(btf);
	i = d2b_btf__add_int(btf, "int", 4, 0);
	fp = d2b_btf__add_func_proto(btf, i);
	d2b_btf__add_param(btf, "a", i);
	d2b_btf__add_param(btf, "b", i);
	btf_field_iter__init(&it, btf_type_mut(btf, fp), BTF_FIELD_IDS);
	for (n = 0; (f = btf_field_iter__next(&it)); n++)
		CHECK_EQ(*f, (uint32_t)i);
	CHECK_EQ(n, 3);
	btf_field_iter__init(&it, btf_type_mut(btf, fp), BTF_FIELD_STRS);
	for (n = 0; (f = btf_field_iter__next(&it)); n++)
		;
	CHECK_EQ(n, 3);	/* name_off + two parameter names */
	btf_field_iter__init(&it, btf_type_mut(btf, i), BTF_FIELD_IDS);
	CHECK(btf_field_iter__next(&it) == NULL);
	d2b_btf__free(btf);
}

static void test_split_strings(void)
{
	struct d2b_btf *base = d2b_btf__new(NULL), *split;
	int in_base, off;

	REQUIRE(base);
	in_base = d2b_btf__add_str(base, "shared");
	d2b_btf__add_int(base, "int", 4, 0);
	split = d2b_btf__new(base);
	REQUIRE(split);
	CHECK_EQ(d2b_btf__start_id(split), 2);
	CHECK_EQ(d2b_btf__add_str(split, "shared"), in_base);	/* reuses the base string */
	off = d2b_btf__add_str(split, "own");
	CHECK((uint32_t)off >= btf_end_str(base));
	CHECK_STR(d2b_btf__str(split, off), "own");
	CHECK_STR(d2b_btf__name(split, 1), "int");
	d2b_btf__free(split);
	d2b_btf__free(base);
}

/* str_adder__add_many() gives d2b_btf__add_str()'s answers, in order, past one
 * batch: over a base through a memo (one slot for all, and many), with no
 * memo, and with no base; NULL and "" give 0, repeats their first answer */
static void add_strs_case(const struct d2b_btf *base, unsigned int order)
{
	static const char *const names[] = {
		"b0", "own0", NULL, "b1", "", "own1", "b0", "b2", "own0", "b3", "own2",
		"b4", "b5", "own3", "b6", "b1", "b7", "own4", "b8", "b9", "own1", "b10",
		"b11", "own5", "b12", "b0", "own6", "b13", "b14", "own0", "b15",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	struct d2b_btf *one = d2b_btf__new(base), *all = d2b_btf__new(base);
	struct str_memo *m1 = str_memo__new(order), *m2 = str_memo__new(order);
	struct str_adder a1, a2;
	uint32_t offs[N];
	size_t i;
	int want;

	REQUIRE(one && all && m1 && m2);
	str_adder__init(&a1, one);
	str_adder__init(&a2, all);
	if (base && order) {
		CHECK_EQ(str_adder__use_base_memo(&a1, m1), 0);
		CHECK_EQ(str_adder__use_base_memo(&a2, m2), 0);
	}
	CHECK_EQ(str_adder__add_many(&a2, names, offs, N), 0);
	for (i = 0; i < N; i++) {
		want = str_adder__add(&a1, names[i]);
		CHECK_EQ(offs[i], (uint32_t)want);
		if (names[i] && *names[i])
			CHECK_STR(d2b_btf__str(all, offs[i]), names[i]);
		else
			CHECK_EQ(offs[i], 0);
	}
	CHECK_EQ(btf_end_str(all), btf_end_str(one));
	CHECK_EQ(str_adder__add_many(&a2, names, offs, 0), 0);
	d2b_btf__free(one);
	d2b_btf__free(all);
	str_memo__free(m1);
	str_memo__free(m2);
}

static void test_add_strs(void)
{
	struct d2b_btf *base = d2b_btf__new(NULL);
	char name[8];
	int i;

	REQUIRE(base);
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		CHECK(d2b_btf__add_str(base, name) > 0);
	}
	add_strs_case(base, 1);		/* (order 1: two slots, shared) */
	add_strs_case(base, 10);
	add_strs_case(base, 0);		/* (no memo set) */
	add_strs_case(NULL, 0);
	d2b_btf__free(base);
}

/*
 * The builders of a name already added (btf_add_*_off()): a str_adder's
 * error is returned as it is, no name where one is wanted is -EINVAL, and
 * what they build is what d2b_btf__add_*() builds of the same name.
 */
static void test_add_off(void)
{
	struct d2b_btf *a = d2b_btf__new(NULL), *b = d2b_btf__new(NULL);
	void *ra = NULL, *rb = NULL;
	size_t na = 0, nb = 0;
	int s;

	REQUIRE(a && b);
	CHECK_EQ(btf_add_int_off(a, -ENOMEM, 4, D2B_INT_SIGNED), -ENOMEM);
	CHECK_EQ(btf_add_ref_off(a, D2B_KIND_TYPEDEF, -E2BIG, 1), -E2BIG);
	CHECK_EQ(btf_add_fwd_off(a, 0, false), -EINVAL);
	CHECK_EQ(btf_add_func_off(a, 0, D2B_LINKAGE_GLOBAL, 0), -EINVAL);
	CHECK_EQ(btf_add_ref_off(a, D2B_KIND_CONST, d2b_btf__add_str(a, "c"), 0), -EINVAL);
	CHECK_EQ(d2b_btf__nr_types(a), 0);
	s = d2b_btf__add_str(a, "c");	/* (b adds it first too) */
	CHECK_EQ(d2b_btf__add_str(b, "c"), s);
	CHECK_EQ(btf_add_int_off(a, d2b_btf__add_str(a, "int"), 4, D2B_INT_SIGNED), 1);
	CHECK_EQ(d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED), 1);
	CHECK_EQ(btf_add_enum_off(a, D2B_KIND_ENUM, d2b_btf__add_str(a, "e"), 4, false), 2);
	CHECK_EQ(d2b_btf__add_enum(b, "e", 4, false), 2);
	CHECK_EQ(btf_add_enum_value_off(a, d2b_btf__add_str(a, "E1"), 7), 0);
	CHECK_EQ(d2b_btf__add_enum_value(b, "E1", 7), 0);
	CHECK_EQ(btf_add_composite_off(a, D2B_KIND_STRUCT, 0, 4), 3);
	CHECK_EQ(d2b_btf__add_composite(b, D2B_KIND_STRUCT, NULL, 4), 3);
	CHECK_EQ(btf_add_ref_off(a, D2B_KIND_TYPEDEF, d2b_btf__add_str(a, "t"), 3), 4);
	CHECK_EQ(d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, "t", 3), 4);
	CHECK_EQ(d2b_btf__encode(a, &ra, &na), 0);
	CHECK_EQ(d2b_btf__encode(b, &rb, &nb), 0);
	CHECK(ra && rb && na == nb && !memcmp(ra, rb, na));
	free(ra);
	free(rb);
	d2b_btf__free(a);
	d2b_btf__free(b);
}

/* The target's pointer size: set, used by resolve_size, inherited by a
 * split BTF, and inferred from 'long' when raw bytes are read back. */
static void test_pointer_size(void)
{
	struct d2b_btf *btf = d2b_btf__new(NULL), *split = NULL, *back = NULL, *nolong = NULL;
	int i_int, i_ptr, i_arr, i_td;
	void *data = NULL;
	size_t size;

	REQUIRE(btf);
	CHECK_EQ(d2b_btf__pointer_size(btf), sizeof(void *));	/* nothing says: the host's */
	CHECK_EQ(d2b_btf__set_pointer_size(btf, 2), -EINVAL);
	CHECK_EQ(d2b_btf__set_pointer_size(btf, 4), 0);
	CHECK_EQ(d2b_btf__pointer_size(btf), 4);
	i_int = d2b_btf__add_int(btf, "int", 4, D2B_INT_SIGNED);
	i_ptr = d2b_btf__add_ref(btf, D2B_KIND_PTR, NULL, i_int);
	i_arr = d2b_btf__add_array(btf, i_ptr, i_int, 3);
	i_td = d2b_btf__add_ref(btf, D2B_KIND_TYPEDEF, "intp", i_ptr);
	CHECK_EQ(d2b_btf__resolve_size(btf, i_ptr), 4);
	CHECK_EQ(d2b_btf__resolve_size(btf, i_arr), 12);
	CHECK_EQ(d2b_btf__resolve_size(btf, i_td), 4);
	CHECK_EQ(d2b_btf__set_pointer_size(btf, 8), 0);
	CHECK_EQ(d2b_btf__resolve_size(btf, i_arr), 24);

	/* a split BTF starts with its base's data model */
	d2b_btf__set_pointer_size(btf, 4);
	d2b_btf__set_endian(btf, D2B_ENDIAN_BIG);
	split = d2b_btf__new(btf);
	REQUIRE(split);
	CHECK_EQ(d2b_btf__pointer_size(split), 4);
	CHECK_EQ(d2b_btf__endian(split), D2B_ENDIAN_BIG);

	/* raw bytes do not record it: without a 'long', the host's ... */
	REQUIRE(d2b_btf__encode(btf, &data, &size) == 0);
	REQUIRE(d2b_btf__parse_raw(data, size, NULL, &nolong, NULL, 0) == 0);
	CHECK_EQ(d2b_btf__pointer_size(nolong), sizeof(void *));
	CHECK_EQ(d2b_btf__endian(nolong), D2B_ENDIAN_BIG);
	free(data);
	/* ... with one, its size (libbpf's rule) */
	CHECK(d2b_btf__add_int(btf, "long unsigned int", 4, 0) > 0);
	REQUIRE(d2b_btf__encode(btf, &data, &size) == 0);
	REQUIRE(d2b_btf__parse_raw(data, size, NULL, &back, NULL, 0) == 0);
	CHECK_EQ(d2b_btf__pointer_size(back), 4);
	CHECK_EQ(d2b_btf__resolve_size(back, i_arr), 12);
	free(data);
	d2b_btf__free(back);
	d2b_btf__free(nolong);
	d2b_btf__free(split);
	d2b_btf__free(btf);
}

/*
 * kind_flag member offsets have 24 bits: a member that cannot be encoded
 * is refused with -E2BIG before anything is added (it once spilled into
 * the bitfield size, or was half added).
 */
static void test_member_offset_limit(void)
{
	struct d2b_btf *b = d2b_btf__new(NULL);
	const struct d2b_type *t;
	int i, s;

	REQUIRE(b);
	i = d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	s = d2b_btf__add_composite(b, D2B_KIND_STRUCT, "after_bitfield", 1 << 22);
	CHECK_EQ(d2b_btf__add_member(b, "bf", i, 0, 3), 0);
	CHECK_EQ(d2b_btf__add_member(b, "far", i, 1u << 24, 0), -E2BIG);
	t = d2b_btf__type(b, s);
	CHECK_EQ(d2b_vlen(t), 1);
	s = d2b_btf__add_composite(b, D2B_KIND_STRUCT, "before_bitfield", 1 << 22);
	CHECK_EQ(d2b_btf__add_member(b, "far", i, 1u << 24, 0), 0);
	CHECK_EQ(d2b_btf__add_member(b, "bf", i, 1u << 24 | 32, 3), -EINVAL);
	CHECK_EQ(d2b_btf__add_member(b, "bf", i, 32, 3), -E2BIG);
	t = d2b_btf__type(b, s);
	CHECK_EQ(d2b_vlen(t), 1);
	CHECK(!d2b_kflag(t));
	CHECK_EQ(btf_members(t)[0].offset, 1u << 24);
	CHECK_EQ(d2b_btf__verify(b, 0, NULL, NULL), 0);
	d2b_btf__free(b);
}

int main(void)
{
	RUN(test_hmap);
	RUN(test_hmap_forced_collisions);
	RUN(test_hmap_values);
	RUN(test_hmap_grow_order);
	RUN(test_hmap_clear);
	RUN(test_hash_bytes);
	RUN(test_str_memo);
	RUN(test_ptr_cache);
	RUN(test_pages);
	RUN(test_pages_behind);
	RUN(test_pages_zalloc);
	RUN(test_names_base);
	RUN(test_names_base_unique);
	RUN(test_names_base_tails_merge);
	RUN(test_names_base_own_past_limit);
	RUN(test_strtab);
	RUN(test_builder_kinds);
	RUN(test_reserve_define);
	RUN(test_field_iter);
	RUN(test_split_strings);
	RUN(test_add_strs);
	RUN(test_add_off);
	RUN(test_pointer_size);
	RUN(test_member_offset_limit);
	return test_done();
}
