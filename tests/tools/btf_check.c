// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btf_check: check BTF by type name against a file of expectations.
 *
 *	btf_check [-p PREFIX] [--base BASE] FILE EXPECT_FILE	(EXPECT_FILE "-": stdin)
 *	btf_check --describe [--base BASE] FILE
 *
 * FILE is raw BTF or an ELF file with .BTF.  Each expectation prints one
 * line, "PASS PREFIX<line>" or "FAIL PREFIX<line>: why"; exit 1 if any
 * failed.  --describe prints expectations that FILE itself satisfies, for
 * every named type: describe a reference BTF (LLVM's own, from clang
 * -target bpf) and check ours against it.
 *
 * Expectations are checked by name, never by type ID, so that compilers
 * and dedup orders can differ.  When several types share a name, an
 * expectation passes if any one of them satisfies all of it ("count"
 * catches duplicates).
 *
 * Grammar: one expectation a line; '#' starts a comment; words are
 * separated by blanks; a value with blanks is written "in quotes".
 *
 *	int NAME [size=N] [bits=N] [signed=0|1] [char=0|1] [bool=0|1]
 *	float NAME [size=N]
 *	struct NAME [size=N] [vlen=N] [members=a,b,c]	(also: union)
 *	fwd NAME [union=0|1]
 *	member AGG.PATH [type=DESC] [offset=BYTES] [bitoffset=BITS] [bitfield=BITS]
 *	enum NAME [size=N] [signed=0|1] [vlen=N] [ENUMERATOR=VALUE ...]	(also: enum64)
 *	typedef NAME -> DESC		(or: typedef NAME type=DESC)
 *	func NAME [linkage=static|global|extern] [params=a,b] [ret=DESC] [proto=DESC]
 *	var NAME [type=DESC] [linkage=static|global|extern] [section=SEC] [size=N] [offset=N]
 *	datasec NAME [size=N] [vars=a,b]
 *	array PATH dims=N[,M...] [elem=DESC]
 *	decl_tag VALUE target=NAME [component=N]
 *	absent KIND NAME
 *	count KIND NAME N
 *
 * member: AGG is a struct or union name, PATH one or more member names
 * joined by '.'; anonymous struct/union members are looked through, so
 * "member s.x" finds x inside an unnamed union in s.  Offsets are from the
 * start of AGG.  bitfield/bitoffset read either encoding (kind_flag member
 * offsets, or an INT with fewer bits than its size).
 * array: PATH is AGG.PATH or a variable name; the type (through typedefs
 * and qualifiers) must be a chain of ARRAYs with these element counts,
 * outermost first (int a[5][6] is dims=5,6, never one array of 30).
 * enum values: decimal or 0x hex, negative allowed; compared as 32-bit
 * (ENUM) or 64-bit (ENUM64) patterns, so signedness is checked by signed=.
 * var: size and offset are those of its DATASEC entry (any DATASEC, or the
 * one named by section=).
 * params: the parameter names in order, "..." for varargs.
 * KIND: struct union enum enum64 fwd typedef int float func var datasec
 * decl_tag type_tag, or any.
 *
 * DESC, a type's description, is rendered from the BTF graph:
 *	void  int  struct foo  union <anon>  enum e  u32 (typedefs by name)
 *	char *   const char *   char * const   const volatile int
 *	int[5][6]   int (int, char *)  (a prototype; "(void)", "...")
 *	int (int) *  (pointers are a postfix " *", also to arrays and protos)
 *	__tag(user) int *  (a TYPE_TAG)
 * Qualifiers in a run are printed in the order const volatile restrict,
 * whatever order the compiler chained them in.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"

enum {
	MAX_WORDS = 64,
	MAX_DEPTH = 32,
	DESC_LEN = 1024,
	WHY_LEN = 512,
};

struct sbuf {
	char s[DESC_LEN];
	size_t len;
};

static void __attribute__((format(printf, 2, 3))) sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->s) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
	if (b->len > sizeof(b->s) - 1)
		b->len = sizeof(b->s) - 1;
}

/* ---- rendering types as C-like descriptions ---- */

static void render(const struct d2b_btf *btf, uint32_t id, struct sbuf *out, int depth);

static const char *name_or_anon(const struct d2b_btf *btf, uint32_t off)
{
	const char *s = d2b_btf__str(btf, off);

	return s && *s ? s : "<anon>";
}

static bool is_qualifier(unsigned int kind)
{
	return kind == D2B_KIND_CONST || kind == D2B_KIND_VOLATILE || kind == D2B_KIND_RESTRICT;
}

static void render_qualified(const struct d2b_btf *btf, uint32_t id, struct sbuf *out, int depth)
{
	bool c = false, v = false, r = false;
	const struct d2b_type *t = d2b_btf__type(btf, id);
	struct sbuf inner = { .len = 0 };
	char quals[32] = "";

	while (t && is_qualifier(d2b_kind(t)) && depth < MAX_DEPTH) {
		c |= d2b_kind(t) == D2B_KIND_CONST;
		v |= d2b_kind(t) == D2B_KIND_VOLATILE;
		r |= d2b_kind(t) == D2B_KIND_RESTRICT;
		id = t->type;
		t = d2b_btf__type(btf, id);
		depth++;
	}
	snprintf(quals, sizeof(quals), "%s%s%s", c ? "const " : "", v ? "volatile " : "",
		 r ? "restrict " : "");
	quals[strlen(quals) - 1] = '\0';
	render(btf, id, &inner, depth + 1);
	if (t && d2b_kind(t) == D2B_KIND_PTR)
		sb_add(out, "%s %s", inner.s, quals);
	else
		sb_add(out, "%s %s", quals, inner.s);
}

static void render_proto(const struct d2b_btf *btf, const struct d2b_type *t, struct sbuf *out,
			 int depth)
{
	const struct d2b_param *p = btf_params(t);
	unsigned int i, n = d2b_vlen(t);

	render(btf, t->type, out, depth + 1);
	sb_add(out, " (");
	if (!n)
		sb_add(out, "void");
	for (i = 0; i < n; i++) {
		if (i)
			sb_add(out, ", ");
		if (!p[i].type && !p[i].name_off)
			sb_add(out, "...");
		else
			render(btf, p[i].type, out, depth + 1);
	}
	sb_add(out, ")");
}

static void render(const struct d2b_btf *btf, uint32_t id, struct sbuf *out, int depth)
{
	const struct d2b_type *t = d2b_btf__type(btf, id);
	struct sbuf inner = { .len = 0 };

	if (depth > MAX_DEPTH) {
		sb_add(out, "<loop>");
		return;
	}
	if (!t) {
		sb_add(out, "<bad id %u>", id);
		return;
	}
	if (id == 0) {
		sb_add(out, "void");
		return;
	}
	switch (d2b_kind(t)) {
	case D2B_KIND_INT:
	case D2B_KIND_FLOAT:
	case D2B_KIND_TYPEDEF:
		sb_add(out, "%s", name_or_anon(btf, t->name_off));
		break;
	case D2B_KIND_STRUCT:
		sb_add(out, "struct %s", name_or_anon(btf, t->name_off));
		break;
	case D2B_KIND_UNION:
		sb_add(out, "union %s", name_or_anon(btf, t->name_off));
		break;
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		sb_add(out, "enum %s", name_or_anon(btf, t->name_off));
		break;
	case D2B_KIND_FWD:
		sb_add(out, "%s %s", d2b_kflag(t) ? "union" : "struct", name_or_anon(btf, t->name_off));
		break;
	case D2B_KIND_PTR:
		render(btf, t->type, &inner, depth + 1);
		sb_add(out, "%s%s", inner.s, inner.len && inner.s[inner.len - 1] == '*' ? "*" : " *");
		break;
	case D2B_KIND_CONST:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_RESTRICT:
		render_qualified(btf, id, out, depth);
		break;
	case D2B_KIND_TYPE_TAG:
		sb_add(out, "__tag(%s) ", name_or_anon(btf, t->name_off));
		render(btf, t->type, out, depth + 1);
		break;
	case D2B_KIND_ARRAY: {
		char dims[256] = "";
		size_t dl = 0;

		while (t && d2b_kind(t) == D2B_KIND_ARRAY && depth++ < MAX_DEPTH) {
			if (dl < sizeof(dims))
				dl += (size_t)snprintf(dims + dl, sizeof(dims) - dl, "[%u]",
						       btf_array(t)->nelems);
			id = btf_array(t)->type;
			t = d2b_btf__type(btf, id);
		}
		render(btf, id, out, depth + 1);
		sb_add(out, "%s", dims);
		break;
	}
	case D2B_KIND_FUNC_PROTO:
		render_proto(btf, t, out, depth);
		break;
	case D2B_KIND_VAR:
		render(btf, t->type, out, depth + 1);
		break;
	default:
		sb_add(out, "<%s %s>", d2b_kind_name(d2b_kind(t)), name_or_anon(btf, t->name_off));
		break;
	}
}

static const char *describe(const struct d2b_btf *btf, uint32_t id, struct sbuf *b)
{
	b->len = 0;
	b->s[0] = '\0';
	render(btf, id, b, 0);
	return b->s;
}

/* Follow typedefs, qualifiers and type tags. */
static uint32_t peel(const struct d2b_btf *btf, uint32_t id)
{
	int depth;

	for (depth = 0; depth < MAX_DEPTH; depth++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (!t || !(d2b_kind(t) == D2B_KIND_TYPEDEF || is_qualifier(d2b_kind(t)) ||
			    d2b_kind(t) == D2B_KIND_TYPE_TAG))
			return id;
		id = t->type;
	}
	return id;
}

static bool is_composite(const struct d2b_type *t)
{
	return t && (d2b_kind(t) == D2B_KIND_STRUCT || d2b_kind(t) == D2B_KIND_UNION);
}

/* ---- members ---- */

struct member_info {
	uint32_t type;
	uint32_t bit_offset;	/* from the start of the outermost aggregate */
	uint32_t bitfield;	/* 0: not a bitfield */
};

/* A member's own view: its bitfield size and offset in either encoding. */
static void member_info_of(const struct d2b_btf *btf, const struct d2b_type *agg,
			   const struct d2b_member *m, uint32_t base_off, struct member_info *ret)
{
	const struct d2b_type *mt;

	ret->type = m->type;
	ret->bit_offset = base_off + d2b_member_bit_offset(agg, m);
	ret->bitfield = d2b_member_bitfield_size(agg, m);
	if (d2b_kflag(agg))
		return;
	mt = d2b_btf__type(btf, peel(btf, m->type));
	if (mt && d2b_kind(mt) == D2B_KIND_INT) {
		uint32_t w = btf_int_word(mt);

		if (d2b_int_bits(w) != mt->size * 8 || d2b_int_offset(w)) {
			ret->bitfield = d2b_int_bits(w);
			ret->bit_offset += d2b_int_offset(w);
		}
	}
}

/* Find member name in aggregate id, looking through anonymous members. */
static bool find_member(const struct d2b_btf *btf, uint32_t id, const char *name, size_t nlen,
			uint32_t base_off, struct member_info *ret, int depth)
{
	const struct d2b_type *t = d2b_btf__type(btf, peel(btf, id));
	const struct d2b_member *m;
	unsigned int i;

	if (!is_composite(t) || depth > MAX_DEPTH)
		return false;
	m = btf_members(t);
	for (i = 0; i < d2b_vlen(t); i++) {
		const char *mn = d2b_btf__str(btf, m[i].name_off);

		if (mn && strlen(mn) == nlen && !strncmp(mn, name, nlen)) {
			member_info_of(btf, t, &m[i], base_off, ret);
			return true;
		}
	}
	for (i = 0; i < d2b_vlen(t); i++) {
		const char *mn = d2b_btf__str(btf, m[i].name_off);

		if ((!mn || !*mn) &&
		    find_member(btf, m[i].type, name, nlen, base_off + d2b_member_bit_offset(t, &m[i]),
				ret, depth + 1))
			return true;
	}
	return false;
}

/* Resolve "a.b.c" inside aggregate id. */
static bool find_path(const struct d2b_btf *btf, uint32_t id, const char *path,
		      struct member_info *ret)
{
	uint32_t off = 0;

	for (;;) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (!find_member(btf, id, path, n, off, ret, 0))
			return false;
		if (!dot)
			return true;
		id = ret->type;
		off = ret->bit_offset;
		path = dot + 1;
	}
}

/* ---- expectations ---- */

struct kv {
	char *key;
	char *val;	/* NULL for a bare word */
};

struct expect {
	char *words[MAX_WORDS];
	struct kv kv[MAX_WORDS];
	int nwords;
	int nkv;
	char why[WHY_LEN];
};

static void __attribute__((format(printf, 2, 3))) why(struct expect *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
}

/* Split a line into words in place; quoted values keep their blanks. */
static int tokenize(char *line, struct expect *e, char *err, size_t errlen)
{
	char *p = line, *w;

	e->nwords = 0;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (e->nwords == MAX_WORDS) {
			snprintf(err, errlen, "too many words");
			return -1;
		}
		w = p;
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '"') {
				/* drop the quotes, keep what is inside */
				char *q = strchr(p + 1, '"');

				if (!q) {
					snprintf(err, errlen, "unterminated quote");
					return -1;
				}
				memmove(p, p + 1, (size_t)(q - p - 1));
				memmove(q - 1, q + 1, strlen(q + 1) + 1);
				p = q - 1;
				continue;
			}
			p++;
		}
		if (*p)
			*p++ = '\0';
		e->words[e->nwords++] = w;
	}
	return 0;
}

static const char *kv_get(const struct expect *e, const char *key)
{
	int i;

	for (i = 0; i < e->nkv; i++)
		if (e->kv[i].val && !strcmp(e->kv[i].key, key))
			return e->kv[i].val;
	return NULL;
}

static bool parse_u64(const char *s, uint64_t *ret)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	if (*s == '-') {
		long long v = strtoll(s, &end, 0);

		*ret = (uint64_t)v;
	} else {
		*ret = strtoull(s, &end, 0);
	}
	return !errno && !*end;
}

/* key=N against a value; false (and why) on a mismatch or a bad number */
static bool check_num(struct expect *e, const char *key, uint64_t actual)
{
	const char *v = kv_get(e, key);
	uint64_t want;

	if (!v)
		return true;
	if (!parse_u64(v, &want)) {
		why(e, "%s=%s is not a number", key, v);
		return false;
	}
	if (want != actual) {
		why(e, "%s is %" PRIu64 ", expected %s", key, actual, v);
		return false;
	}
	return true;
}

static bool check_desc(struct expect *e, const struct d2b_btf *btf, const char *key, uint32_t id)
{
	const char *v = kv_get(e, key);
	struct sbuf b;

	if (!v)
		return true;
	describe(btf, id, &b);
	if (strcmp(v, b.s)) {
		why(e, "%s is \"%s\", expected \"%s\"", key, b.s, v);
		return false;
	}
	return true;
}

static const char *const linkage_names[] = { "static", "global", "extern" };

static bool check_linkage(struct expect *e, uint32_t linkage)
{
	const char *v = kv_get(e, "linkage");
	const char *have = linkage < 3 ? linkage_names[linkage] : "?";

	if (v && strcmp(v, have)) {
		why(e, "linkage is %s, expected %s", have, v);
		return false;
	}
	return true;
}

/* kind word of the grammar -> BTF kind; -1 for "any", -2 unknown */
static int kind_of_word(const char *w)
{
	static const struct { const char *w; int kind; } map[] = {
		{ "struct", D2B_KIND_STRUCT }, { "union", D2B_KIND_UNION },
		{ "enum", D2B_KIND_ENUM }, { "enum64", D2B_KIND_ENUM64 },
		{ "fwd", D2B_KIND_FWD }, { "typedef", D2B_KIND_TYPEDEF },
		{ "int", D2B_KIND_INT }, { "float", D2B_KIND_FLOAT },
		{ "func", D2B_KIND_FUNC }, { "var", D2B_KIND_VAR },
		{ "datasec", D2B_KIND_DATASEC }, { "decl_tag", D2B_KIND_DECL_TAG },
		{ "type_tag", D2B_KIND_TYPE_TAG }, { "any", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].w, w))
			return map[i].kind;
	return -2;
}

static bool name_is(const struct d2b_btf *btf, uint32_t id, const char *name)
{
	const char *n = d2b_btf__name(btf, id);

	return n && !strcmp(n, name);
}

/* Next type of this kind (-1: any kind) and name after id; 0 when none. */
static uint32_t next_named(const struct d2b_btf *btf, int kind, const char *name, uint32_t id)
{
	uint32_t end = d2b_btf__end_id(btf);

	for (id++; id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (t && (kind < 0 || d2b_kind(t) == (unsigned int)kind) && name_is(btf, id, name))
			return id;
	}
	return 0;
}

static bool list_matches(struct expect *e, const char *key, const char *want, const char *have)
{
	if (strcmp(want, have)) {
		why(e, "%s are \"%s\", expected \"%s\"", key, have, want);
		return false;
	}
	return true;
}

/* One candidate type against the expectation's attributes. */
static bool check_type(struct expect *e, const struct d2b_btf *btf, uint32_t id)
{
	const struct d2b_type *t = d2b_btf__type(btf, id);
	unsigned int kind = d2b_kind(t), i;
	const char *v;
	char list[DESC_LEN];
	size_t ll = 0;

	list[0] = '\0';
	switch (kind) {
	case D2B_KIND_INT: {
		uint32_t w = btf_int_word(t);

		return check_num(e, "size", t->size) && check_num(e, "bits", d2b_int_bits(w)) &&
		       check_num(e, "signed", !!(d2b_int_encoding(w) & D2B_INT_SIGNED)) &&
		       check_num(e, "char", !!(d2b_int_encoding(w) & D2B_INT_CHAR)) &&
		       check_num(e, "bool", !!(d2b_int_encoding(w) & D2B_INT_BOOL));
	}
	case D2B_KIND_FLOAT:
		return check_num(e, "size", t->size);
	case D2B_KIND_FWD:
		return check_num(e, "union", d2b_kflag(t));
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		if (!check_num(e, "size", t->size) || !check_num(e, "vlen", d2b_vlen(t)))
			return false;
		v = kv_get(e, "members");
		if (!v)
			return true;
		for (i = 0; i < d2b_vlen(t); i++)
			ll += (size_t)snprintf(list + ll, ll < sizeof(list) ? sizeof(list) - ll : 0,
					       "%s%s", i ? "," : "",
					       d2b_btf__str(btf, btf_members(t)[i].name_off));
		return list_matches(e, "members", v, list);
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		if (!check_num(e, "size", t->size) || !check_num(e, "vlen", d2b_vlen(t)) ||
		    !check_num(e, "signed", d2b_kflag(t)))
			return false;
		for (int k = 0; k < e->nkv; k++) {
			const char *en = e->kv[k].key;
			uint64_t want, have = 0;
			bool found = false;

			if (!e->kv[k].val || !strcmp(en, "size") || !strcmp(en, "vlen") ||
			    !strcmp(en, "signed"))
				continue;
			if (!parse_u64(e->kv[k].val, &want)) {
				why(e, "%s=%s is not a number", en, e->kv[k].val);
				return false;
			}
			for (i = 0; i < d2b_vlen(t) && !found; i++) {
				uint32_t no = kind == D2B_KIND_ENUM ? btf_enums(t)[i].name_off
								    : btf_enums64(t)[i].name_off;

				if (strcmp(d2b_btf__str(btf, no), en))
					continue;
				found = true;
				have = kind == D2B_KIND_ENUM ? (uint32_t)btf_enums(t)[i].val
							     : btf_enum64_val(&btf_enums64(t)[i]);
			}
			if (kind == D2B_KIND_ENUM)
				want = (uint32_t)want;
			if (!found) {
				why(e, "no enumerator %s", en);
				return false;
			}
			if (have != want) {
				why(e, "%s is %" PRId64 " (0x%" PRIx64 "), expected %s", en,
				    (int64_t)have, have, e->kv[k].val);
				return false;
			}
		}
		return true;
	case D2B_KIND_TYPEDEF:
		return check_desc(e, btf, "type", t->type);
	case D2B_KIND_FUNC: {
		const struct d2b_type *p = d2b_btf__type(btf, t->type);

		if (!check_linkage(e, d2b_vlen(t)) || !check_desc(e, btf, "proto", t->type))
			return false;
		if (!p || d2b_kind(p) != D2B_KIND_FUNC_PROTO) {
			why(e, "type %u is not a FUNC_PROTO", t->type);
			return false;
		}
		if (!check_desc(e, btf, "ret", p->type))
			return false;
		v = kv_get(e, "params");
		if (!v)
			return true;
		for (i = 0; i < d2b_vlen(p); i++) {
			const struct d2b_param *pa = &btf_params(p)[i];
			const char *pn = pa->type || pa->name_off ? d2b_btf__str(btf, pa->name_off)
								  : "...";

			ll += (size_t)snprintf(list + ll, ll < sizeof(list) ? sizeof(list) - ll : 0,
					       "%s%s", i ? "," : "", pn ? pn : "?");
		}
		return list_matches(e, "params", v, list);
	}
	case D2B_KIND_VAR: {
		uint32_t end = d2b_btf__end_id(btf), sid;
		const char *sec = kv_get(e, "section");

		if (!check_desc(e, btf, "type", t->type) || !check_linkage(e, btf_var_linkage(t)))
			return false;
		if (!sec && !kv_get(e, "size") && !kv_get(e, "offset"))
			return true;
		for (sid = 1; sid < end; sid++) {
			const struct d2b_type *s = d2b_btf__type(btf, sid);

			if (!s || d2b_kind(s) != D2B_KIND_DATASEC || (sec && !name_is(btf, sid, sec)))
				continue;
			for (i = 0; i < d2b_vlen(s); i++)
				if (btf_secinfos(s)[i].type == id)
					return check_num(e, "size", btf_secinfos(s)[i].size) &&
					       check_num(e, "offset", btf_secinfos(s)[i].offset);
		}
		why(e, "not in a DATASEC%s%s", sec ? " named " : "", sec ? sec : "");
		return false;
	}
	case D2B_KIND_DATASEC:
		if (!check_num(e, "size", t->size))
			return false;
		v = kv_get(e, "vars");
		if (!v)
			return true;
		for (i = 0; i < d2b_vlen(t); i++)
			ll += (size_t)snprintf(list + ll, ll < sizeof(list) ? sizeof(list) - ll : 0,
					       "%s%s", i ? "," : "",
					       d2b_btf__name(btf, btf_secinfos(t)[i].type));
		return list_matches(e, "vars", v, list);
	case D2B_KIND_DECL_TAG: {
		const char *target = kv_get(e, "target");

		if (target && !name_is(btf, t->type, target)) {
			why(e, "target is \"%s\"", d2b_btf__name(btf, t->type));
			return false;
		}
		return check_num(e, "component", (uint64_t)(int64_t)btf_decl_tag_idx(t));
	}
	default:
		return true;
	}
}

/* A named-type expectation: some type of this kind and name satisfies it. */
static bool expect_named(struct expect *e, const struct d2b_btf *btf, int kind)
{
	const char *name = e->words[1];
	uint32_t id, n = 0;
	char first_why[WHY_LEN] = "";

	for (id = next_named(btf, kind, name, 0); id; id = next_named(btf, kind, name, id)) {
		e->why[0] = '\0';
		if (check_type(e, btf, id))
			return true;
		if (!n++)
			snprintf(first_why, sizeof(first_why), "%s", e->why);
	}
	if (!n)
		why(e, "no %s named %s", e->words[0], name);
	else if (n == 1)
		why(e, "%s", first_why);
	else
		why(e, "none of %u types named %s fits; the first: %s", n, name, first_why);
	return false;
}

/* Each struct/union called agg, tried in turn with fn. */
static bool for_each_agg(struct expect *e, const struct d2b_btf *btf, const char *agg,
			 bool (*fn)(struct expect *, const struct d2b_btf *, uint32_t, const char *),
			 const char *path)
{
	uint32_t id, n = 0;
	char first_why[WHY_LEN] = "";

	for (id = next_named(btf, -1, agg, 0); id; id = next_named(btf, -1, agg, id)) {
		if (!is_composite(d2b_btf__type(btf, id)))
			continue;
		e->why[0] = '\0';
		if (fn(e, btf, id, path))
			return true;
		if (!n++)
			snprintf(first_why, sizeof(first_why), "%s", e->why);
	}
	if (!n)
		why(e, "no struct or union named %s", agg);
	else
		why(e, "%s", first_why);
	return false;
}

static bool member_fits(struct expect *e, const struct d2b_btf *btf, uint32_t id, const char *path)
{
	struct member_info mi;
	const char *v;

	if (!find_path(btf, id, path, &mi)) {
		why(e, "no member %s", path);
		return false;
	}
	v = kv_get(e, "offset");
	if (v && mi.bit_offset % 8) {
		why(e, "offset is bit %u, not a whole byte", mi.bit_offset);
		return false;
	}
	return check_desc(e, btf, "type", mi.type) && check_num(e, "offset", mi.bit_offset / 8) &&
	       check_num(e, "bitoffset", mi.bit_offset) && check_num(e, "bitfield", mi.bitfield);
}

static bool array_fits(struct expect *e, const struct d2b_btf *btf, uint32_t id, const char *want)
{
	char dims[256] = "";
	size_t dl = 0;
	int depth;

	id = peel(btf, id);
	for (depth = 0; depth < MAX_DEPTH; depth++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);

		if (!t || d2b_kind(t) != D2B_KIND_ARRAY)
			break;
		dl += (size_t)snprintf(dims + dl, dl < sizeof(dims) ? sizeof(dims) - dl : 0, "%s%u",
				       dl ? "," : "", btf_array(t)->nelems);
		id = btf_array(t)->type;
	}
	if (!dl) {
		why(e, "not an array");
		return false;
	}
	if (strcmp(dims, want)) {
		why(e, "dims are %s, expected %s", dims, want);
		return false;
	}
	return check_desc(e, btf, "elem", id);
}

static bool array_member_fits(struct expect *e, const struct d2b_btf *btf, uint32_t id,
			      const char *path)
{
	struct member_info mi;

	if (!find_path(btf, id, path, &mi)) {
		why(e, "no member %s", path);
		return false;
	}
	return array_fits(e, btf, mi.type, kv_get(e, "dims"));
}

static bool expect_member(struct expect *e, const struct d2b_btf *btf, bool array)
{
	char agg[256];
	const char *dot = strchr(e->words[1], '.');

	if (!dot || (size_t)(dot - e->words[1]) >= sizeof(agg)) {
		why(e, "expected AGG.MEMBER");
		return false;
	}
	memcpy(agg, e->words[1], (size_t)(dot - e->words[1]));
	agg[dot - e->words[1]] = '\0';
	return for_each_agg(e, btf, agg, array ? array_member_fits : member_fits, dot + 1);
}

static bool expect_array(struct expect *e, const struct d2b_btf *btf)
{
	const char *dims = kv_get(e, "dims");
	uint32_t id, n = 0;

	if (!dims) {
		why(e, "array needs dims=");
		return false;
	}
	if (strchr(e->words[1], '.'))
		return expect_member(e, btf, true);
	for (id = next_named(btf, D2B_KIND_VAR, e->words[1], 0); id;
	     id = next_named(btf, D2B_KIND_VAR, e->words[1], id), n++)
		if (array_fits(e, btf, d2b_btf__type(btf, id)->type, dims))
			return true;
	if (!n)
		why(e, "no var named %s", e->words[1]);
	return false;
}

static uint32_t count_named(const struct d2b_btf *btf, int kind, const char *name)
{
	uint32_t id, n = 0;

	for (id = next_named(btf, kind, name, 0); id; id = next_named(btf, kind, name, id))
		n++;
	return n;
}

static bool expect_decl_tag(struct expect *e, const struct d2b_btf *btf)
{
	return expect_named(e, btf, D2B_KIND_DECL_TAG);
}

/* Run one tokenized expectation; false with e->why on failure. */
static bool run_expect(struct expect *e, const struct d2b_btf *btf)
{
	const char *verb = e->words[0];
	int i, kind;

	e->nkv = 0;
	for (i = 2; i < e->nwords; i++) {
		char *eq = strchr(e->words[i], '=');

		e->kv[e->nkv].key = e->words[i];
		e->kv[e->nkv].val = NULL;
		if (eq) {
			*eq = '\0';
			e->kv[e->nkv].val = eq + 1;
		}
		e->nkv++;
	}
	if (e->nwords < 2) {
		why(e, "expected a name after %s", verb);
		return false;
	}
	if (!strcmp(verb, "member"))
		return expect_member(e, btf, false);
	if (!strcmp(verb, "array"))
		return expect_array(e, btf);
	if (!strcmp(verb, "decl_tag"))
		return expect_decl_tag(e, btf);
	if (!strcmp(verb, "typedef") && e->nwords >= 4 && !strcmp(e->words[2], "->")) {
		/* "typedef NAME -> DESC..." : the rest of the words are DESC */
		static char desc[DESC_LEN];
		size_t dl = 0;

		for (i = 3; i < e->nwords; i++)
			dl += (size_t)snprintf(desc + dl, dl < sizeof(desc) ? sizeof(desc) - dl : 0,
					       "%s%s", i > 3 ? " " : "", e->words[i]);
		e->kv[0].key = "type";
		e->kv[0].val = desc;
		e->nkv = 1;
	}
	if (!strcmp(verb, "absent") || !strcmp(verb, "count")) {
		uint32_t n, want = 0;

		kind = e->nwords >= 3 ? kind_of_word(e->words[1]) : -2;
		if (kind == -2 || (!strcmp(verb, "count") && e->nwords != 4)) {
			why(e, "expected: %s KIND NAME%s", verb, *verb == 'c' ? " N" : "");
			return false;
		}
		if (*verb == 'c')
			want = (uint32_t)strtoul(e->words[3], NULL, 0);
		n = count_named(btf, kind, e->words[2]);
		if (n != want) {
			why(e, "%u found, expected %u", n, want);
			return false;
		}
		return true;
	}
	kind = kind_of_word(verb);
	if (kind < 0) {
		why(e, "unknown expectation \"%s\"", verb);
		return false;
	}
	return expect_named(e, btf, kind);
}

/* ---- --describe ---- */

static void describe_members(const struct d2b_btf *btf, const char *prefix, uint32_t id,
			     uint32_t base_off, int depth)
{
	const struct d2b_type *t = d2b_btf__type(btf, id);
	unsigned int i;
	struct sbuf b;

	if (!is_composite(t) || depth > MAX_DEPTH)
		return;
	for (i = 0; i < d2b_vlen(t); i++) {
		const struct d2b_member *m = &btf_members(t)[i];
		const char *mn = d2b_btf__str(btf, m->name_off);
		const struct d2b_type *mt = d2b_btf__type(btf, peel(btf, m->type));
		struct member_info mi;
		char path[512];

		member_info_of(btf, t, m, base_off, &mi);
		if (!mn || !*mn) {
			/* anonymous member: its members are found through it */
			describe_members(btf, prefix, m->type, mi.bit_offset, depth + 1);
			continue;
		}
		if (snprintf(path, sizeof(path), "%s.%s", prefix, mn) >= (int)sizeof(path))
			path[sizeof(path) - 2] = '~';	/* cut: say so */
		printf("member %s type=\"%s\"", path, describe(btf, mi.type, &b));
		if (mi.bitfield)
			printf(" bitfield=%u bitoffset=%u\n", mi.bitfield, mi.bit_offset);
		else
			printf(" bitoffset=%u\n", mi.bit_offset);
		/* a named member of an anonymous aggregate type: no other line describes it */
		if (is_composite(mt) && !mt->name_off)
			describe_members(btf, path, peel(btf, m->type), mi.bit_offset, depth + 1);
	}
}

static void describe_all(const struct d2b_btf *btf)
{
	uint32_t id, end = d2b_btf__end_id(btf), i;
	char qname[512];
	struct sbuf b;

	for (id = d2b_btf__start_id(btf); id < end; id++) {
		const struct d2b_type *t = d2b_btf__type(btf, id);
		const char *name = d2b_btf__name(btf, id);
		unsigned int kind = t ? d2b_kind(t) : 0;

		if (!t || !name || !*name)
			continue;
		if (strchr(name, ' ')) {
			/* "unsigned int": quoted, so that it reads back as one word */
			snprintf(qname, sizeof(qname), "\"%s\"", name);
			name = qname;
		}
		switch (kind) {
		case D2B_KIND_INT: {
			uint32_t w = btf_int_word(t);

			printf("int %s size=%u bits=%u signed=%u char=%u bool=%u\n", name, t->size,
			       d2b_int_bits(w), !!(d2b_int_encoding(w) & D2B_INT_SIGNED),
			       !!(d2b_int_encoding(w) & D2B_INT_CHAR),
			       !!(d2b_int_encoding(w) & D2B_INT_BOOL));
			break;
		}
		case D2B_KIND_FLOAT:
			printf("float %s size=%u\n", name, t->size);
			break;
		case D2B_KIND_STRUCT:
		case D2B_KIND_UNION:
			printf("%s %s size=%u vlen=%u\n", kind == D2B_KIND_STRUCT ? "struct" : "union",
			       name, t->size, d2b_vlen(t));
			describe_members(btf, name, id, 0, 0);
			break;
		case D2B_KIND_FWD:
			printf("fwd %s union=%u\n", name, d2b_kflag(t));
			break;
		case D2B_KIND_ENUM:
		case D2B_KIND_ENUM64:
			printf("%s %s size=%u signed=%u vlen=%u", kind == D2B_KIND_ENUM ? "enum" : "enum64",
			       name, t->size, d2b_kflag(t), d2b_vlen(t));
			for (i = 0; i < d2b_vlen(t); i++) {
				if (kind == D2B_KIND_ENUM)
					printf(" %s=%d", d2b_btf__str(btf, btf_enums(t)[i].name_off),
					       btf_enums(t)[i].val);
				else
					printf(" %s=0x%" PRIx64,
					       d2b_btf__str(btf, btf_enums64(t)[i].name_off),
					       btf_enum64_val(&btf_enums64(t)[i]));
			}
			printf("\n");
			break;
		case D2B_KIND_TYPEDEF:
			printf("typedef %s -> %s\n", name, describe(btf, t->type, &b));
			break;
		case D2B_KIND_FUNC: {
			const struct d2b_type *p = d2b_btf__type(btf, t->type);

			printf("func %s linkage=%s proto=\"%s\"", name,
			       d2b_vlen(t) < 3 ? linkage_names[d2b_vlen(t)] : "?",
			       describe(btf, t->type, &b));
			if (p && d2b_kind(p) == D2B_KIND_FUNC_PROTO) {
				printf(" params=");
				for (i = 0; i < d2b_vlen(p); i++) {
					const struct d2b_param *pa = &btf_params(p)[i];

					printf("%s%s", i ? "," : "",
					       pa->type || pa->name_off ? d2b_btf__str(btf, pa->name_off)
									: "...");
				}
			}
			printf("\n");
			break;
		}
		case D2B_KIND_VAR: {
			const char *sec = NULL;
			uint32_t sid, j;

			for (sid = 1; sid < end && !sec; sid++) {
				const struct d2b_type *s = d2b_btf__type(btf, sid);

				if (!s || d2b_kind(s) != D2B_KIND_DATASEC)
					continue;
				for (j = 0; j < d2b_vlen(s); j++)
					if (btf_secinfos(s)[j].type == id)
						sec = d2b_btf__name(btf, sid);
			}
			printf("var %s type=\"%s\" linkage=%s", name, describe(btf, t->type, &b),
			       btf_var_linkage(t) < 3 ? linkage_names[btf_var_linkage(t)] : "?");
			if (sec)
				printf(" section=%s", sec);
			printf("\n");
			break;
		}
		case D2B_KIND_DATASEC:
			printf("datasec %s\n", name);
			break;
		case D2B_KIND_DECL_TAG:
			printf("decl_tag \"%s\" target=%s component=%d\n", name,
			       d2b_btf__name(btf, t->type), btf_decl_tag_idx(t));
			break;
		default:
			break;
		}
	}
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr,
		"usage: btf_check [-p PREFIX] [--base BASE] FILE EXPECT_FILE\n"
		"       btf_check --describe [--base BASE] FILE\n"
		"  (the expectation grammar is described atop tests/tools/btf_check.c)\n");
}

static int check_file(const struct d2b_btf *btf, const char *path, const char *prefix)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *orig = NULL;
	size_t cap = 0;
	ssize_t n;
	int nfail = 0, npass = 0;

	if (!f) {
		printf("FAIL %sexpectations: %s: %s\n", prefix, path, strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		struct expect e;
		char err[128];

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = '\0';
		free(orig);
		orig = strdup(line);
		if (!orig)
			break;
		memset(&e, 0, sizeof(e));
		if (tokenize(line, &e, err, sizeof(err))) {
			printf("FAIL %s%s: bad expectation: %s\n", prefix, orig, err);
			nfail++;
			continue;
		}
		if (!e.nwords)
			continue;
		/* the line as written, without a trailing comment */
		if (strchr(orig, '#') && !strchr(orig, '"'))
			*strchr(orig, '#') = '\0';
		for (n = (ssize_t)strlen(orig); n > 0 && isspace((unsigned char)orig[n - 1]);)
			orig[--n] = '\0';
		if (run_expect(&e, btf)) {
			printf("PASS %s%s\n", prefix, orig);
			npass++;
		} else {
			printf("FAIL %s%s: %s\n", prefix, orig, e.why);
			nfail++;
		}
	}
	free(line);
	free(orig);
	if (f != stdin)
		fclose(f);
	if (!npass && !nfail) {
		printf("FAIL %sexpectations: %s has none\n", prefix, path);
		return 1;
	}
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *prefix = "", *base_path = NULL, *args[2];
	struct d2b_btf *btf = NULL, *base = NULL;
	bool describe_mode = false;
	char err[512];
	int i, nargs = 0, ret = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc)
			prefix = argv[++i];
		else if (!strcmp(argv[i], "--base") && i + 1 < argc)
			base_path = argv[++i];
		else if (!strcmp(argv[i], "--describe"))
			describe_mode = true;
		else if (nargs < 2 && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
			args[nargs++] = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (nargs != (describe_mode ? 1 : 2)) {
		usage();
		return 2;
	}
	if (base_path && d2b_btf__load_file(base_path, NULL, &base, err, sizeof(err))) {
		printf("FAIL %sload: base %s: %s\n", prefix, base_path, err);
		goto out;
	}
	if (d2b_btf__load_file(args[0], base, &btf, err, sizeof(err))) {
		printf("FAIL %sload: %s: %s\n", prefix, args[0], err);
		goto out;
	}
	if (describe_mode) {
		describe_all(btf);
		ret = 0;
	} else {
		ret = check_file(btf, args[1], prefix);
	}
out:
	d2b_btf__free(btf);
	d2b_btf__free(base);
	return ret;
}
