// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DATASECs, built once every unit is merged, because a section's variables
 * come from many units.  Variables are sorted by (section, offset, order of
 * meeting), so the result is deterministic; a DATASEC lists them by offset
 * and the kernel refuses overlaps, zero sizes and entries past the section:
 * such variables are left out (an alias at the address of another, a
 * variable of incomplete type), each with a note.  A DATASEC lists at most
 * 65,535 (its vlen is 16 bits): a section with more gets several DATASECs
 * of its name, each of the section's size, the variables in offset order
 * across them (the kernel accepts that; one would leave VARs out).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "btf/btf.h"
#include "finish/datasec.h"
#include "base/strtab.h"
#include "base/vec.h"

struct ds_var {
	uint32_t name_off;	/* in ds->strs */
	uint32_t type;
	enum d2b_linkage linkage;
	size_t shndx;
	uint64_t offset;
	uint64_t seq;
	uint32_t tags_start, nr_tags;
};

struct datasec_set {
	struct strtab *strs;
	struct ds_var *vars;
	size_t nr, cap;
	uint32_t *tags;
	size_t nr_tags, tags_cap;
};

struct datasec_set *datasec_set__new(void)
{
	struct datasec_set *ds = calloc(1, sizeof(*ds));

	if (!ds)
		return NULL;
	ds->strs = strtab__new(false);
	if (!ds->strs) {
		free(ds);
		return NULL;
	}
	return ds;
}

void datasec_set__free(struct datasec_set *ds)
{
	if (!ds)
		return;
	strtab__free(ds->strs);
	free(ds->vars);
	free(ds->tags);
	free(ds);
}

int datasec_set__add(struct datasec_set *ds, const char *name, enum d2b_linkage linkage,
		     uint32_t type, size_t shndx, uint64_t offset, const char *const *tags,
		     unsigned int nr_tags)
{
	struct ds_var *v;
	int64_t off;
	unsigned int i;
	int err;

	off = strtab__add(ds->strs, name);
	if (off < 0)
		return (int)off;
	err = VEC_RESERVE(ds->vars, ds->cap, ds->nr, 1);
	if (!err)
		err = VEC_RESERVE(ds->tags, ds->tags_cap, ds->nr_tags, nr_tags);
	if (err)
		return err;
	v = &ds->vars[ds->nr];
	v->name_off = (uint32_t)off;
	v->type = type;
	v->linkage = linkage;
	v->shndx = shndx;
	v->offset = offset;
	v->seq = ds->nr;
	v->tags_start = ds->nr_tags;
	v->nr_tags = nr_tags;
	for (i = 0; i < nr_tags; i++) {
		int64_t t = strtab__add(ds->strs, tags[i]);

		if (t < 0)
			return (int)t;
		ds->tags[ds->nr_tags++] = (uint32_t)t;
	}
	ds->nr++;
	return 0;
}

void datasec_set__remap(struct datasec_set *ds, const uint32_t *map)
{
	size_t i;

	for (i = 0; i < ds->nr; i++)
		ds->vars[i].type = map[ds->vars[i].type];
}

static int ds_var_cmp(const void *pa, const void *pb)
{
	const struct ds_var *a = pa, *b = pb;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct ds_entry {
	uint32_t var, offset, size;
};

static int emit_section(struct datasec_set *ds, struct d2b_btf *btf,
			const struct datasec_section *sec, size_t first, size_t end,
			struct ds_entry *ents, struct diag *diag)
{
	const char *secname = sec->name;
	uint64_t secsize = sec->size, prev_end = 0;
	size_t i, n = 0;
	int id, err;

	if (secsize == 0 || secsize > UINT32_MAX) {
		diag__say(diag, D2B_INFO,
			  "section %s: size %llu unusable for a DATASEC", secname,
			  (unsigned long long)secsize);
		return 0;
	}
	for (i = first; i < end; i++) {
		const struct ds_var *v = &ds->vars[i];
		const char *name = strtab__str(ds->strs, v->name_off);
		int64_t size = d2b_btf__resolve_size(btf, v->type);
		unsigned int t;

		if (size <= 0) {
			diag__say(diag, D2B_INFO, "variable '%s' left out: type has no size", name);
			continue;
		}
		if (v->offset + (uint64_t)size > secsize) {
			diag__say(diag, D2B_INFO,
				  "variable '%s' left out: extends past the end of %s", name,
				  secname);
			continue;
		}
		if (n && v->offset < prev_end) {
			diag__say(diag, D2B_INFO,
				  "variable '%s' left out: overlaps another in %s", name, secname);
			continue;
		}
		id = d2b_btf__add_var(btf, name, v->linkage, v->type);
		if (id < 0)
			return id;
		for (t = 0; t < v->nr_tags; t++) {
			err = d2b_btf__add_decl_tag(btf, strtab__str(ds->strs, ds->tags[v->tags_start + t]),
						    id, -1);
			if (err < 0)
				return err;
		}
		ents[n].var = id;
		ents[n].offset = (uint32_t)v->offset;
		ents[n].size = (uint32_t)size;
		n++;
		prev_end = v->offset + (uint64_t)size;
	}
	if (n > D2B_MAX_VLEN)
		diag__say(diag, D2B_INFO,
			  "section %s: %zu variables, more than a DATASEC holds (%d): "
			  "%zu DATASECs of that name", secname, n, D2B_MAX_VLEN,
			  (n + D2B_MAX_VLEN - 1) / D2B_MAX_VLEN);
	for (i = 0; i < n; i++) {
		if (i % D2B_MAX_VLEN == 0) {
			id = d2b_btf__add_datasec(btf, secname, (uint32_t)secsize);
			if (id < 0)
				return id;
		}
		err = d2b_btf__add_datasec_var(btf, ents[i].var, ents[i].offset, ents[i].size);
		if (err < 0)
			return err;
	}
	return 0;
}

int datasec_set__emit(struct datasec_set *ds, struct d2b_btf *btf,
		      const struct datasec_section *secs, size_t nr_secs, struct diag *diag)
{
	struct ds_entry *ents;
	size_t i, j;
	int err = 0;

	if (!ds->nr)
		return 0;
	qsort(ds->vars, ds->nr, sizeof(*ds->vars), ds_var_cmp);
	ents = calloc(ds->nr, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (i = 0; i < ds->nr && !err; i = j) {
		for (j = i + 1; j < ds->nr && ds->vars[j].shndx == ds->vars[i].shndx; j++)
			;
		if (ds->vars[i].shndx < nr_secs && secs[ds->vars[i].shndx].name &&
		    *secs[ds->vars[i].shndx].name)
			err = emit_section(ds, btf, &secs[ds->vars[i].shndx], i, j, ents, diag);
		else	/* a DATASEC needs a name */
			diag__say(diag, D2B_INFO,
				  "%zu variable(s) of section [%zu] left out: the section has "
				  "no name", j - i, ds->vars[i].shndx);
	}
	free(ents);
	return err;
}
