/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct aux_file: another ELF file that a file's DWARF needs, found and
 * opened: the dwz supplementary ("alt") file named by .gnu_debugaltlink
 * or .debug_sup, a split unit's .dwo file, a program's .dwp package.
 * Where each is looked for is in aux_file.c.
 */
#ifndef D2B_AUX_FILE_H
#define D2B_AUX_FILE_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

struct aux_file;
struct diag;

/* Where to look besides the places the files record (option-given). */
struct aux_dirs {
	const char *const *dirs;
	size_t nr;
};

/*
 * The supplementary file of elf (the file that holds the DWARF, at path):
 * 0 and *ret NULL if elf names none; -ENOENT if none of the places looked
 * at holds it, -EINVAL if the link is damaged.  A failure says why through
 * diag (an error; for -ENOENT, the file and the places looked at).
 */
int aux_file__open_alt(Elf *elf, const char *path, const struct aux_dirs *dirs,
		       struct diag *diag, struct aux_file **ret);
/*
 * The .dwo file of a skeleton unit of the file at path: dwo_name and
 * comp_dir (may be NULL) as the skeleton records them.  -ENOENT, with the
 * places looked at said through diag (as any failure says why there).
 */
int aux_file__open_dwo(const char *dwo_name, const char *comp_dir, const char *path,
		       const struct aux_dirs *dirs, struct diag *diag, struct aux_file **ret);
/* The package of the program at path (PATH.dwp): 0 and *ret NULL if none;
 * a failure says why through diag. */
int aux_file__open_dwp(const char *path, const struct aux_dirs *dirs, struct diag *diag,
		       struct aux_file **ret);
void aux_file__free(struct aux_file *f);
Elf *aux_file__elf(const struct aux_file *f);
const char *aux_file__path(const struct aux_file *f);

#endif
