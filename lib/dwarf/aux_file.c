// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Finding the other files a file's DWARF needs.
 *
 * Each kind of file is looked for in a fixed list of places, in order, and
 * the first that opens as ELF (and, for a supplementary file, has the
 * identity the link records) wins.  The places, with DIRS the directories
 * the caller names (--debug-dir) and then /usr/lib/debug:
 *
 *   supplementary (dwz) file, from .gnu_debugaltlink (a path and the
 *   file's build-id) or DWARF 5's .debug_sup (a path and a checksum, which
 *   dwz makes the build-id):
 *	the recorded path (a relative one from the linking file's directory);
 *	the linking file's directory, by the recorded file name;
 *	each DIR/.build-id/NN/NNNN...debug, then each DIR by file name
 *   .dwo file, from a skeleton's DW_AT_dwo_name and DW_AT_comp_dir:
 *	the name if absolute, else under the comp_dir, then under the file's
 *	directory; the file's directory by the name's last component; each
 *	DIR (not /usr/lib/debug) by the name, then by its last component
 *   .dwp package of FILE:
 *	FILE.dwp, then each DIR (not /usr/lib/debug) by FILE's name + .dwp
 *
 * A file that is absent, or is not what the link names, is noted and the
 * next place tried; when none fits, the error lists every place looked at,
 * so the user sees where to put the file (or which --debug-dir to give).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "dwarf/aux_file.h"
#include "base/diag.h"

enum {
	PATH_LEN = 4096,
	MAX_ID = 64,		/* bytes of build-id or checksum we compare */
};

static const char default_debug_dir[] = "/usr/lib/debug";

struct aux_file {
	Elf *elf;
	char *path;
};

/* What a search has looked at, for the error. */
struct search {
	char *buf;
	size_t len, used;
	unsigned int nr;
};

static void search_note(struct search *s, const char *path, const char *why)
{
	int n;

	if (s->used >= s->len)
		return;
	n = snprintf(s->buf + s->used, s->len - s->used, "%s%s%s%s", s->nr ? ", " : "", path,
		     why ? " " : "", why ? why : "");
	s->used = n < 0 ? s->len : s->used + (size_t)n;
	s->nr++;
}

/* Open path as ELF: 0, or -ENOENT (noted in s) when it is no ELF file. */
static int try_open(const char *path, struct search *s, struct aux_file **ret)
{
	struct aux_file *f;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		search_note(s, path, errno == ENOENT ? NULL : "(cannot be read)");
		return -ENOENT;
	}
	/* mapped whole: the descriptor is not kept (a program may have
	 * thousands of .dwo files) */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_cntl(elf, ELF_C_FDDONE) == 0) {
		close(fd);
		f = calloc(1, sizeof(*f));
		if (f)
			f->path = strdup(path);
		if (!f || !f->path) {
			free(f);
			elf_end(elf);
			return -ENOMEM;
		}
		f->elf = elf;
		*ret = f;
		return 0;
	}
	elf_end(elf);
	close(fd);
	search_note(s, path, "(not an ELF file)");
	return -ENOENT;
}

void aux_file__free(struct aux_file *f)
{
	if (!f)
		return;
	elf_end(f->elf);
	free(f->path);
	free(f);
}

Elf *aux_file__elf(const struct aux_file *f)
{
	return f->elf;
}

const char *aux_file__path(const struct aux_file *f)
{
	return f->path;
}

/* dir/name into buf: false if it does not fit. */
static bool join(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_LEN, "%s%s%s", dir, *dir && dir[strlen(dir) - 1] != '/' ? "/" : "",
			 name);

	return n > 0 && n < PATH_LEN;
}

/* The directory of path into buf ("." if none). */
static void dir_of(char *buf, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, PATH_LEN, ".");
	else if (slash == path)
		snprintf(buf, PATH_LEN, "/");
	else
		snprintf(buf, PATH_LEN, "%.*s", (int)(slash - path), path);
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- the supplementary file ---- */

struct alt_link {
	const char *name;	/* the recorded path */
	const uint8_t *id;	/* build-id or checksum */
	size_t id_len;
	bool sup;		/* .debug_sup (else .gnu_debugaltlink) */
};

static Elf_Data *section_data(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, want))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* A ULEB128 below 2^32 at *p before end. */
static bool uleb32(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end && shift < 35) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

/*
 * .debug_sup (DWARF 5, 7.3.6): version (2 bytes, 2 or 5 as producers
 * differ), is_supplementary, the file name, a ULEB128 length and the
 * checksum.  is_sup: the supplementary file's own (its checksum is its
 * identity).  -ENOENT if absent.
 */
static int read_debug_sup(Elf *elf, bool *is_sup, struct alt_link *ret)
{
	Elf_Data *d = section_data(elf, ".debug_sup");
	const uint8_t *p, *end, *nul;
	uint64_t len;

	if (!d || !d->d_buf)
		return -ENOENT;
	p = d->d_buf;
	end = p + d->d_size;
	if (end - p < 4)
		return -EINVAL;
	*is_sup = p[2] != 0;
	p += 3;
	nul = memchr(p, 0, end - p);
	if (!nul)
		return -EINVAL;
	ret->name = (const char *)p;
	p = nul + 1;
	if (!uleb32(&p, end, &len) || len > (uint64_t)(end - p))
		return -EINVAL;
	ret->id = p;
	ret->id_len = len;
	ret->sup = true;
	return 0;
}

static int read_alt_link(Elf *elf, struct alt_link *ret)
{
	Elf_Data *d = section_data(elf, ".gnu_debugaltlink");
	const uint8_t *nul;
	bool is_sup;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (d && d->d_buf) {
		nul = memchr(d->d_buf, 0, d->d_size);
		if (!nul || nul == d->d_buf)
			return -EINVAL;
		ret->name = d->d_buf;
		ret->id = nul + 1;
		ret->id_len = d->d_size - (nul + 1 - (const uint8_t *)d->d_buf);
		return 0;
	}
	err = read_debug_sup(elf, &is_sup, ret);
	if (err)
		return err;
	/* a supplementary file itself, or a link without a name */
	if (is_sup || !*ret->name)
		return -ENOENT;
	return 0;
}

/* Does f have the identity link records? */
static bool alt_matches(const struct aux_file *f, const struct alt_link *link)
{
	struct alt_link own;
	const void *id;
	bool is_sup;
	ssize_t n;

	if (!link->id_len)
		return true;
	if (link->sup && read_debug_sup(f->elf, &is_sup, &own) == 0 && is_sup)
		return own.id_len == link->id_len && !memcmp(own.id, link->id, own.id_len);
	n = dwelf_elf_gnu_build_id(f->elf, &id);
	return n > 0 && (size_t)n == link->id_len && !memcmp(id, link->id, n);
}

/* Try one place for the supplementary file: 1 found, 0 not, < 0 error. */
static int try_alt(const char *path, const struct alt_link *link, struct search *s,
		   struct aux_file **ret)
{
	int err = try_open(path, s, ret);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	if (alt_matches(*ret, link))
		return 1;
	search_note(s, path, link->sup ? "(another checksum)" : "(another build-id)");
	aux_file__free(*ret);
	*ret = NULL;
	return 0;
}

/* DIR/.build-id/NN/NNNN...debug into buf. */
static bool build_id_path(char *buf, const char *dir, const struct alt_link *link)
{
	char hex[2 * MAX_ID + 16];
	size_t i, n = 0;

	if (link->id_len < 2 || link->id_len > MAX_ID)
		return false;
	for (i = 0; i < link->id_len; i++) {
		n += snprintf(hex + n, sizeof(hex) - n, "%s%02x", i == 1 ? "/" : "", link->id[i]);
	}
	snprintf(hex + n, sizeof(hex) - n, ".debug");
	return join(buf, dir, ".build-id/") && join(buf + strlen(buf), "", hex);
}

int aux_file__open_alt(Elf *elf, const char *path, const struct aux_dirs *dirs,
		       struct diag *diag, struct aux_file **ret)
{
	char dir[PATH_LEN], cand[PATH_LEN], first[PATH_LEN] = "", looked[1024] = "";
	struct search s = { .buf = looked, .len = sizeof(looked) };
	struct alt_link link;
	size_t i;
	int n = 0, err;

	*ret = NULL;
	err = read_alt_link(elf, &link);
	if (err == -ENOENT)
		return 0;
	if (err) {
		bool gnu = section_data(elf, ".gnu_debugaltlink");

		diag__say(diag, D2B_ERROR, "damaged %s section",
			  gnu ? ".gnu_debugaltlink" : ".debug_sup");
		return err;
	}
	dir_of(dir, path);
	if (link.name[0] == '/' ? snprintf(first, sizeof(first), "%s", link.name) < PATH_LEN :
	    join(first, dir, link.name))
		n = try_alt(first, &link, &s, ret);
	/* beside the file, unless that was the recorded path */
	if (!n && join(cand, dir, base_of(link.name)) && strcmp(cand, first))
		n = try_alt(cand, &link, &s, ret);
	for (i = 0; !n && i <= dirs->nr; i++) {
		const char *d = i < dirs->nr ? dirs->dirs[i] : default_debug_dir;

		if (build_id_path(cand, d, &link))
			n = try_alt(cand, &link, &s, ret);
		if (!n && join(cand, d, base_of(link.name)))
			n = try_alt(cand, &link, &s, ret);
	}
	if (n < 0)
		return n;
	if (n)
		return 0;
	diag__say(diag, D2B_ERROR, "supplementary (dwz) file '%s', named by %s, not found: "
		  "looked at %s", link.name, link.sup ? ".debug_sup" : ".gnu_debugaltlink", looked);
	return -ENOENT;
}

/* ---- split DWARF ---- */

int aux_file__open_dwo(const char *dwo_name, const char *comp_dir, const char *path,
		       const struct aux_dirs *dirs, struct diag *diag, struct aux_file **ret)
{
	char dir[PATH_LEN], cand[PATH_LEN], looked[1024];
	struct search s = { .buf = looked, .len = sizeof(looked) };
	const char *base = base_of(dwo_name);
	size_t i;
	int err = -ENOENT;

	*ret = NULL;
	looked[0] = 0;
	dir_of(dir, path);
	if (dwo_name[0] == '/') {
		err = try_open(dwo_name, &s, ret);
	} else {
		if (comp_dir && join(cand, comp_dir, dwo_name))
			err = try_open(cand, &s, ret);
		if (err == -ENOENT && join(cand, dir, dwo_name))
			err = try_open(cand, &s, ret);
	}
	if (err == -ENOENT && base != dwo_name && join(cand, dir, base))
		err = try_open(cand, &s, ret);
	for (i = 0; err == -ENOENT && i < dirs->nr; i++) {
		if (dwo_name[0] != '/' && join(cand, dirs->dirs[i], dwo_name))
			err = try_open(cand, &s, ret);
		if (err == -ENOENT && base != dwo_name && join(cand, dirs->dirs[i], base))
			err = try_open(cand, &s, ret);
	}
	if (err == -ENOENT)
		diag__say(diag, D2B_ERROR, "split DWARF file '%s' not found: looked at %s",
			  dwo_name, looked);
	else if (err)
		diag__say(diag, D2B_ERROR, "%s", strerror(-err));
	return err;
}

int aux_file__open_dwp(const char *path, const struct aux_dirs *dirs, struct diag *diag,
		       struct aux_file **ret)
{
	char cand[PATH_LEN], name[PATH_LEN], looked[256];
	struct search s = { .buf = looked, .len = sizeof(looked) };
	size_t i;
	int err = -ENOENT;

	*ret = NULL;
	if (snprintf(cand, sizeof(cand), "%s.dwp", path) < PATH_LEN)
		err = try_open(cand, &s, ret);
	if (snprintf(name, sizeof(name), "%s.dwp", base_of(path)) >= PATH_LEN)
		return 0;
	for (i = 0; err == -ENOENT && i < dirs->nr; i++) {
		if (join(cand, dirs->dirs[i], name))
			err = try_open(cand, &s, ret);
	}
	if (err == -ENOENT)
		return 0;
	if (err)
		diag__say(diag, D2B_ERROR, "%s", strerror(-err));
	return err;
}
