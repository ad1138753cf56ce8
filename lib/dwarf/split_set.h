/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct split_set: the split units behind a file's skeleton units
 * (-gsplit-dwarf), in .dwo files or a .dwp package, each read with a DIE
 * reader of its own.  Theory in split_set.c.
 */
#ifndef D2B_SPLIT_SET_H
#define D2B_SPLIT_SET_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/aux_file.h"
#include "dwarf/die_reader.h"

struct split_set;

/* Where a skeleton's split unit is. */
struct split_unit {
	const struct die_reader *r;	/* the .dwo file's or the package's */
	uint64_t off;			/* its header, in r's .debug_info(.dwo) */
	uint64_t addr_base;		/* the skeleton's DW_AT_addr_base */
};

/*
 * An empty set for the skeletons of main (the reader of the file at path);
 * it looks for PATH.dwp now.  -EINVAL for a damaged package; a failure
 * says why through diag (an error).
 */
int split_set__new(const struct die_reader *main, const char *path, const struct aux_dirs *dirs,
		   struct diag *diag, struct split_set **ret);
void split_set__free(struct split_set *s);
/*
 * The split unit of skeleton, a loaded skeleton unit of main: found in the
 * package, or in the .dwo file its DW_AT_dwo_name names (opened now, and
 * kept).  -ENOENT: not there (diag is told what is missing and where it
 * was looked for); -EINVAL: the file is no split DWARF for it (diag is told
 * why).  Not thread-safe: make the list of units before walking them.
 */
int split_set__find(struct split_set *s, struct die_unit *skeleton, struct diag *diag,
		    struct split_unit *ret);
/*
 * libdw's own view of skeleton_die's split unit, if it found one (a .dwo
 * file by DW_AT_comp_dir; elfutils 0.188 reads no packages): lent to the
 * reader of su when it is the same unit, so that libdw reads its location
 * lists.  Before threads.
 */
void split_set__lend_libdw(struct split_set *s, Dwarf_Die *skeleton_die,
			   const struct split_unit *su);
/* The package's path, or NULL if none was found. */
const char *split_set__package(const struct split_set *s);

#endif
