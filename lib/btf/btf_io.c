// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Raw BTF in and out.
 *
 * Parsing treats the blob as hostile and runs in passes over a private,
 * word-aligned copy of the type section:
 *
 *   1. header: magic in either byte order (a swapped magic means every
 *      field of the blob is swapped), version, flags, header length; a
 *      32-byte header has the layout section's place (libbpf 1.8, Linux
 *      7.1); the bytes of a longer header we must understand (none yet:
 *      they must be zero);
 *   2. sections: inside the data, not overlapping, types 4-aligned, strings
 *      NUL-terminated (and NUL-first unless split), the layout section
 *      4-aligned, of whole records, at least one (the kernel's rules);
 *   3. type walk: each type's kind is known and its trailing records end
 *      inside the section; this counts the types, which fixes the end ID;
 *   4. fields: every string offset and type ID, visited by the shared field
 *      iterator, lies in range; then the type is appended as-is.
 *
 * Only after all four does the caller get a d2b_btf, so a bad blob never
 * leaves a half-built object behind.  Split BTF continues the base's type
 * IDs and string offsets; its string section may be empty or start in the
 * middle of nothing (no leading NUL), as libbpf and pahole write it.
 *
 * Encoding writes header, types in ID order, the layout section if the BTF
 * has one (then the 32-byte header) and strings, in the byte order asked
 * for: d2b_btf__encode() the one the BTF was read in (host order for built
 * BTF), so that parse + encode reproduces the input byte for byte when the
 * sections are in that order, without gaps (as libbpf, pahole and we write
 * them); the ELF writer its file's (btf_encode_in()), so nothing swaps an
 * encoded blob afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/btf.h"
#include "base/diag.h"
#include "base/elf_ident.h"
#include "base/lazy.h"
#include "base/pages.h"
#include "base/safe_file.h"
#include "base/strtab.h"
#include "base/vec.h"

enum {
	HDR_SIZE = D2B_HDR_LEN,
	HDR_SIZE_LAYOUT = D2B_HDR_LEN_LAYOUT,
	LAYOUT_REC = sizeof(struct d2b_layout),
	WHY_LEN = 256,		/* a parse error, before the path is put in front */
	FIELD_NAME_LEN = 64,	/* "member 65535 type" */
};

static enum d2b_endian host_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? D2B_ENDIAN_LITTLE : D2B_ENDIAN_BIG;
}

static bool endian_swaps(enum d2b_endian e)
{
	return e != D2B_ENDIAN_NATIVE && e != host_endian();
}

static int __attribute__((format(printf, 4, 5)))
io_err(int err, char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* The internal calls' (btf.h) failure, said through diag as one D2B_ERROR */
static int __attribute__((format(printf, 3, 4)))
diag_err(struct diag *diag, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(diag, D2B_ERROR, NULL, UINT64_MAX, 0, fmt, ap);
	va_end(ap);
	return err;
}

/* The contract of dwarf2btf.h: a failing call leaves a message.  For the
 * failures no step explained (out of memory), errno's. */
static int io_ensure_msg(int err, char *errbuf, size_t errlen)
{
	if (err < 0 && errbuf && errlen && !errbuf[0])
		snprintf(errbuf, errlen, "%s", strerror(-err));
	return err;
}

/* ---- parsing ---- */

struct raw_parse {
	const uint8_t *data;
	size_t size;
	const struct d2b_btf *base;
	bool swap;
	struct d2b_header hdr;
	uint32_t layout_off, layout_len;	/* 0, 0: no layout section */
	uint32_t *words;	/* the type section, host order */
	size_t nwords;
	uint32_t *offs;		/* the word where each type starts */
	size_t nr, offs_cap;
	uint32_t start_id, end_id;
	uint32_t start_str, end_str;
	char *errbuf;
	size_t errlen;
};

static int raw_parse_header(struct raw_parse *p)
{
	struct d2b_header *h = &p->hdr;
	size_t i;

	if (p->size < HDR_SIZE)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "%zu bytes are too few for a BTF header (%d)", p->size, HDR_SIZE);
	memcpy(h, p->data, HDR_SIZE);
	if (h->magic == __builtin_bswap16(D2B_BTF_MAGIC)) {
		p->swap = true;
		h->magic = D2B_BTF_MAGIC;
		h->hdr_len = __builtin_bswap32(h->hdr_len);
		h->type_off = __builtin_bswap32(h->type_off);
		h->type_len = __builtin_bswap32(h->type_len);
		h->str_off = __builtin_bswap32(h->str_off);
		h->str_len = __builtin_bswap32(h->str_len);
	} else if (h->magic != D2B_BTF_MAGIC) {
		return io_err(-EINVAL, p->errbuf, p->errlen, "bad BTF magic 0x%04x", h->magic);
	}
	if (h->version != D2B_BTF_VERSION)
		return io_err(-EINVAL, p->errbuf, p->errlen, "unsupported BTF version %u", h->version);
	if (h->flags)
		return io_err(-EINVAL, p->errbuf, p->errlen, "unsupported BTF header flags 0x%x",
			      h->flags);
	if (h->hdr_len < HDR_SIZE)
		return io_err(-EINVAL, p->errbuf, p->errlen, "header length %u is below %d",
			      h->hdr_len, HDR_SIZE);
	if (h->hdr_len > p->size)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "header length %u runs past the end of the data (%zu bytes)",
			      h->hdr_len, p->size);
	if (h->hdr_len >= HDR_SIZE_LAYOUT) {
		memcpy(&p->layout_off, p->data + HDR_SIZE, 4);
		memcpy(&p->layout_len, p->data + HDR_SIZE + 4, 4);
		if (p->swap) {
			p->layout_off = __builtin_bswap32(p->layout_off);
			p->layout_len = __builtin_bswap32(p->layout_len);
		}
	}
	/* a longer header from a newer format: fine only if we lose nothing */
	for (i = h->hdr_len >= HDR_SIZE_LAYOUT ? HDR_SIZE_LAYOUT : HDR_SIZE; i < h->hdr_len; i++) {
		if (p->data[i])
			return io_err(-EINVAL, p->errbuf, p->errlen,
				      "unknown header field at byte %zu is not zero", i);
	}
	return 0;
}

/* The layout section's place, by the kernel's rules (and apart from the
 * other two); its records are taken as they are. */
static int raw_parse_layout_section(const struct raw_parse *p, uint64_t body, uint64_t type_end,
				    uint64_t str_end)
{
	const struct d2b_header *h = &p->hdr;
	uint64_t end = (uint64_t)p->layout_off + p->layout_len;
	bool over_types = h->type_len && p->layout_off < type_end && h->type_off < end;
	bool over_strs = h->str_len && p->layout_off < str_end && h->str_off < end;

	if (!p->layout_len)
		return 0;
	if (p->layout_off % 4)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "layout section offset %u is not 4-byte aligned", p->layout_off);
	if (p->layout_len % LAYOUT_REC)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "layout section length %u is not a multiple of %d",
			      p->layout_len, (int)LAYOUT_REC);
	if (end > body)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "layout section [%u, %llu) runs past the end of the data (%llu bytes after the header)",
			      p->layout_off, (unsigned long long)end, (unsigned long long)body);
	if (over_types || over_strs)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "layout section [%u, %llu) overlaps the %s section",
			      p->layout_off, (unsigned long long)end, over_types ? "type" : "string");
	return 0;
}

static int raw_parse_sections(struct raw_parse *p)
{
	const struct d2b_header *h = &p->hdr;
	uint64_t body = p->size - h->hdr_len;
	uint64_t type_end = (uint64_t)h->type_off + h->type_len;
	uint64_t str_end = (uint64_t)h->str_off + h->str_len;
	const char *strs;

	if (type_end > body)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "type section [%u, %llu) runs past the end of the data (%llu bytes after the header)",
			      h->type_off, (unsigned long long)type_end, (unsigned long long)body);
	if (str_end > body)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "string section [%u, %llu) runs past the end of the data (%llu bytes after the header)",
			      h->str_off, (unsigned long long)str_end, (unsigned long long)body);
	if (h->type_len && h->str_len && h->type_off < str_end && h->str_off < type_end)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "type section [%u, %llu) and string section [%u, %llu) overlap",
			      h->type_off, (unsigned long long)type_end,
			      h->str_off, (unsigned long long)str_end);
	if (h->type_off % 4)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "type section offset %u is not 4-byte aligned", h->type_off);
	if (h->type_len % 4)
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "type section length %u is not a multiple of 4", h->type_len);

	strs = (const char *)p->data + h->hdr_len + h->str_off;
	if (!p->base && !h->str_len)
		return io_err(-EINVAL, p->errbuf, p->errlen, "string section is empty");
	if (!p->base && strs[0])
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "string section does not start with a NUL");
	if (h->str_len && strs[h->str_len - 1])
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "string section does not end with a NUL");
	p->start_str = p->base ? btf_end_str(p->base) : 0;
	if (h->str_len && (uint64_t)p->start_str + h->str_len - 1 > D2B_MAX_NAME_OFF)
		return io_err(-E2BIG, p->errbuf, p->errlen,
			      "string section of %u bytes ends past the largest offset 0x%x",
			      h->str_len, D2B_MAX_NAME_OFF);
	p->end_str = p->start_str + h->str_len;
	return raw_parse_layout_section(p, body, type_end, str_end);
}

/* Pass 3: copy the types into host order and find where each one starts. */
static int raw_parse_walk(struct raw_parse *p)
{
	size_t pos = 0, i;
	uint32_t id = p->start_id;

	p->nwords = p->hdr.type_len / 4;
	p->words = malloc(p->nwords ? p->nwords * 4 : 1);
	if (!p->words)
		return -ENOMEM;
	/* (a kernel's types: a thousand pages, present in one call) */
	pages__prepare_write(p->words, p->nwords * 4);
	memcpy(p->words, p->data + p->hdr.hdr_len + p->hdr.type_off, p->nwords * 4);
	if (p->swap) {
		for (i = 0; i < p->nwords; i++)
			p->words[i] = __builtin_bswap32(p->words[i]);
	}
	while (pos < p->nwords) {
		const struct d2b_type *t = (const struct d2b_type *)(p->words + pos);
		unsigned int kind;
		size_t n;

		if (id > D2B_MAX_TYPE_ID)
			return io_err(-E2BIG, p->errbuf, p->errlen,
				      "more types than the largest ID %u", D2B_MAX_TYPE_ID);
		if (p->nwords - pos < 3)
			return io_err(-EINVAL, p->errbuf, p->errlen,
				      "type [%u] at byte %zu of the type section is cut short",
				      id, pos * 4);
		kind = d2b_kind(t);
		if (kind == D2B_KIND_UNKN || kind > D2B_KIND_LAST)
			return io_err(-EINVAL, p->errbuf, p->errlen,
				      "type [%u] at byte %zu of the type section has invalid kind %u",
				      id, pos * 4, kind);
		n = btf_type_words(t);
		if (n > p->nwords - pos)
			return io_err(-EINVAL, p->errbuf, p->errlen,
				      "type [%u] %s with vlen %u runs past the end of the type section",
				      id, d2b_kind_name(kind), d2b_vlen(t));
		if (VEC_RESERVE(p->offs, p->offs_cap, p->nr, 1))
			return -ENOMEM;
		p->offs[p->nr++] = (uint32_t)pos;
		pos += n;
		id++;
	}
	p->end_id = id;
	return 0;
}

/* Name the field at word w of t, for error messages. */
static void field_name(const struct d2b_type *t, size_t w, char *buf, size_t len)
{
	unsigned int kind = d2b_kind(t);
	const char *rec = "member";
	size_t stride = 3, r;

	if (w == 0) {
		snprintf(buf, len, "name");
		return;
	}
	if (w == 2) {
		snprintf(buf, len, kind == D2B_KIND_FUNC_PROTO ? "return type" : "type");
		return;
	}
	if (kind == D2B_KIND_ARRAY) {
		snprintf(buf, len, w == 3 ? "element type" : "index type");
		return;
	}
	switch (kind) {
	case D2B_KIND_ENUM:
		stride = 2;
		/* fallthrough */
	case D2B_KIND_ENUM64:
		rec = "value";
		break;
	case D2B_KIND_FUNC_PROTO:
		stride = 2;
		rec = "param";
		break;
	case D2B_KIND_DATASEC:
		rec = "var";
		break;
	case D2B_KIND_LOC_PROTO:
		snprintf(buf, len, "param %zu", w - 3);
		return;
	case D2B_KIND_LOCSEC:
		snprintf(buf, len, "loc %zu %s", (w - 3) / 3, (w - 3) % 3 ? "loc_proto" : "func");
		return;
	default:
		break;
	}
	r = (w - 3) / stride;
	if (kind == D2B_KIND_DATASEC)
		snprintf(buf, len, "%s %zu type", rec, r);
	else
		snprintf(buf, len, "%s %zu %s", rec, r, (w - 3) % stride ? "type" : "name");
}

static int raw_parse_fields(struct raw_parse *p, struct d2b_type *t, uint32_t id)
{
	struct btf_field_iter it;
	uint32_t *f;
	char what[FIELD_NAME_LEN];

	btf_field_iter__init(&it, t, BTF_FIELD_STRS);
	while ((f = btf_field_iter__next(&it))) {
		if (*f < p->end_str || *f == 0)
			continue;
		field_name(t, f - (uint32_t *)t, what, sizeof(what));
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "type [%u] %s: %s offset 0x%x out of range (strings end at 0x%x)",
			      id, d2b_kind_name(d2b_kind(t)), what, *f, p->end_str);
	}
	btf_field_iter__init(&it, t, BTF_FIELD_IDS);
	while ((f = btf_field_iter__next(&it))) {
		if (*f < p->end_id)
			continue;
		field_name(t, f - (uint32_t *)t, what, sizeof(what));
		return io_err(-EINVAL, p->errbuf, p->errlen,
			      "type [%u] %s: %s ID %u out of range (last type is [%u])",
			      id, d2b_kind_name(d2b_kind(t)), what, *f, p->end_id - 1);
	}
	return 0;
}

/* The layout records, in host order, to btf. */
static int raw_parse_adopt_layout(const struct raw_parse *p, struct d2b_btf *btf)
{
	uint32_t i, nr = p->layout_len / LAYOUT_REC;
	struct d2b_layout *recs;
	int err;

	if (!nr)
		return 0;
	recs = malloc(nr * sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	memcpy(recs, p->data + p->hdr.hdr_len + p->layout_off, nr * sizeof(*recs));
	for (i = 0; p->swap && i < nr; i++)
		recs[i].flags = __builtin_bswap16(recs[i].flags);
	err = btf_set_layout_records(btf, recs, nr);
	free(recs);
	return err;
}

/*
 * libbpf's determine_ptr_size(): a BTF read back from raw bytes has no
 * pointer size, but its C 'long' has the size of a pointer on every Linux
 * target (LP64 and ILP32 alike).
 */
static void infer_pointer_size(struct d2b_btf *btf)
{
	static const char *const longs[] = {
		"long", "long int", "int long", "unsigned long", "long unsigned",
		"unsigned long int", "unsigned int long", "long unsigned int",
		"long int unsigned", "int unsigned long", "int long unsigned",
	};
	uint32_t id, end = d2b_btf__end_id(btf);
	size_t i;

	if (btf_pointer_size_recorded(btf))
		return;		/* the base's */
	for (id = 1; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);
		const char *name;

		if (!t || d2b_kind(t) != D2B_KIND_INT || (t->size != 4 && t->size != 8))
			continue;
		name = d2b_btf__str(btf, t->name_off);
		for (i = 0; name && i < sizeof(longs) / sizeof(longs[0]); i++) {
			if (!strcmp(name, longs[i])) {
				d2b_btf__set_pointer_size(btf, t->size);
				return;
			}
		}
	}
}

int d2b_btf__parse_raw(const void *data, size_t size, const struct d2b_btf *base,
		       struct d2b_btf **ret, char *errbuf, size_t errlen)
{
	struct raw_parse p = {
		.data = data, .size = size, .base = base, .errbuf = errbuf, .errlen = errlen,
	};
	struct d2b_btf *btf = NULL;
	uint32_t vlen;
	size_t i;
	int err;

	*ret = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!data && size)
		return io_err(-EINVAL, errbuf, errlen, "no data");
	p.start_id = base ? d2b_btf__end_id(base) : 1;
	err = raw_parse_header(&p);
	if (err)
		goto out;
	err = raw_parse_sections(&p);
	if (err)
		goto out;
	err = raw_parse_walk(&p);
	if (err)
		goto out;

	btf = d2b_btf__new(base);
	if (!btf) {
		err = -ENOMEM;
		goto out;
	}
	/* (a file's strings may repeat its base's) */
	btf_strs_mixed(btf);
	err = strtab__load(btf_strtab(btf), (const char *)p.data + p.hdr.hdr_len + p.hdr.str_off,
			   p.hdr.str_len);
	if (err) {
		io_err(err, errbuf, errlen, "cannot load the string section");
		goto out;
	}
	/* pass 4: every field in range; then the types are the BTF's as they are */
	for (i = 0; i < p.nr; i++) {
		err = raw_parse_fields(&p, (struct d2b_type *)(p.words + p.offs[i]),
				       p.start_id + (uint32_t)i);
		if (err)
			goto out;
	}
	err = btf_adopt_types(btf, p.words, p.nwords, p.offs, p.nr);
	if (err) {
		io_err(err, errbuf, errlen, "cannot add the types");
		goto out;
	}
	p.words = NULL;
	p.offs = NULL;
	err = raw_parse_adopt_layout(&p, btf);
	if (err)
		goto out;
	d2b_btf__set_endian(btf, p.swap ? (host_endian() == D2B_ENDIAN_LITTLE ?
					    D2B_ENDIAN_BIG : D2B_ENDIAN_LITTLE) : host_endian());
	infer_pointer_size(btf);
	/* written for a kernel that reads 24-bit vlen: written back so */
	if (!btf_vlen24(btf) && btf_widest_type(btf, &vlen) && vlen > D2B_MAX_VLEN)
		btf_set_vlen24(btf, true);
	*ret = btf;
	btf = NULL;
out:
	d2b_btf__free(btf);
	free(p.words);
	free(p.offs);
	return io_ensure_msg(err, errbuf, errlen);
}

/*
 * The cached path: data is a blob d2b_btf__parse_raw() took before (a
 * cache says so, by its digest), in host order and with no base; offs and
 * six are what that parse found (btf_type_offsets(), strtab__index()).  The
 * header and sections are checked again (it is cheap), the types are not:
 * they are used in place, as are the strings.
 */

/* Of a lazy blob, the bytes raw_parse_header() reads. */
static int lazy_header(struct lazy *lz, const uint8_t *data, size_t size)
{
	uint32_t hdr_len;
	uint16_t magic;
	int err = lazy__need(lz, data, size < HDR_SIZE ? size : HDR_SIZE);

	if (err || size < HDR_SIZE)
		return err;
	memcpy(&magic, data, 2);
	memcpy(&hdr_len, data + 4, 4);
	if (magic == __builtin_bswap16(D2B_BTF_MAGIC))
		hdr_len = __builtin_bswap32(hdr_len);
	return lazy__need(lz, data, hdr_len < size ? hdr_len : size);
}

/* Of a lazy blob, the bytes raw_parse_sections() and the layout's adoption
 * read: the first and last of the strings, the layout section.  (Ranges
 * past the end are the parse's to refuse: -ERANGE is not an error here.) */
static int lazy_sections(struct lazy *lz, const struct raw_parse *p)
{
	const uint8_t *body = p->data + p->hdr.hdr_len;
	int err = 0;

	if (p->hdr.str_len) {
		err = lazy__need(lz, body + p->hdr.str_off, 1);
		if (!err || err == -ERANGE)
			err = lazy__need(lz, body + p->hdr.str_off + p->hdr.str_len - 1, 1);
	}
	if ((!err || err == -ERANGE) && p->layout_len)
		err = lazy__need(lz, body + p->layout_off, p->layout_len);
	return err == -ERANGE ? 0 : err;
}

int btf_parse_known(const void *data, size_t size, struct btf_backing *bk, const uint32_t *offs,
		    size_t nr, const struct strtab_index *six, struct diag *diag,
		    struct d2b_btf **ret)
{
	char why[256] = "";
	struct lazy *lz = bk->lazy;
	struct raw_parse p = {
		.data = data, .size = size, .errbuf = why, .errlen = sizeof(why), .start_id = 1,
	};
	struct d2b_btf *btf = NULL;
	struct strtab *strs;
	const uint8_t *types;
	int err;

	*ret = NULL;
	err = lz ? lazy_header(lz, data, size) : 0;
	if (err)
		return diag_err(diag, err, "cannot read the header: %s", strerror(-err));
	err = raw_parse_header(&p);
	if (!err && lz) {
		err = lazy_sections(lz, &p);
		if (err)
			return diag_err(diag, err, "cannot read: %s", strerror(-err));
	}
	if (!err)
		err = raw_parse_sections(&p);
	if (err)
		return diag_err(diag, err, "%s", why);
	types = p.data + p.hdr.hdr_len + p.hdr.type_off;
	if (p.swap || (uintptr_t)types % 4)
		return diag_err(diag, -EOPNOTSUPP, "not in host order, or not aligned");
	/* (a cache keeps the strings' index frozen: strtab.h) */
	strs = strtab__borrow_frozen((const char *)p.data + p.hdr.hdr_len + p.hdr.str_off,
				     p.hdr.str_len, six);
	if (strs)
		btf = btf_new_borrowed((const uint32_t *)types, p.hdr.type_len / 4, offs, nr, strs);
	if (!btf) {
		strtab__free(strs);
		return diag_err(diag, -ENOMEM, "cannot make the BTF");
	}
	btf_strs_mixed(btf);
	btf_set_backing(btf, bk);
	err = raw_parse_adopt_layout(&p, btf);
	if (err) {
		btf_set_backing(btf, NULL);	/* (the caller's still) */
		d2b_btf__free(btf);
		return diag_err(diag, err, "cannot add the layout section");
	}
	d2b_btf__set_endian(btf, host_endian());
	infer_pointer_size(btf);
	*ret = btf;
	return 0;
}

/* ---- files ---- */

/* Read fd to its end; size is only a hint (sysfs files may report 4096). */
static int read_all(int fd, size_t hint, uint8_t **ret, size_t *ret_len)
{
	size_t cap = hint + 1, len = 0;
	uint8_t *buf = NULL, *nb;
	int err = 0;

	for (;;) {
		ssize_t n;

		if (!buf || len == cap) {
			if (buf && cap > SIZE_MAX / 2) {
				err = -E2BIG;
				goto out;
			}
			cap = buf ? cap * 2 : cap;
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = pread(fd, buf + len, cap - len, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += n;
	}
	*ret = buf;
	*ret_len = len;
	buf = NULL;
out:
	free(buf);
	return err;
}

static int load_elf(int fd, const struct d2b_btf *base,
		    struct d2b_btf **ret, char *errbuf, size_t errlen)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	size_t shstrndx;
	char why[WHY_LEN];
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return io_err(-EINVAL, errbuf, errlen, "libelf is unusable");
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = io_err(-EINVAL, errbuf, errlen, "not a valid ELF file: %s",
			     elf_errmsg(-1));
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		err = io_err(-EINVAL, errbuf, errlen, "no section name table: %s",
			     elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF"))
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			err = io_err(-EINVAL, errbuf, errlen, ".BTF section has no data");
			goto out;
		}
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
			err = io_err(-EINVAL, errbuf, errlen, "cannot decompress .BTF: %s",
				     elf_errmsg(-1));
			goto out;
		}
		break;
	}
	if (!scn) {
		err = io_err(-ENOENT, errbuf, errlen, "no .BTF section");
		goto out;
	}
	d = elf_rawdata(scn, NULL);
	if (!d) {
		err = io_err(-EINVAL, errbuf, errlen, "cannot read .BTF: %s",
			     elf_errmsg(-1));
		goto out;
	}
	err = d2b_btf__parse_raw(d->d_buf, d->d_size, base, ret, why, sizeof(why));
	if (err)
		io_err(err, errbuf, errlen, ".BTF: %s", why);
	else	/* the file's data model says what the blob cannot */
		d2b_btf__set_pointer_size(*ret, gelf_getclass(elf) == ELFCLASS32 ? 4 : 8);
out:
	elf_end(elf);
	return err;
}

int d2b_btf__load_file(const char *path, const struct d2b_btf *base,
		       struct d2b_btf **ret, char *errbuf, size_t errlen)
{
	uint8_t magic[4] = { 0 }, *buf = NULL;
	struct stat st;
	size_t len = 0;
	char why[WHY_LEN];
	int fd, err;
	ssize_t n;

	*ret = NULL;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return io_err(-errno, errbuf, errlen, "%s", strerror(errno));
	if (fstat(fd, &st)) {
		err = io_err(-errno, errbuf, errlen, "%s", strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = io_err(-EISDIR, errbuf, errlen, "is a directory");
		goto out;
	}
	n = pread(fd, magic, sizeof(magic), 0);
	if (n > 0 && elf_ident__check(magic, n) != ELF_IDENT_NOT_ELF) {
		err = load_elf(fd, base, ret, errbuf, errlen);
		goto out;
	}
	if (n < 2 || !((magic[0] == 0x9f && magic[1] == 0xeb) ||
		       (magic[0] == 0xeb && magic[1] == 0x9f))) {
		err = io_err(-EINVAL, errbuf, errlen, "neither an ELF file nor raw BTF");
		goto out;
	}
	err = read_all(fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, &buf, &len);
	if (err) {
		io_err(err, errbuf, errlen, "%s", strerror(-err));
		goto out;
	}
	err = d2b_btf__parse_raw(buf, len, base, ret, why, sizeof(why));
	if (err)
		io_err(err, errbuf, errlen, "%s", why);
out:
	free(buf);
	close(fd);
	return io_ensure_msg(err, errbuf, errlen);
}

/* A struct btf_blob's mapping goes. */
void btf_blob__release(struct btf_blob *b)
{
	if (b && b->map)
		munmap(b->map, b->map_len);
	if (b)
		lazy__free(b->lazy);
	free(b);
}

/* Map [off, off + size) of fd read-only into b (or read it lazily); why
 * not, said through diag (errno's words). */
static int blob_map(struct btf_blob *b, int fd, uint64_t off, uint64_t size, struct diag *diag)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t lo = off & ~(uint64_t)(page - 1);
	int err;

	if (!size || size > SIZE_MAX - (off - lo))
		return diag_err(diag, -EINVAL, "%s", strerror(EINVAL));
	if (b->want_lazy) {
		err = lazy__open(fd, off, (size_t)size, &b->lazy);
		if (err)
			return diag_err(diag, err, "%s", strerror(-err));
		b->data = lazy__data(b->lazy);
		b->size = (size_t)size;
		return 0;
	}
	b->map_len = (size_t)(size + (off - lo));
	b->map = mmap(NULL, b->map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)lo);
	if (b->map == MAP_FAILED) {
		err = -errno;
		b->map = NULL;
		return diag_err(diag, err, "%s", strerror(-err));
	}
	b->data = (const uint8_t *)b->map + (off - lo);
	b->size = (size_t)size;
	return 0;
}

/* The .BTF section of an ELF file, where it lies in the file as it is. */
static int blob_elf(struct btf_blob *b, int fd, uint64_t file_size, struct diag *diag)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int err = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return diag_err(diag, -EINVAL, "libelf is unusable");
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return diag_err(diag, -EINVAL, "not a valid ELF file");
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".BTF"))
			break;
	}
	if (!scn)
		err = diag_err(diag, -ENOENT, "no .BTF section");
	else if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
		 sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset)
		err = diag_err(diag, -EOPNOTSUPP, ".BTF is not in the file as it is");
	else
		err = blob_map(b, fd, sh.sh_offset, sh.sh_size, diag);
	if (!err)
		b->ptr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	elf_end(elf);
	return err;
}

int btf_blob__map(const char *path, bool lazy, struct diag *diag, struct btf_blob **ret)
{
	struct btf_blob *b;
	uint8_t magic[4] = { 0 };
	struct stat st;
	int fd, err;
	ssize_t n;

	*ret = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return diag_err(diag, -ENOMEM, "%s", strerror(ENOMEM));
	b->want_lazy = lazy;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(b);
		return diag_err(diag, err, "%s", strerror(-err));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = diag_err(diag, -EOPNOTSUPP, "not a regular file");
		goto out;
	}
	n = pread(fd, magic, sizeof(magic), 0);
	if (n > 0 && elf_ident__check(magic, n) != ELF_IDENT_NOT_ELF)
		err = blob_elf(b, fd, (uint64_t)st.st_size, diag);
	else
		err = blob_map(b, fd, 0, (uint64_t)st.st_size, diag);
out:
	close(fd);
	if (err) {
		btf_blob__release(b);	/* (every failure above said why) */
		return err;
	}
	*ret = b;
	return 0;
}

/* ---- encoding ---- */

/* Split BTF whose only string is the strtab's own leading NUL, unused by any
 * type, came from an empty string section: write it back empty. */
static bool strings_empty_split(const struct d2b_btf *btf)
{
	uint32_t id, start = btf_start_str(btf);

	if (!d2b_btf__base(btf) || strtab__size(btf_strtab(btf)) != 1)
		return false;
	for (id = d2b_btf__start_id(btf); id < d2b_btf__end_id(btf); id++) {
		struct d2b_type *t = btf_type_mut((struct d2b_btf *)btf, id);
		struct btf_field_iter it;
		uint32_t *f;

		if (!t)
			return false;
		btf_field_iter__init(&it, t, BTF_FIELD_STRS);
		while ((f = btf_field_iter__next(&it))) {
			if (*f == start)
				return false;
		}
	}
	return true;
}

int btf_encode_in(const struct d2b_btf *btf, enum d2b_endian order, void **ret, size_t *ret_size)
{
	bool swap = endian_swaps(order);
	uint32_t id, start = d2b_btf__start_id(btf), end = d2b_btf__end_id(btf), nr_layout, k;
	const struct d2b_layout *layout = d2b_btf__layout(btf, &nr_layout);
	struct d2b_header_layout hdr = { 0 };
	uint64_t type_len = 0, str_len, total, hdr_len, layout_len;
	uint8_t *buf, *pos;

	*ret = NULL;
	*ret_size = 0;
	for (id = start; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (!t)
			return -EINVAL;	/* reserved and never defined */
		if (d2b_vlen(t) > D2B_MAX_VLEN && !btf_vlen24(btf))
			return -E2BIG;	/* only the bpf tree's kernels read it */
		type_len += btf_type_words(t) * 4;
	}
	str_len = strings_empty_split(btf) ? 0 : strtab__size(btf_strtab(btf));
	layout_len = (uint64_t)nr_layout * LAYOUT_REC;
	hdr_len = nr_layout ? HDR_SIZE_LAYOUT : HDR_SIZE;
	total = hdr_len + type_len + layout_len + str_len;
	if (type_len + layout_len + str_len > UINT32_MAX)
		return -E2BIG;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;

	hdr.hdr.magic = D2B_BTF_MAGIC;
	hdr.hdr.version = D2B_BTF_VERSION;
	hdr.hdr.hdr_len = hdr_len;
	hdr.hdr.type_off = 0;
	hdr.hdr.type_len = type_len;
	hdr.layout_off = nr_layout ? type_len : 0;
	hdr.layout_len = layout_len;
	hdr.hdr.str_off = type_len + layout_len;
	hdr.hdr.str_len = str_len;
	if (swap) {
		hdr.hdr.magic = __builtin_bswap16(hdr.hdr.magic);
		hdr.hdr.hdr_len = __builtin_bswap32(hdr.hdr.hdr_len);
		hdr.hdr.type_len = __builtin_bswap32(hdr.hdr.type_len);
		hdr.hdr.str_off = __builtin_bswap32(hdr.hdr.str_off);
		hdr.hdr.str_len = __builtin_bswap32(hdr.hdr.str_len);
		hdr.layout_off = __builtin_bswap32(hdr.layout_off);
		hdr.layout_len = __builtin_bswap32(hdr.layout_len);
	}
	memcpy(buf, &hdr, hdr_len);
	pos = buf + hdr_len;
	for (id = start; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);
		size_t i, n = btf_type_words(t);

		if (swap) {
			for (i = 0; i < n; i++) {
				uint32_t w = __builtin_bswap32(((const uint32_t *)t)[i]);

				memcpy(pos + i * 4, &w, 4);
			}
		} else {
			memcpy(pos, t, n * 4);
		}
		pos += n * 4;
	}
	for (k = 0; k < nr_layout; k++, pos += LAYOUT_REC) {
		struct d2b_layout l = layout[k];

		if (swap)
			l.flags = __builtin_bswap16(l.flags);
		memcpy(pos, &l, LAYOUT_REC);
	}
	memcpy(pos, strtab__data(btf_strtab(btf)), str_len);
	*ret = buf;
	*ret_size = total;
	return 0;
}

void btf_encode_why(const struct d2b_btf *btf, int err, char *buf, size_t len)
{
	uint32_t vlen, id = btf_widest_type(btf, &vlen);
	const char *name = d2b_btf__name(btf, id);

	if (err == -E2BIG && vlen > D2B_MAX_VLEN && !btf_vlen24(btf))
		snprintf(buf, len, "type [%u] %s '%s' has vlen %u, over the %u a 6.x kernel reads "
			 "(only kernels of the bpf tree, reading 24 bits, take more)", id,
			 d2b_kind_name(d2b_kind(d2b_btf__type(btf, id))), name ? name : "", vlen,
			 (unsigned int)D2B_MAX_VLEN);
	else
		snprintf(buf, len, "%s", strerror(-err));
}

int d2b_btf__encode(const struct d2b_btf *btf, void **ret, size_t *ret_size)
{
	return btf_encode_in(btf, d2b_btf__endian(btf), ret, ret_size);
}

int d2b_btf__write_raw(const struct d2b_btf *btf, const char *path, char *errbuf,
		       size_t errlen)
{
	struct safe_file f = { 0 };
	void *data = NULL;
	size_t size;
	int err;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	err = d2b_btf__encode(btf, &data, &size);
	if (err) {
		char why[WHY_LEN];

		btf_encode_why(btf, err, why, sizeof(why));
		io_err(err, errbuf, errlen, "cannot encode the BTF: %s", why);
		goto out;
	}
	err = safe_file__open(&f, path);
	if (err) {
		io_err(err, errbuf, errlen, "cannot create a temporary file beside it: %s",
		       strerror(-err));
		goto out;
	}
	err = safe_file__write(&f, data, size, 0);
	if (!err)
		err = safe_file__commit(&f);
	if (err)
		io_err(err, errbuf, errlen, "%s (%s): %s", safe_file__step(&f),
		       f.tmp + strlen(f.target), strerror(-err));
out:
	safe_file__release(&f);
	free(data);
	return io_ensure_msg(err, errbuf, errlen);
}
