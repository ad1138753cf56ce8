// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A text dump of own types, line for line what `bpftool btf dump file F`
 * (bpftool 7.1, raw format) prints, so golden tests can diff our view of a
 * blob against bpftool's.  Split BTF prints only its own types, numbered
 * after the base's, as `bpftool -B BASE btf dump file F` does.  A layout
 * section, which bpftool does not print, follows the types: a line
 * "LAYOUT kinds=N", then one per record, so that diffs with bpftool's
 * dump of the same blob differ only by those lines.  The bpf tree's
 * inline-site kinds print as its bpftool prints them (its selftest
 * bpftool_btf_dump, loc_dump): a LOC_PARAM's value in words, each LOC_PROTO
 * parameter with its value, each LOCSEC site with its FUNC's name.
 */
#include <errno.h>
#include <inttypes.h>

#include "btf/btf.h"
#include "btf/btf_loc.h"

enum { LOC_VALUE_LEN = 96 };	/* "*(fbreg - 0xffffffffffffffff)" and more */

static const char *dump_str(const struct d2b_btf *btf, uint32_t off)
{
	const char *s;

	if (!off)
		return "(anon)";
	s = d2b_btf__str(btf, off);
	return s ? s : "(invalid)";
}

static const char *int_encoding_str(unsigned int enc)
{
	switch (enc) {
	case 0:
		return "(none)";
	case D2B_INT_SIGNED:
		return "SIGNED";
	case D2B_INT_CHAR:
		return "CHAR";
	case D2B_INT_BOOL:
		return "BOOL";
	default:
		return "UNKN";
	}
}

static const char *linkage_str(uint32_t linkage)
{
	switch (linkage) {
	case D2B_LINKAGE_STATIC:
		return "static";
	case D2B_LINKAGE_GLOBAL:
		return "global";
	case D2B_LINKAGE_EXTERN:
		return "extern";
	default:
		return "(unknown)";
	}
}

static void dump_members(const struct d2b_btf *btf, const struct d2b_type *t, FILE *out)
{
	const struct d2b_member *m = btf_members(t);
	unsigned int i;

	for (i = 0; i < d2b_vlen(t); i++) {
		uint32_t bits = d2b_member_bitfield_size(t, &m[i]);

		fprintf(out, "\n\t'%s' type_id=%u bits_offset=%u", dump_str(btf, m[i].name_off),
			m[i].type, d2b_member_bit_offset(t, &m[i]));
		if (bits)
			fprintf(out, " bitfield_size=%u", bits);
	}
}

static void dump_enum(const struct d2b_btf *btf, const struct d2b_type *t, FILE *out)
{
	unsigned int i;

	fprintf(out, " encoding=%s size=%u vlen=%u", d2b_kflag(t) ? "SIGNED" : "UNSIGNED",
		t->size, d2b_vlen(t));
	for (i = 0; i < d2b_vlen(t); i++) {
		if (d2b_kind(t) == D2B_KIND_ENUM) {
			const struct d2b_enum *e = &btf_enums(t)[i];

			if (d2b_kflag(t))
				fprintf(out, "\n\t'%s' val=%d", dump_str(btf, e->name_off), e->val);
			else
				fprintf(out, "\n\t'%s' val=%u", dump_str(btf, e->name_off),
					(uint32_t)e->val);
		} else {
			const struct d2b_enum64 *e = &btf_enums64(t)[i];
			uint64_t v = btf_enum64_val(e);

			if (d2b_kflag(t))
				fprintf(out, "\n\t'%s' val=%" PRId64 "LL", dump_str(btf, e->name_off),
					(int64_t)v);
			else
				fprintf(out, "\n\t'%s' val=%" PRIu64 "ULL", dump_str(btf, e->name_off), v);
		}
	}
}

static void dump_datasec(const struct d2b_btf *btf, const struct d2b_type *t, FILE *out)
{
	const struct d2b_var_secinfo *v = btf_secinfos(t);
	unsigned int i;

	fprintf(out, " size=%u vlen=%u", t->size, d2b_vlen(t));
	for (i = 0; i < d2b_vlen(t); i++) {
		const struct d2b_type *vt = d2b_btf__type(btf, v[i].type);

		fprintf(out, "\n\ttype_id=%u offset=%u size=%u", v[i].type, v[i].offset, v[i].size);
		if (vt)
			fprintf(out, " (%s '%s')", d2b_kind_name(d2b_kind(vt)),
				dump_str(btf, vt->name_off));
	}
}

/* A LOC_PROTO's parameters: each ID, and the value of a LOC_PARAM */
static void dump_loc_proto(const struct d2b_btf *btf, const struct d2b_type *t, FILE *out)
{
	char value[LOC_VALUE_LEN];
	uint32_t i;

	fprintf(out, " vlen=%u", d2b_vlen(t));
	for (i = 0; i < d2b_vlen(t); i++) {
		uint32_t p = d2b_loc_proto_params(t)[i];
		const struct d2b_type *lp = p ? d2b_btf__type(btf, p) : NULL;

		fprintf(out, "\n\ttype_id=%u", p);
		if (lp && d2b_kind(lp) == D2B_KIND_LOC_PARAM) {
			btf_loc_param_format(lp, value, sizeof(value));
			fprintf(out, " value='%s'", value);
		}
	}
}

static void dump_locsec(const struct d2b_btf *btf, const struct d2b_type *t, FILE *out)
{
	const struct d2b_loc *l = d2b_locsec_locs(t);
	uint32_t i;

	fprintf(out, " vlen=%u", d2b_vlen(t));
	for (i = 0; i < d2b_vlen(t); i++) {
		const char *name = d2b_btf__name(btf, l[i].func);

		fprintf(out, "\n\tname='%s' func_type_id=%u loc_proto_type_id=%u offset=%u",
			name ? name : "(invalid)", l[i].func, l[i].loc_proto, l[i].offset);
	}
}

static void dump_type(const struct d2b_btf *btf, uint32_t id, const struct d2b_type *t, FILE *out)
{
	unsigned int i, kind = d2b_kind(t);

	fprintf(out, "[%u] %s '%s'", id, d2b_kind_name(kind), dump_str(btf, t->name_off));
	switch (kind) {
	case D2B_KIND_INT: {
		uint32_t w = btf_int_word(t);

		fprintf(out, " size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size,
			d2b_int_offset(w), d2b_int_bits(w), int_encoding_str(d2b_int_encoding(w)));
		break;
	}
	case D2B_KIND_PTR:
	case D2B_KIND_CONST:
	case D2B_KIND_VOLATILE:
	case D2B_KIND_RESTRICT:
	case D2B_KIND_TYPEDEF:
	case D2B_KIND_TYPE_TAG:
		fprintf(out, " type_id=%u", t->type);
		break;
	case D2B_KIND_ARRAY: {
		const struct d2b_array *a = btf_array(t);

		fprintf(out, " type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type,
			a->nelems);
		break;
	}
	case D2B_KIND_STRUCT:
	case D2B_KIND_UNION:
		fprintf(out, " size=%u vlen=%u", t->size, d2b_vlen(t));
		dump_members(btf, t, out);
		break;
	case D2B_KIND_ENUM:
	case D2B_KIND_ENUM64:
		dump_enum(btf, t, out);
		break;
	case D2B_KIND_FWD:
		fprintf(out, " fwd_kind=%s", d2b_kflag(t) ? "union" : "struct");
		break;
	case D2B_KIND_FUNC:
		fprintf(out, " type_id=%u linkage=%s", t->type, linkage_str(d2b_vlen(t)));
		break;
	case D2B_KIND_FUNC_PROTO:
		fprintf(out, " ret_type_id=%u vlen=%u", t->type, d2b_vlen(t));
		for (i = 0; i < d2b_vlen(t); i++)
			fprintf(out, "\n\t'%s' type_id=%u", dump_str(btf, btf_params(t)[i].name_off),
				btf_params(t)[i].type);
		break;
	case D2B_KIND_VAR:
		fprintf(out, " type_id=%u, linkage=%s", t->type, linkage_str(btf_var_linkage(t)));
		break;
	case D2B_KIND_DATASEC:
		dump_datasec(btf, t, out);
		break;
	case D2B_KIND_FLOAT:
		fprintf(out, " size=%u", t->size);
		break;
	case D2B_KIND_DECL_TAG:
		fprintf(out, " type_id=%u component_idx=%d", t->type, btf_decl_tag_idx(t));
		break;
	case D2B_KIND_LOC_PARAM: {
		char value[LOC_VALUE_LEN];

		btf_loc_param_format(t, value, sizeof(value));
		fprintf(out, " size=%u flags=0x%x vlen=%u values='%s'", t->size,
			d2b_loc_param_flags(t), d2b_vlen(t), value);
		break;
	}
	case D2B_KIND_LOC_PROTO:
		dump_loc_proto(btf, t, out);
		break;
	case D2B_KIND_LOCSEC:
		dump_locsec(btf, t, out);
		break;
	default:
		break;
	}
	fputc('\n', out);
}

static void dump_layout(const struct d2b_btf *btf, FILE *out)
{
	const struct d2b_layout *l;
	uint32_t nr, k;

	l = d2b_btf__layout(btf, &nr);
	if (!nr)
		return;
	fprintf(out, "LAYOUT kinds=%u\n", nr);
	for (k = 0; k < nr; k++)
		fprintf(out, "\t[%u] %s info_sz=%u elem_sz=%u flags=0x%x\n", k,
			k <= D2B_KIND_LAST ? d2b_kind_name(k) : "(unknown)", l[k].info_sz,
			l[k].elem_sz, l[k].flags);
}

int d2b_btf__dump(const struct d2b_btf *btf, FILE *out)
{
	uint32_t id, end = d2b_btf__end_id(btf);

	for (id = d2b_btf__start_id(btf); id < end; id++) {
		if (!d2b_btf__type(btf, id))
			return -EINVAL;	/* reserved and never defined */
	}
	for (id = d2b_btf__start_id(btf); id < end; id++)
		dump_type(btf, id, d2b_btf__type(btf, id), out);
	dump_layout(btf, out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
