// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Split DWARF theory
 *
 * With -gsplit-dwarf the object keeps a skeleton unit per compile unit
 * (DWARF 5: unit type DW_UT_skeleton, DW_AT_dwo_name; the GNU form for
 * DWARF 4: a childless DW_TAG_compile_unit with DW_AT_GNU_dwo_name and
 * DW_AT_GNU_dwo_id), and the DIEs go to a .dwo file per unit, or, after
 * dwp / llvm-dwp, to one package per program.  The skeleton and its split
 * unit share an 8-byte dwo_id: the skeleton's header (DWARF 5) or
 * DW_AT_GNU_dwo_id, and the split unit's.  The split unit's addresses are
 * indices into the skeleton file's .debug_addr from the skeleton's
 * DW_AT_addr_base; its strings are its own file's.
 *
 * So, per skeleton: the package if there is one (aux_file.c looks for
 * PATH.dwp), else the .dwo file its name leads to (aux_file.c's places);
 * a DIE reader over that file (die_reader__from_elf: the .dwo sections,
 * and a package's index), lent the skeleton file's .debug_addr; the unit
 * of that reader with the skeleton's dwo_id (a file whose units all have
 * other ids is not this skeleton's: an error, not a guess).  Files and
 * readers are kept until the set is freed: the walk reads them, on any
 * thread, after the set is complete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf/split_set.h"
#include "base/diag.h"
#include "base/vec.h"

struct split_file {
	struct aux_file *f;
	struct die_reader *r;
};

struct split_set {
	const struct die_reader *main;
	const char *path;
	struct aux_dirs dirs;
	struct split_file pkg;		/* f NULL: no package */
	struct split_file *dwo;		/* .dwo files opened */
	size_t nr_dwo, cap_dwo;
};

static void split_file_release(struct split_file *sf)
{
	die_reader__free(sf->r);
	aux_file__free(sf->f);
}

/* A reader over f, lent main's .debug_addr. */
static int split_reader(struct split_set *s, struct split_file *sf, struct diag *diag)
{
	struct diag why;
	int err;

	diag__init_held(&why);
	err = die_reader__from_elf(aux_file__elf(sf->f), &why, &sf->r);
	if (err)
		diag__say(diag, D2B_ERROR, "%s: %s", aux_file__path(sf->f), diag__last(&why));
	diag__release(&why);
	if (err)
		return err;
	die_reader__borrow_addr(sf->r, s->main);
	return 0;
}

int split_set__new(const struct die_reader *main, const char *path, const struct aux_dirs *dirs,
		   struct diag *diag, struct split_set **ret)
{
	struct split_set *s = calloc(1, sizeof(*s));
	int err;

	*ret = NULL;
	if (!s)
		return -ENOMEM;
	s->main = main;
	s->path = path;
	s->dirs = *dirs;
	err = aux_file__open_dwp(path, dirs, diag, &s->pkg.f);
	if (!err && s->pkg.f)
		err = split_reader(s, &s->pkg, diag);
	if (!err && s->pkg.r && !die_reader__is_package(s->pkg.r)) {
		diag__say(diag, D2B_ERROR, "%s: no .debug_cu_index: not a DWARF package",
			  aux_file__path(s->pkg.f));
		err = -EINVAL;
	}
	if (err) {
		split_set__free(s);
		return err;
	}
	*ret = s;
	return 0;
}

void split_set__free(struct split_set *s)
{
	size_t i;

	if (!s)
		return;
	split_file_release(&s->pkg);
	for (i = 0; i < s->nr_dwo; i++)
		split_file_release(&s->dwo[i]);
	free(s->dwo);
	free(s);
}

void split_set__lend_libdw(struct split_set *s, Dwarf_Die *skeleton_die,
			   const struct split_unit *su)
{
	uint64_t skel_id, split_id;
	Dwarf_Die split;
	uint8_t type;
	size_t i;

	if (dwarf_cu_info(skeleton_die->cu, NULL, &type, NULL, &split, &skel_id, NULL, NULL) ||
	    type != DW_UT_skeleton || !split.cu ||
	    dwarf_cu_info(split.cu, NULL, &type, NULL, NULL, &split_id, NULL, NULL) ||
	    type != DW_UT_split_compile || split_id != skel_id ||
	    dwarf_dieoffset(&split) - dwarf_cuoffset(&split) != su->off)
		return;
	/* only a .dwo file's reader: it reads the same file libdw does */
	for (i = 0; i < s->nr_dwo; i++) {
		if (s->dwo[i].r == su->r) {
			die_reader__set_dwarf(s->dwo[i].r, dwarf_cu_getdwarf(split.cu));
			return;
		}
	}
}

const char *split_set__package(const struct split_set *s)
{
	return s->pkg.f ? aux_file__path(s->pkg.f) : NULL;
}

/* The skeleton's string attribute name (or its GNU form gnu). */
static const char *skeleton_str(struct die_unit *u, const struct die *root, unsigned int name,
				unsigned int gnu)
{
	struct die_attr a;

	if (die__attr(u, root, name, &a) > 0 && a.str)
		return a.str;
	if (gnu && die__attr(u, root, gnu, &a) > 0 && a.str)
		return a.str;
	return NULL;
}

/* Open the .dwo file the skeleton names: its entry in s->dwo. */
static int open_dwo(struct split_set *s, struct die_unit *skeleton, const struct die *root,
		    struct diag *diag, struct split_file **ret)
{
	const char *name = skeleton_str(skeleton, root, DW_AT_dwo_name, DW_AT_GNU_dwo_name);
	const char *comp_dir = skeleton_str(skeleton, root, DW_AT_comp_dir, 0);
	struct split_file sf = { 0 };
	int err;

	if (!name) {
		diag__say(diag, D2B_ERROR, "skeleton unit 0x%llx names no .dwo file "
			  "(DW_AT_dwo_name)", (unsigned long long)die_unit__header(skeleton)->off);
		return -EINVAL;
	}
	err = VEC_RESERVE(s->dwo, s->cap_dwo, s->nr_dwo, 1);
	if (err)
		return err;
	err = aux_file__open_dwo(name, comp_dir, s->path, &s->dirs, diag, &sf.f);
	if (!err)
		err = split_reader(s, &sf, diag);
	if (err) {
		split_file_release(&sf);
		return err;
	}
	s->dwo[s->nr_dwo] = sf;
	*ret = &s->dwo[s->nr_dwo++];
	return 0;
}

int split_set__find(struct split_set *s, struct die_unit *skeleton, struct diag *diag,
		    struct split_unit *ret)
{
	const struct die_unit_header *h = die_unit__header(skeleton);
	struct split_file *sf = &s->pkg;
	struct die root;
	int err;

	/* (read once already, by die_unit__load()) */
	err = die_unit__root(skeleton, &root);
	if (err) {
		diag__say(diag, D2B_ERROR, "skeleton unit 0x%llx: its unit DIE cannot be read",
			  (unsigned long long)h->off);
		return err;
	}
	if (!sf->f) {
		err = open_dwo(s, skeleton, &root, diag, &sf);
		if (err)
			return err;
	}
	err = die_reader__split_unit(sf->r, h->signature, &ret->off);
	if (err == -ENOENT) {
		diag__say(diag, D2B_ERROR, "%s has no split unit with dwo_id 0x%016llx (skeleton "
			  "unit 0x%llx): not the skeleton's", aux_file__path(sf->f),
			  (unsigned long long)h->signature, (unsigned long long)h->off);
		return -EINVAL;
	}
	if (err)
		return err;
	ret->r = sf->r;
	ret->addr_base = die_unit__addr_base(skeleton);
	return 0;
}
