// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for a base's index made once and kept in a cache: digest64()
 * (lib/base/digest.c), cache entries (lib/base/cache_file.c), the index
 * (lib/merge/base_index.c) and d2b_btf__load_base() (lib/merge/base_cache.c,
 * over lib/btf/btf_cache.c).
 * The entries are damaged, cut, made by "another" dwarf2btf and written to
 * where they cannot be, and each time the base must come back with the
 * index a fresh one has.  tests/basecache/run.sh converts over such bases.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "base/cache_file.h"
#include "base/digest.h"
#include "btf/btf.h"
#include "merge/base_index.h"
#include "test.h"

static char dir[] = "/tmp/d2b-test-base-cache-XXXXXX";

static const char *path_of(const char *name)
{
	static char path[300];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* rm -r dir/sub (one level: what these tests make) */
static void clear_dir(const char *sub)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", dir, sub);
	CHECK(system(cmd) == 0);
}

static int count_files(const char *sub)
{
	char cmd[400];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s/%s' 2>/dev/null | wc -l", dir, sub);
	f = popen(cmd, "r");
	if (f && fscanf(f, "%d", &n) != 1)
		n = -1;
	if (f)
		pclose(f);
	return n;
}

/* ---- digest64 ---- */

static void test_digest_pieces(void)
{
	unsigned char buf[1000];
	size_t i, cuts[] = { 0, 1, 7, 8, 63, 64, 65, 127, 128, 500, 999, 1000 };
	uint64_t whole;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	whole = digest64(buf, sizeof(buf), 0);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct digest d;
		size_t c = cuts[i], j;

		digest__init(&d, 0);
		digest__add(&d, buf, c);
		/* the rest in pieces of 3 */
		for (j = c; j < sizeof(buf); j += 3)
			digest__add(&d, buf + j, sizeof(buf) - j < 3 ? sizeof(buf) - j : 3);
		CHECK(digest__final(&d) == whole);
	}
	CHECK(digest64(buf, sizeof(buf), 1) != whole);
}

static void test_digest_sensitive(void)
{
	unsigned char buf[300] = { 0 };
	uint64_t h0 = digest64(buf, 200, 0);
	size_t bit;

	/* every bit of the first 200 bytes, and the trailing zeros */
	for (bit = 0; bit < 200 * 8; bit++) {
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		CHECK(digest64(buf, 200, 0) != h0);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	CHECK(digest64(buf, 201, 0) != h0);
	CHECK(digest64(buf, 199, 0) != h0);
	CHECK(digest64(buf, 0, 0) != digest64(buf, 1, 0));
}

/*
 * The digest names cache entries: a change to it must come with a new
 * cache format (merge/base_index.h's BASE_CACHE_FORMAT), and this test says so.
 */
static void test_digest_pinned(void)
{
	CHECK(digest64("", 0, 0) == 0xf24018814a6a077dULL || (printf("# \"\": 0x%016llx\n",
		(unsigned long long)digest64("", 0, 0)), 0));
	CHECK(digest64("dwarf2btf", 9, 0) == 0xaf50fb76a2dc6ef1ULL || (printf("# dwarf2btf: 0x%016llx\n",
		(unsigned long long)digest64("dwarf2btf", 9, 0)), 0));
}

/* ---- cache_file ---- */

static const char sec_a[] = "first section";
static unsigned char sec_b[70000];

static int write_entry(const char *sub, const char *name, uint32_t version)
{
	struct cache_section sec[3] = {
		{ sec_a, sizeof(sec_a) }, { NULL, 0 }, { sec_b, sizeof(sec_b) },
	};
	char why[128];

	return cache_file__write(path_of(sub), name, version, sec, 3, "e-", 3, why, sizeof(why));
}

static void test_cache_file_roundtrip(void)
{
	struct cache_file cf;
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(sec_b); i++)
		sec_b[i] = (unsigned char)(i ^ (i >> 8));
	clear_dir("rt");
	REQUIRE(write_entry("rt/deeper", "e-1", 7) == 0);
	/* (made, the last directory the user's own) */
	REQUIRE(stat(path_of("rt/deeper"), &st) == 0);
	CHECK_EQ(st.st_mode & 0777, 0700);
	REQUIRE(cache_file__open(&cf, path_of("rt/deeper"), "e-1", 7, NULL, 0) == 0);
	CHECK_EQ(cf.nr, 3);
	CHECK_EQ(cf.sec[0].size, sizeof(sec_a));
	CHECK(!memcmp(cf.sec[0].data, sec_a, sizeof(sec_a)));
	CHECK_EQ(cf.sec[1].size, 0);
	CHECK_EQ(cf.sec[2].size, sizeof(sec_b));
	CHECK(!memcmp(cf.sec[2].data, sec_b, sizeof(sec_b)));
	for (i = 0; i < 3; i++)
		CHECK_EQ(((uintptr_t)cf.sec[i].data - (uintptr_t)cf.map) % CACHE_ALIGN, 0);
	cache_file__close(&cf);
	/* no temporary file left */
	CHECK_EQ(count_files("rt/deeper"), 1);
	CHECK_EQ(cache_file__open(&cf, path_of("rt/deeper"), "e-2", 7, NULL, 0), -ENOENT);
	cache_file__close(&cf);
}

/* Change the byte at off of dir/sub/name (off < 0: from the end) to v, or
 * cut the file to len when off is LONG_MIN. */
static void poke(const char *sub_name, long off, int v)
{
	int fd = open(path_of(sub_name), O_RDWR);
	unsigned char c = (unsigned char)v;
	struct stat st;

	REQUIRE(fd >= 0 && fstat(fd, &st) == 0);
	if (off < 0)
		off += st.st_size;
	CHECK(pwrite(fd, &c, 1, off) == 1);
	close(fd);
}

/* Is the entry refused as damaged, with a reason? */
static void check_refused(const char *sub, const char *name, uint32_t version, const char *why_has)
{
	struct cache_file cf;
	char why[128] = "";

	CHECK_EQ(cache_file__open(&cf, path_of(sub), name, version, why, sizeof(why)), -EBADMSG);
	CHECK(strstr(why, why_has) != NULL || (printf("#   why: %s\n", why), 0));
	CHECK(cf.map == NULL);
	cache_file__close(&cf);
}

static void test_cache_file_damaged(void)
{
	char p[300];

	clear_dir("dmg");
	/* a byte of the payload */
	REQUIRE(write_entry("dmg", "e-1", 1) == 0);
	poke("dmg/e-1", 300, 0x5a);
	check_refused("dmg", "e-1", 1, "digest");
	/* the last byte */
	REQUIRE(write_entry("dmg", "e-1", 1) == 0);
	poke("dmg/e-1", -1, 0xff);
	check_refused("dmg", "e-1", 1, "digest");
	/* the header's section table */
	REQUIRE(write_entry("dmg", "e-1", 1) == 0);
	poke("dmg/e-1", 40, 0x7f);
	check_refused("dmg", "e-1", 1, "header");
	/* another format version */
	REQUIRE(write_entry("dmg", "e-1", 2) == 0);
	check_refused("dmg", "e-1", 1, "version");
	/* cut short, grown */
	REQUIRE(write_entry("dmg", "e-1", 1) == 0);
	snprintf(p, sizeof(p), "%s", path_of("dmg/e-1"));
	REQUIRE(truncate(p, 1000) == 0);
	check_refused("dmg", "e-1", 1, "cut short");
	REQUIRE(write_entry("dmg", "e-1", 1) == 0);
	REQUIRE(truncate(p, 70000 + 4096) == 0);
	check_refused("dmg", "e-1", 1, "grown");
	/* not ours at all, and too small to be */
	REQUIRE(truncate(p, 0) == 0);
	check_refused("dmg", "e-1", 1, "header's size");
	REQUIRE(truncate(p, 4096) == 0);
	check_refused("dmg", "e-1", 1, "not a dwarf2btf cache entry");
	/* written again: whole */
	REQUIRE(write_entry("dmg", "e-1", 1) == 0);
	{
		struct cache_file cf;

		CHECK_EQ(cache_file__open(&cf, path_of("dmg"), "e-1", 1, NULL, 0), 0);
		cache_file__close(&cf);
	}
}

static void set_mtime(const char *sub_name, time_t t)
{
	struct timeval tv[2] = { { t, 0 }, { t, 0 } };

	CHECK(utimes(path_of(sub_name), tv) == 0);
}

static void test_cache_file_evicts(void)
{
	struct cache_file cf;
	char name[32];
	int i, fd;

	clear_dir("ev");
	for (i = 1; i <= 3; i++) {
		snprintf(name, sizeof(name), "e-%d", i);
		REQUIRE(write_entry("ev", name, 1) == 0);
		snprintf(name, sizeof(name), "ev/e-%d", i);
		set_mtime(name, 1000000 + i * 10);
	}
	/* e-1 used last: the most recent */
	REQUIRE(cache_file__open(&cf, path_of("ev"), "e-1", 1, NULL, 0) == 0);
	cache_file__close(&cf);
	/* someone else's file, and a writer's temporary file: never removed */
	fd = open(path_of("ev/other"), O_CREAT | O_WRONLY, 0600);
	close(fd);
	set_mtime("ev/other", 1);
	REQUIRE(write_entry("ev", "e-4", 1) == 0);
	/* kept: the 3 most recently used, e-4, e-1, e-3 */
	CHECK(access(path_of("ev/e-4"), F_OK) == 0);
	CHECK(access(path_of("ev/e-1"), F_OK) == 0);
	CHECK(access(path_of("ev/e-3"), F_OK) == 0);
	CHECK(access(path_of("ev/e-2"), F_OK) != 0);
	CHECK(access(path_of("ev/other"), F_OK) == 0);
}

static void test_cache_file_unwritable(void)
{
	struct cache_section sec = { sec_a, sizeof(sec_a) };
	char why[128] = "";
	int fd;

	clear_dir("file");
	fd = open(path_of("file"), O_CREAT | O_WRONLY, 0600);
	close(fd);
	CHECK(cache_file__write(path_of("file/sub"), "e-1", 1, &sec, 1, "e-", 3, why,
				sizeof(why)) < 0);
	CHECK(strstr(why, "directory") != NULL);
	unlink(path_of("file"));
}

/* ---- d2b_btf__load_base ---- */

/* A base of some thousands of types of every kind the index looks at, in
 * the byte order asked for, written raw to dir/name. */
static void write_base(const char *name, enum d2b_endian order, const char *tweak)
{
	struct d2b_btf *b = d2b_btf__new(NULL);
	int i, in, ch, prev = 0, arr, e;
	char s[64];

	REQUIRE(b);
	d2b_btf__set_endian(b, order);
	in = d2b_btf__add_int(b, "int", 4, D2B_INT_SIGNED);
	ch = d2b_btf__add_int(b, "char", 1, D2B_INT_CHAR);
	d2b_btf__add_int(b, "long int", 8, D2B_INT_SIGNED);
	arr = d2b_btf__add_array(b, in, in, 4);
	arr = d2b_btf__add_array(b, arr, in, 3);	/* nested: chained_arrays */
	for (i = 0; i < 600; i++) {
		int st, p, c, td, fp, fn;

		snprintf(s, sizeof(s), "s%d%s", i, i == 300 && tweak ? tweak : "");
		st = d2b_btf__add_composite(b, i % 5 ? D2B_KIND_STRUCT : D2B_KIND_UNION, s, 24);
		d2b_btf__add_member(b, "a", in, 0, 0);
		d2b_btf__add_member(b, "b", prev ? prev : ch, 64, 0);
		d2b_btf__add_member(b, "c", arr, 128, 0);
		p = d2b_btf__add_ref(b, D2B_KIND_PTR, NULL, st);
		c = d2b_btf__add_ref(b, D2B_KIND_CONST, NULL, p);
		snprintf(s, sizeof(s), "t%d", i);
		td = d2b_btf__add_ref(b, D2B_KIND_TYPEDEF, s, c);
		fp = d2b_btf__add_func_proto(b, in);
		d2b_btf__add_param(b, "x", td);
		snprintf(s, sizeof(s), "f%d", i);
		fn = d2b_btf__add_func(b, s, D2B_LINKAGE_GLOBAL, fp);
		(void)fn;
		if (i % 7 == 0) {
			snprintf(s, sizeof(s), "e%d", i);
			e = d2b_btf__add_enum(b, s, 4, false);
			d2b_btf__add_enum_value(b, "V", i);
			snprintf(s, sizeof(s), "fw%d", i);
			d2b_btf__add_fwd(b, s, false);
		}
		prev = p;
	}
	(void)e;
	CHECK(d2b_btf__write_raw(b, path_of(name), NULL, 0) == 0);
	d2b_btf__free(b);
}

/*
 * Does map a give, for every key of map b, b's values in b's order?  (a
 * may be frozen: other slots, the same answers.)  Same number of entries.
 */
static void check_same_answers(const struct hmap *a, const struct hmap *b)
{
	size_t i;

	CHECK_EQ(a->len, b->len);
	for (i = 0; i < b->cap; i++) {
		struct hmap_iter ia, ib;
		uint64_t va, vb;
		bool more;

		if (!b->slots[i].val)
			continue;
		hmap__iter_init(a, b->slots[i].key, &ia);
		hmap__iter_init(b, b->slots[i].key, &ib);
		do {
			more = hmap__next(b, &ib, &vb);
			CHECK_EQ(hmap__next(a, &ia, &va), more);
			if (more && va != vb) {
				CHECK_EQ(va, vb);
				return;
			}
		} while (more);
	}
}

/* Does btf's index give what a fresh index of it gives, entry for entry? */
static void check_index(const struct d2b_btf *btf)
{
	const struct base_index *bi = base_index__of(btf);
	struct base_index *fresh = NULL;
	int k;

	REQUIRE(bi);
	REQUIRE(base_index__make(btf, &fresh) == 0);
	REQUIRE(!fresh->map.frozen);
	check_same_answers(&bi->map, &fresh->map);
	check_same_answers(&bi->names, &fresh->names);
	/* (the exact index ends after the base's last type: none refers further) */
	CHECK(fresh->meta.over_cap == d2b_btf__end_id(btf));
	for (k = 0; k < NR_OVER; k++) {
		size_t i;

		for (i = 0; i < fresh->over.cap; i++)
			CHECK_EQ(over_index_find(&bi->over, k, (uint32_t)i),
				 i < fresh->meta.over_cap ? fresh->over.first[k][i] : 0);
	}
	CHECK(bi->chained_arrays == fresh->chained_arrays);
	CHECK(bi->chained_arrays);
	CHECK(base_index__check(bi, btf) == 0);
	base_index__free(fresh);
}

/* d2b_btf__load_base(dir/name) through dir/cache: what the cache did */
static int load(const char *name, const char *cache, struct d2b_btf **ret)
{
	char err[256] = "x", cdir[300];
	int r;

	snprintf(cdir, sizeof(cdir), "%s", cache ? path_of(cache) : "");
	r = d2b_btf__load_base(path_of(name), cache ? cdir : NULL, ret, err, sizeof(err));
	if (r < 0)
		printf("#   %s: %s\n", name, err);
	else
		CHECK_STR(err, "");
	return r;
}

/* The encoded bytes of btf are those of the parse of dir/name. */
static void check_same_types(const struct d2b_btf *btf, const char *name)
{
	struct d2b_btf *ref = NULL;
	void *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;

	REQUIRE(d2b_btf__load_file(path_of(name), NULL, &ref, NULL, 0) == 0);
	CHECK(d2b_btf__encode(btf, &a, &na) == 0);
	CHECK(d2b_btf__encode(ref, &b, &nb) == 0);
	CHECK(na == nb && a && b && !memcmp(a, b, na));
	CHECK_EQ(d2b_btf__pointer_size(btf), d2b_btf__pointer_size(ref));
	free(a);
	free(b);
	d2b_btf__free(ref);
}

static void test_load_base_cached(void)
{
	struct d2b_btf *btf = NULL;

	clear_dir("lb");
	write_base("base.btf", D2B_ENDIAN_NATIVE, NULL);
	CHECK_EQ(load("base.btf", NULL, &btf), D2B_BASE_CACHE_NONE);
	check_index(btf);
	d2b_btf__free(btf);
	CHECK_EQ(load("base.btf", "lb", &btf), D2B_BASE_CACHE_MADE);
	check_index(btf);
	check_same_types(btf, "base.btf");
	d2b_btf__free(btf);
	CHECK_EQ(count_files("lb"), 1);
	CHECK_EQ(load("base.btf", "lb", &btf), D2B_BASE_CACHE_HIT);
	check_index(btf);
	check_same_types(btf, "base.btf");
	CHECK_STR(d2b_btf__str(btf, d2b_btf__type(btf, 1)->name_off), "int");
	/* what a caller may do with a base it loaded: add to it (copied first) */
	CHECK(d2b_btf__add_int(btf, "added", 2, 0) > 0);
	CHECK(d2b_btf__add_str(btf, "a new string") > 0);
	CHECK_STR(d2b_btf__str(btf, d2b_btf__type(btf, d2b_btf__end_id(btf) - 1)->name_off), "added");
	CHECK_STR(d2b_btf__str(btf, d2b_btf__type(btf, 1)->name_off), "int");
	d2b_btf__free(btf);
	/* other bytes, another entry */
	write_base("base2.btf", D2B_ENDIAN_NATIVE, "x");
	CHECK_EQ(load("base2.btf", "lb", &btf), D2B_BASE_CACHE_MADE);
	check_same_types(btf, "base2.btf");
	d2b_btf__free(btf);
	CHECK_EQ(count_files("lb"), 2);
	CHECK_EQ(load("base.btf", "lb", &btf), D2B_BASE_CACHE_HIT);
	d2b_btf__free(btf);
}

/* The one entry in dir/sub, by name */
static const char *entry_of(const char *sub)
{
	static char name[200];
	char cmd[400];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls '%s/%s'", dir, sub);
	f = popen(cmd, "r");
	name[0] = 0;
	if (f && !fgets(name, sizeof(name), f))
		name[0] = 0;
	if (f)
		pclose(f);
	name[strcspn(name, "\n")] = 0;
	return name;
}

static void test_load_base_damaged(void)
{
	struct d2b_btf *btf = NULL;
	char sub_name[256];

	clear_dir("lbd");
	write_base("base.btf", D2B_ENDIAN_NATIVE, NULL);
	CHECK_EQ(load("base.btf", "lbd", &btf), D2B_BASE_CACHE_MADE);
	d2b_btf__free(btf);
	snprintf(sub_name, sizeof(sub_name), "lbd/%s", entry_of("lbd"));
	poke(sub_name, 5000, 0x42);
	CHECK_EQ(load("base.btf", "lbd", &btf), D2B_BASE_CACHE_REMADE);
	check_index(btf);
	d2b_btf__free(btf);
	CHECK_EQ(load("base.btf", "lbd", &btf), D2B_BASE_CACHE_HIT);
	d2b_btf__free(btf);
}

/* A byte changed anywhere in an entry (64 places spread over it, header
 * included), or the entry cut anywhere: never taken, the base as good. */
static void test_load_base_any_byte(void)
{
	struct d2b_btf *btf = NULL;
	char sub_name[256];
	struct stat st;
	long i, size;

	clear_dir("lba");
	write_base("base.btf", D2B_ENDIAN_NATIVE, NULL);
	CHECK_EQ(load("base.btf", "lba", &btf), D2B_BASE_CACHE_MADE);
	d2b_btf__free(btf);
	snprintf(sub_name, sizeof(sub_name), "lba/%s", entry_of("lba"));
	REQUIRE(stat(path_of(sub_name), &st) == 0);
	size = (long)st.st_size;
	for (i = 0; i < 64 && !test_failed_now; i++) {
		long off = i * (size - 1) / 63;
		int fd = open(path_of(sub_name), O_RDWR);
		unsigned char c = 0;

		REQUIRE(fd >= 0);
		CHECK(pread(fd, &c, 1, off) == 1);
		c ^= (unsigned char)(1u << (i % 8));
		CHECK(pwrite(fd, &c, 1, off) == 1);
		close(fd);
		/* (rewritten whole by the load that refuses it) */
		if (load("base.btf", "lba", &btf) != D2B_BASE_CACHE_REMADE)
			printf("#   byte %ld changed: taken\n", off);
		CHECK(btf && base_index__of(btf));
		d2b_btf__free(btf);
		btf = NULL;
		if (i % 8 == 0) {
			REQUIRE(truncate(path_of(sub_name), off) == 0);
			CHECK_EQ(load("base.btf", "lba", &btf), D2B_BASE_CACHE_REMADE);
			d2b_btf__free(btf);
			btf = NULL;
		}
	}
	CHECK_EQ(load("base.btf", "lba", &btf), D2B_BASE_CACHE_HIT);
	check_index(btf);
	d2b_btf__free(btf);
}

/*
 * An entry whole and undamaged, but not this dwarf2btf's: its index finds
 * nothing (as an index whose keys were made otherwise would), with its
 * digests made anew.  base_index__check() must refuse it.
 */
static void test_load_base_other_keys(void)
{
	struct cache_section sec[CACHE_MAX_SECTIONS];
	struct cache_file cf;
	struct d2b_btf *btf = NULL;
	char name[300];
	void *copy;
	unsigned int i;

	clear_dir("lbk");
	write_base("base.btf", D2B_ENDIAN_NATIVE, NULL);
	CHECK_EQ(load("base.btf", "lbk", &btf), D2B_BASE_CACHE_MADE);
	d2b_btf__free(btf);
	snprintf(name, sizeof(name), "%s", entry_of("lbk"));
	REQUIRE(cache_file__open(&cf, path_of("lbk"), name, BASE_CACHE_FORMAT, NULL, 0) == 0);
	for (i = 0; i < cf.nr; i++)
		sec[i] = cf.sec[i];
	/* section 4: the type index's slots (btf_cache.c's SEC_EXT + 1) */
	copy = calloc(1, sec[4].size);
	REQUIRE(copy);
	sec[4].data = copy;
	CHECK(cache_file__write(path_of("lbk"), name, BASE_CACHE_FORMAT, sec, cf.nr, "base-", 8,
				NULL, 0) == 0);
	cache_file__close(&cf);
	free(copy);
	CHECK_EQ(load("base.btf", "lbk", &btf), D2B_BASE_CACHE_REMADE);
	check_index(btf);
	d2b_btf__free(btf);
}

static void test_load_base_not_cached(void)
{
	struct d2b_btf *btf = NULL;
	int fd;

	clear_dir("lbn");
	clear_dir("nodir");
	/* another byte order: read, indexed, not cached */
	write_base("swapped.btf", __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? D2B_ENDIAN_BIG :
				  D2B_ENDIAN_LITTLE, NULL);
	CHECK_EQ(load("swapped.btf", "lbn", &btf), D2B_BASE_CACHE_NONE);
	check_index(btf);
	check_same_types(btf, "swapped.btf");
	d2b_btf__free(btf);
	CHECK_EQ(count_files("lbn"), 0);
	/* a cache where none can be written */
	write_base("base.btf", D2B_ENDIAN_NATIVE, NULL);
	fd = open(path_of("nodir"), O_CREAT | O_WRONLY, 0600);
	close(fd);
	CHECK_EQ(load("base.btf", "nodir/cache", &btf), D2B_BASE_CACHE_UNWRITABLE);
	check_index(btf);
	d2b_btf__free(btf);
	unlink(path_of("nodir"));
	/* errors are d2b_btf__load_file()'s */
	{
		char e1[256] = "", e2[256] = "", p[300];
		struct d2b_btf *x = NULL;


		snprintf(p, sizeof(p), "%s", path_of("missing"));
		CHECK(d2b_btf__load_base(p, path_of("lbn"), &x, e1, sizeof(e1)) == -ENOENT);
		CHECK(d2b_btf__load_file(path_of("missing"), NULL, &x, e2, sizeof(e2)) == -ENOENT);
		CHECK_STR(e1, e2);
		fd = open(path_of("junk"), O_CREAT | O_WRONLY, 0600);
		CHECK(write(fd, "\x9f\xeb\x01\x00", 4) == 4);
		close(fd);
		snprintf(p, sizeof(p), "%s", path_of("junk"));
		CHECK(d2b_btf__load_base(p, path_of("lbn"), &x, e1, sizeof(e1)) < 0);
		CHECK(d2b_btf__load_file(path_of("junk"), NULL, &x, e2, sizeof(e2)) < 0);
		CHECK_STR(e1, e2);
		CHECK(x == NULL);
	}
}

/* Runs that start at once over an empty cache: each gets the base, and
 * one whole entry is left (no temporary file). */
static void test_load_base_concurrent(void)
{
	enum { RUNS = 6 };
	pid_t pid[RUNS];
	int i, status, ok = 0;

	clear_dir("lbc");
	write_base("base.btf", D2B_ENDIAN_NATIVE, NULL);
	fflush(stdout);
	for (i = 0; i < RUNS; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct d2b_btf *btf = NULL;
			char base[300];
			int r;

			snprintf(base, sizeof(base), "%s", path_of("base.btf"));
			r = d2b_btf__load_base(base, path_of("lbc"), &btf, NULL, 0);

			_exit(r >= 0 && btf && base_index__of(btf) ? 0 : 1);
		}
	}
	for (i = 0; i < RUNS; i++)
		ok += pid[i] > 0 && waitpid(pid[i], &status, 0) == pid[i] && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0;
	CHECK_EQ(ok, RUNS);
	CHECK_EQ(count_files("lbc"), 1);
	{
		struct d2b_btf *btf = NULL;

		CHECK_EQ(load("base.btf", "lbc", &btf), D2B_BASE_CACHE_HIT);
		d2b_btf__free(btf);
	}
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("FAIL setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	RUN(test_digest_pieces);
	RUN(test_digest_sensitive);
	RUN(test_digest_pinned);
	RUN(test_cache_file_roundtrip);
	RUN(test_cache_file_damaged);
	RUN(test_cache_file_evicts);
	RUN(test_cache_file_unwritable);
	RUN(test_load_base_cached);
	RUN(test_load_base_damaged);
	RUN(test_load_base_any_byte);
	RUN(test_load_base_other_keys);
	RUN(test_load_base_not_cached);
	RUN(test_load_base_concurrent);
	{
		char cmd[100];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# cannot remove %s\n", dir);
	}
	return test_done();
}
