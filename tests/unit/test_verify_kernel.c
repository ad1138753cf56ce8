// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * d2b_btf__verify against the running kernel: the verifier's verdict on a
 * raw BTF blob (d2b_btf__parse_raw, then d2b_btf__verify) must be the
 * kernel's (BPF_BTF_LOAD).
 *
 *	test_verify_kernel			the table, the samples, damage
 *	test_verify_kernel -n N [-s SEED] FILE...	each raw BTF FILE and N
 *						damaged copies of it (tests/mutate/
 *						run.sh gives it the fixtures' BTF;
 *						-n 0: the files alone, e.g. a fuzz
 *						corpus)
 *
 * (a) A table of hand-made blobs, one row per rule: each row builds its
 *     blob twice, once keeping the rule (both must accept) and once
 *     breaking it (both must refuse), except where the row says the
 *     verifier is stricter than the kernel on purpose (the kernel accepts
 *     the broken blob: the reason is in the row), or that kernels differ
 *     (older ones refuse: the kernel here may go either way).
 * (b) The btf_raw fuzz target's inputs: btfdump's samples
 *     (tests/tools/btf_samples.h; not the split ones, which the kernel
 *     takes only over their base) and tests/fuzz/regressions/{btf_raw,base}.
 * (c) Damaged copies of the table's and the samples' blobs (and of FILEs):
 *     a word of the type section (names, IDs, offsets, vlen, sizes), a
 *     byte of the strings or a field of the header changed.  Where the
 *     kernel refuses, so must the verifier (else the verifier is too loose:
 *     FAIL), unless the blob's sections are no longer end to end, which the
 *     parser takes and the encoder never writes (see canonical()); where
 *     only the verifier refuses, every reason it gives must be one of the
 *     rules the table calls stricter on purpose (else FAIL).
 *
 * The table and its blobs are in verify_kernel_rules.h.  SKIPs when the
 * kernel cannot be asked (not root, no bpf syscall).
 */
#include <errno.h>
#include <dirent.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "btf/btf.h"
#include "dwarf2btf.h"
#include "test.h"
#include "../tools/bpf_btf_load.h"
#include "../tools/btf_samples.h"

enum {
	KLOG_SIZE = 1 << 16,
	DAMAGE_PER_BLOB = 40,	/* damaged copies of each table and sample blob */
};

/* ---- asking the kernel ---- */

static char klog[KLOG_SIZE];

/* 1 accepted, 0 refused (klog: the kernel's last line), -errno: cannot ask */
static int kernel_accepts(const void *data, size_t size)
{
	char *nl;
	int fd;

	klog[0] = 0;
	fd = bpf_btf_load(data, size, klog, sizeof(klog), 1);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno == ENOSYS || errno == EPERM || errno == EACCES)
		return -errno;
	if (errno == ENOSPC) {	/* the log is too small: ask without one */
		fd = bpf_btf_load(data, size, NULL, 0, 0);
		if (fd >= 0) {
			close(fd);
			return 1;
		}
	}
	klog[sizeof(klog) - 1] = 0;
	while ((nl = strrchr(klog, '\n')) && !nl[1])
		*nl = 0;
	if ((nl = strrchr(klog, '\n')))
		memmove(klog, nl + 1, strlen(nl + 1) + 1);
	return 0;
}

/* ---- asking the verifier ---- */

struct verdict {
	bool refused;
	int n;
	char first[256];
	char why[8][256];	/* the first reasons */
};

static void collect(void *arg, uint32_t id, const char *msg)
{
	struct verdict *v = arg;

	(void)id;
	if (v->n < 8)
		snprintf(v->why[v->n], sizeof(v->why[0]), "%s", msg);
	if (v->n++ == 0)
		snprintf(v->first, sizeof(v->first), "%s", msg);
}

static void ours(const void *data, size_t size, struct verdict *v)
{
	struct d2b_btf *btf = NULL;
	char err[200];
	int r;

	memset(v, 0, sizeof(*v));
	r = d2b_btf__parse_raw(data, size, NULL, &btf, err, sizeof(err));
	if (r < 0) {
		v->refused = true;
		snprintf(v->first, sizeof(v->first), "parse: %s", err);
		snprintf(v->why[v->n++], sizeof(v->why[0]), "parse: %s", err);
		return;
	}
	r = d2b_btf__verify(btf, 0, collect, v);
	v->refused = r != 0;
	if (r < 0)
		snprintf(v->first, sizeof(v->first), "verify: error %d", r);
	d2b_btf__free(btf);
}

#include "verify_kernel_rules.h"

/* Reasons the verifier gives where it is stricter than the kernel on purpose */
static const char *const stricter[] = {
	"INT( '[^']*')?: size [0-9]+$",
	"'[^']*[\x80-\xff][^']*'[)]?: invalid name",	/* a Latin-1 letter */
	"'[^']{100}'[)]?: invalid name",		/* 511 bytes or more */
	"invalid section name",
	"a TYPE_TAG follows",		/* this kernel may not check it */
	"chain of more than",
	"unused info bits",
	"refers to FUNC",		/* one of a lower ID: the kernel takes it */
};

static int nfail;
static bool kernel_ok = true;
static char skip_why[128];

/* both verdicts on a blob; false if the kernel cannot be asked */
static bool judge(const void *data, size_t size, int *kernel, struct verdict *v)
{
	int k;

	if (!kernel_ok)
		return false;
	k = kernel_accepts(data, size);
	if (k < 0) {
		kernel_ok = false;
		snprintf(skip_why, sizeof(skip_why), "bpf(BPF_BTF_LOAD): %s%s", strerror(-k),
			 k == -ENOSYS ? "" : " (needs root or CAP_BPF)");
		return false;
	}
	*kernel = k;
	ours(data, size, v);
	return true;
}

static void test_rules(void)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]) && kernel_ok; i++) {
		const struct rule *r = &rules[i];
		struct blob *b = malloc(sizeof(*b));
		struct verdict vg, vb;
		int kg, kb, bad;
		void *d;
		size_t n;
		bool asked;

		for (bad = 0; bad <= 1; bad++) {
			blob_init(b);
			r->build(b, bad);
			d = blob_encode(b, &n);
			asked = judge(d, n, bad ? &kb : &kg, bad ? &vb : &vg);
			free(d);
			if (!asked)
				break;
		}
		free(b);
		if (!kernel_ok)
			break;
		if (!kg || vg.refused) {
			printf("FAIL verify_kernel/%s/kept: kernel %s (%s), verifier %s (%s)\n", r->name,
			       kg ? "accepts" : "refuses", kg ? "" : klog,
			       vg.refused ? "refuses" : "accepts", vg.first);
			nfail++;
		} else if (r->kernel == OLDER_REFUSE ? vb.refused : !vb.refused) {
			printf("FAIL verify_kernel/%s/broken: the verifier %s it (%s)\n", r->name,
			       vb.refused ? "refuses" : "accepts", vb.first);
			nfail++;
		} else if (r->kernel == REFUSES && kb) {
			printf("FAIL verify_kernel/%s/broken: the kernel accepts it: not a rule\n",
			       r->name);
			nfail++;
		} else if (r->kernel == ACCEPTS && !kb) {
			printf("FAIL verify_kernel/%s/broken: the kernel refuses it too: not stricter "
			       "than the kernel (%s)\n", r->name, klog);
			nfail++;
		} else {
			printf("PASS verify_kernel/%s%s%s%s%s%s\n", r->name,
			       r->kernel == REFUSES ? "" : " (this kernel ",
			       r->kernel == REFUSES ? "" : kb ? "accepts" : "refuses",
			       r->kernel == REFUSES ? "" : " the broken blob: ",
			       r->kernel == REFUSES ? "" : r->why, r->kernel == REFUSES ? "" : ")");
		}
	}
}

/* Is every reason the verifier gave one of the stricter-on-purpose rules? */
static bool explained(const struct verdict *v)
{
	static regex_t re[sizeof(stricter) / sizeof(stricter[0])];
	static bool compiled;
	int i;
	size_t j;

	if (!compiled) {
		for (j = 0; j < sizeof(stricter) / sizeof(stricter[0]); j++)
			if (regcomp(&re[j], stricter[j], REG_EXTENDED | REG_NOSUB))
				abort();
		compiled = true;
	}
	if (v->n == 0 || v->n > 8)
		return false;
	for (i = 0; i < v->n; i++) {
		bool ok = false;

		for (j = 0; j < sizeof(stricter) / sizeof(stricter[0]) && !ok; j++)
			ok = !regexec(&re[j], v->why[i], 0, NULL, 0);
		if (!ok)
			return false;
	}
	return true;
}

/* xorshift: the damage depends on the seed alone */
static uint64_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n ? (uint32_t)(rnd_state % n) : 0;
}

/* One change to a copy of a blob: a word of the types, or a byte of the
 * strings.  IDs and offsets stay near the values blobs hold. */
static void damage(uint8_t *d, size_t size)
{
	struct d2b_header hh, *h = &hh;
	uint32_t ntw, w, nt;
	uint8_t *at;

	if (size < sizeof(*h) + 4)
		return;
	memcpy(h, d, sizeof(*h));
	ntw = h->type_len / 4;
	if ((uint64_t)h->hdr_len + h->type_off + h->type_len > size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > size)
		return;		/* a damaged header: leave the rest */
	if (rnd(16) == 0) {	/* a header field: flags, lengths, offsets */
		uint32_t f;

		at = d + 4 * rnd(sizeof(*h) / 4);
		memcpy(&f, at, 4);
		f = rnd(2) ? f + (rnd(2) ? 4 : (uint32_t)-4) : f ^ 1u << rnd(32);
		memcpy(at, &f, 4);
		return;
	}
	if (!ntw && h->str_len < 2)
		return;		/* nothing to damage */
	if (!ntw || (h->str_len > 1 && rnd(5) == 0)) {
		uint8_t *s = d + h->hdr_len + h->str_off + 1 + rnd(h->str_len - 1);
		const char set[] = "`~!@#$%^&*()-+=:;<> 0123456789_.aZ\x7f\xe9";

		*s = rnd(4) ? (uint8_t)set[rnd(sizeof(set) - 1)] : (uint8_t)rnd(256);
		return;
	}
	at = d + h->hdr_len + h->type_off + 4 * rnd(ntw);
	memcpy(&w, at, 4);
	nt = ntw / 3 + 2;
	switch (rnd(9)) {
	case 0: w = rnd(nt); break;				/* an ID */
	case 1: w += rnd(2) ? 1 : (uint32_t)-1; break;
	case 2: w ^= 1u << rnd(32); break;
	case 3: w = rnd(64); break;
	case 4: w = (uint32_t)rnd(0x10000) << 16 | (w & 0xffff); break;
	case 5: w = (w & 0xffff0000u) | rnd(8); break;	/* a vlen */
	case 6: w = (w & ~0x1f000000u) | rnd(20) << 24; break;	/* a kind */
	case 7: w ^= 1u << 31; break;				/* kind_flag */
	default: w = rnd(h->str_len + 2); break;		/* a name offset */
	}
	memcpy(at, &w, 4);
}

static unsigned int ndamaged, nk_refused, nours_only, nlayout;
static const char *keep_dir;	/* -k: each blob judged otherwise is written there */

/* -k DIR: a blob the verifier judged otherwise than the kernel, kept as
 * DIR/WHAT-I.btf, to become a case of tests/fuzz/regressions/btf_raw */
static void keep(const uint8_t *d, size_t size, const char *what, int i)
{
	char path[4096];
	FILE *f;

	if (!keep_dir)
		return;
	if (strrchr(what, '/'))
		what = strrchr(what, '/') + 1;
	snprintf(path, sizeof(path), "%s/%s-%d.btf", keep_dir, what, i);
	f = fopen(path, "wb");
	if (!f || fwrite(d, 1, size, f) != size)
		printf("# cannot keep %s\n", path);
	else
		printf("# kept in %s\n", path);
	if (f)
		fclose(f);
}

/*
 * The layout d2b_btf__encode() writes: header, types, strings, end to end.
 * d2b_btf__parse_raw() also takes gaps and trailing bytes (as libbpf does:
 * it reads what others wrote); the kernel does not ("Unsupported section
 * found").  That is the encoder's rule, not the verifier's.
 */
static bool canonical(const uint8_t *d, size_t size)
{
	struct d2b_header h;

	memcpy(&h, d, sizeof(h));
	return h.hdr_len == sizeof(h) && h.type_off == 0 && h.str_off == h.type_len &&
	       sizeof(h) + (uint64_t)h.type_len + h.str_len == size;
}

/* Judge one blob, named "what" in messages (copy i of it; -1: the blob
 * itself): true if both judged it alike, or the verifier refused it for a
 * rule the table calls stricter.  *asked is false if the kernel cannot be
 * asked. */
static bool compare_one(const uint8_t *d, size_t size, const char *what, int i, bool *asked)
{
	struct verdict v;
	char label[512];
	int k;

	*asked = judge(d, size, &k, &v);
	if (!*asked)
		return true;
	if (i >= 0)
		snprintf(label, sizeof(label), "%s/%d", what, i);
	else
		snprintf(label, sizeof(label), "%s", what);
	ndamaged++;
	nk_refused += !k;
	if (!k && !v.refused && !canonical(d, size)) {
		nlayout++;
	} else if (!k && !v.refused) {
		printf("FAIL verify_kernel/%s: the kernel refuses (%s), the verifier accepts\n",
		       label, klog);
		keep(d, size, what, i);
		nfail++;
		return false;
	} else if (k && v.refused) {
		nours_only++;
		if (!explained(&v)) {
			printf("FAIL verify_kernel/%s: the verifier refuses what the kernel accepts, "
			       "for no rule of the table: %s%s\n", label, v.first,
			       v.n > 1 ? " (and more)" : "");
			for (int j = 1; j < v.n && j < 8; j++)
				printf("#   %s\n", v.why[j]);
			keep(d, size, what, i);
			nfail++;
			return false;
		}
	}
	return true;
}

static void damaged_copies(const void *data, size_t size, unsigned int count, const char *name)
{
	uint8_t *d = malloc(size);
	char what[300];
	bool asked = true;
	unsigned int i;

	if (!d)
		abort();
	snprintf(what, sizeof(what), "damaged/%s", name);
	for (i = 0; i < count && kernel_ok && asked; i++) {
		memcpy(d, data, size);
		damage(d, size);
		if (rnd(4) == 0)
			damage(d, size);
		compare_one(d, size, what, (int)i, &asked);
	}
	free(d);
}

typedef int (*sample_fn)(struct d2b_btf *btf);

/* (b): the samples btfdump --samples writes (the btf_raw fuzz seeds) */
static void test_samples(void)
{
	static const struct { const char *name; sample_fn fn; } samples[] = {
		{ "all_kinds", sample_all_kinds }, { "base", sample_base },
		/* the bpf tree's inline sites: 6.x refuses them, and so does
		 * the verifier unless told the BTF is for that tree */
		{ "loc", sample_loc },
	};
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]) && kernel_ok; i++) {
		struct d2b_btf *btf = d2b_btf__new(NULL);
		struct verdict v;
		void *d = NULL;
		size_t n;
		int k;

		if (!btf || samples[i].fn(btf) < 0 || d2b_btf__encode(btf, &d, &n) < 0) {
			printf("FAIL verify_kernel/sample/%s: cannot build it\n", samples[i].name);
			nfail++;
		} else if (judge(d, n, &k, &v)) {
			if (k == v.refused && !(v.refused && explained(&v))) {
				printf("FAIL verify_kernel/sample/%s: the kernel %s (%s), the verifier "
				       "%s (%s)\n", samples[i].name, k ? "accepts" : "refuses", klog,
				       v.refused ? "refuses" : "accepts", v.first);
				nfail++;
			} else {
				printf("PASS verify_kernel/sample/%s (the kernel %s)\n", samples[i].name,
				       k ? "accepts" : "refuses");
			}
			damaged_copies(d, n, DAMAGE_PER_BLOB * 10, samples[i].name);
		}
		free(d);
		d2b_btf__free(btf);
	}
}

static int read_whole(const char *path, uint8_t **ret, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	*ret = malloc((size_t)n + 1);
	if (!*ret || fread(*ret, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*size = (size_t)n;
	return 0;
}

/* (b): the fuzz regressions of the targets that read raw BTF, and the
 * damaged blobs tests/mutate found (judged in both directions) */
static void test_regressions(void)
{
	static const char *const dirs[] = { "btf_raw", "base" };
	const char *src = getenv("D2B_SRC");
	unsigned int n = 0, bad = 0;
	bool asked = true;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && src && kernel_ok && asked; i++) {
		char path[4096], what[600];
		struct dirent *e;
		DIR *dir;

		snprintf(path, sizeof(path), "%s/tests/fuzz/regressions/%s", src, dirs[i]);
		dir = opendir(path);
		while (dir && (e = readdir(dir)) != NULL && kernel_ok && asked) {
			uint8_t *d = NULL;
			size_t size;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/tests/fuzz/regressions/%s/%s", src, dirs[i],
				 e->d_name);
			snprintf(what, sizeof(what), "regression/%s/%s", dirs[i], e->d_name);
			if (read_whole(path, &d, &size) == 0) {
				bad += !compare_one(d, size, what, -1, &asked);
				n += asked;
			} else {
				printf("FAIL verify_kernel/%s: cannot read it\n", what);
				nfail++;
				bad++;
			}
			free(d);
		}
		if (dir)
			closedir(dir);
	}
	if (!src)
		printf("SKIP verify_kernel/regressions: D2B_SRC not set (tests/run.sh sets it)\n");
	else if (kernel_ok && !bad)
		printf("PASS verify_kernel/regressions (%u inputs)\n", n);
}

/* (c) on the table's blobs */
static void test_damaged_rules(void)
{
	size_t i;
	int bad;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]) && kernel_ok; i++) {
		for (bad = 0; bad <= 1; bad++) {
			struct blob *b = malloc(sizeof(*b));
			void *d;
			size_t n;

			blob_init(b);
			rules[i].build(b, bad);
			d = blob_encode(b, &n);
			damaged_copies(d, n, DAMAGE_PER_BLOB, rules[i].name);
			free(d);
			free(b);
		}
	}
}

static void damage_files(char **files, int nfiles, unsigned int count)
{
	int i;

	for (i = 0; i < nfiles && kernel_ok; i++) {
		const char *name = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
		unsigned int before = (unsigned int)nfail;
		char what[600];
		uint8_t *d = NULL;
		size_t size;
		bool asked;

		if (read_whole(files[i], &d, &size) < 0) {
			printf("FAIL verify_kernel/file: cannot read %s\n", files[i]);
			nfail++;
			continue;
		}
		snprintf(what, sizeof(what), "file/%s", name);
		compare_one(d, size, what, -1, &asked);
		damaged_copies(d, size, count, name);
		free(d);
		if ((unsigned int)nfail == before && kernel_ok)
			printf("PASS verify_kernel/damaged/%s (%u copies)\n", name, count);
	}
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	bool files = false;
	int opt;

	rnd_state = 0x9e3779b97f4a7c15ull;
	while ((opt = getopt(argc, argv, "k:n:s:")) != -1) {
		if (opt == 'n') {
			count = (unsigned int)strtoul(optarg, NULL, 0);
			files = true;
		}
		else if (opt == 'k')
			keep_dir = optarg;
		else if (opt == 's')
			rnd_state ^= strtoull(optarg, NULL, 0) * 0x2545f4914f6cdd1dull;
		else
			return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (files) {
		damage_files(argv + optind, argc - optind, count);
	} else {
		unsigned int before;

		test_rules();
		test_samples();
		test_regressions();
		ndamaged = nk_refused = nours_only = nlayout = 0;	/* (c)'s own counts */
		before = (unsigned int)nfail;
		test_damaged_rules();
		if (kernel_ok && (unsigned int)nfail == before)
			printf("PASS verify_kernel/damaged (%u damaged blobs: the kernel refused %u, "
			       "%u of them for a layout the encoder never writes; the verifier %u "
			       "more, each for a stricter rule)\n", ndamaged, nk_refused, nlayout,
			       nours_only);
	}
	if (!kernel_ok)
		printf("SKIP verify_kernel: the kernel cannot be asked: %s\n", skip_why);
	if (files && kernel_ok)
		printf("# %u blobs judged: the kernel refused %u (%u for their layout), the "
		       "verifier %u more\n", ndamaged, nk_refused, nlayout, nours_only);
	return nfail ? 1 : 0;
}
