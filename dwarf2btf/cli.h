/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The command line's shared helpers (cli.c) and its two front ends. */
#ifndef D2B_CLI_H
#define D2B_CLI_H

#include <stdbool.h>

#include "dwarf2btf.h"

#ifndef D2B_VERSION
#define D2B_VERSION "0.2"
#endif

extern const char *prog;	/* for messages: "dwarf2btf" or what argv[0] says */

struct cli {
	int verbose;
	bool stats;
	/* where d2b_btf__load_base() keeps a base's cache entries, or NULL:
	 * none (cli_cache_dir()) */
	const char *cache_dir;
	char cache_buf[4096];
};

/* The d2b_diag_fn of both front ends; arg is a struct cli. */
void cli_print_diag(const struct d2b_diag *d, void *arg);
/* Load a raw BTF or ELF .BTF file, printing the error. */
int cli_load_btf(const char *path, const struct d2b_btf *base, struct d2b_btf **ret);
/*
 * The cache directory for a base: DIR from --cache-dir=DIR (opt, or NULL)
 * or else $DWARF2BTF_CACHE_DIR, else $XDG_CACHE_HOME/dwarf2btf, else
 * $HOME/.cache/dwarf2btf; none where the one chosen is "" or "none", or
 * where there is no HOME.  Sets cli->cache_dir.
 */
void cli_cache_dir(struct cli *cli, const char *opt);
/*
 * Convert file, over the base BTF in base_path if not NULL (loaded with
 * d2b_btf__load_base(), through cli->cache_dir), every error printed.
 * With opts->jobs > 1 the base is loaded on a thread of its own while the
 * library opens file.  *base gets the base, to be freed after *btf.
 */
int cli_convert(const char *file, const char *base_path, const struct d2b_opts *opts,
		const struct cli *cli, struct d2b_btf **base, struct d2b_btf **btf);
/* Write btf raw to output, or (output NULL) as .BTF (and base_btf, if not
 * NULL, as .BTF.base) into the ELF file file, printing the error. */
int cli_write_btf(const char *file, const char *output, const struct d2b_btf *btf,
		  const struct d2b_btf *base_btf);
/* -j's argument: NULL for one thread per CPU. */
int cli_parse_jobs(const char *arg, unsigned int *ret);
/* Is the command run under a pahole name ("pahole", "dwarf2btf-pahole")? */
bool cli_is_pahole(const char *argv0);
/* The process's malloc settings, before anything is allocated (cli.c). */
void cli_tune_malloc(void);

/* pahole.c: the pahole-compatible command line */
int pahole_main(int argc, char **argv);

#endif
