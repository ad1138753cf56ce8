// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pahole-compatible command line: what kernel builds run as $(PAHOLE).
 * dwarf2btf takes it when invoked as "pahole" or "*-pahole" (make install
 * installs dwarf2btf-pahole), so `make PAHOLE=dwarf2btf-pahole` works on an
 * unchanged kernel tree.
 *
 * Only BTF encoding is pahole's business here: -J (in place) or
 * --btf_encode_detached=FILE (raw), optionally over --btf_base.  Every
 * spelling kernels use is accepted; any other pahole option is refused by
 * name.  --version reports the pahole release whose BTF features and
 * defaults this implements, which scripts/pahole-version.sh turns into the
 * number the kernel's Kconfig and Makefile.btf choose flags by.
 *
 * The policy (which functions get BTF, nested or flattened arrays) is
 * pahole 1.32's unless --pahole-policy=1.31 asks for 1.31's, so that a
 * kernel once built with pahole 1.31 can be rebuilt to the same BTF;
 * --version follows it.
 *
 * Features follow pahole 1.31 and 1.32 (which adds force_cu_merging and
 * true_signature): without --btf_features the defaults are var, decl_tag,
 * type_tag, enum64 (floats become INT unless --btf_gen_floats); the first
 * --btf_features turns every feature off, then each list (repeatable,
 * accumulating; "default" and a leading "+" add the default set) turns
 * its names on.  Unknown names are ignored, or refused with
 * --btf_features_strict.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf2btf.h"
#include "cli.h"

/* The pahole releases whose interface and policy this follows: 1.MINOR */
enum {
	PAHOLE_MAJOR = 1,
	PAHOLE_MINOR_OLD = 31,
	PAHOLE_MINOR = 32,	/* the default */
};

enum feature {
	F_ENCODE_FORCE,
	F_VAR,
	F_FLOAT,
	F_DECL_TAG,
	F_TYPE_TAG,
	F_ENUM64,
	F_OPTIMIZED_FUNC,
	F_CONSISTENT_FUNC,
	F_DECL_TAG_KFUNCS,
	F_REPRODUCIBLE_BUILD,
	F_DISTILLED_BASE,
	F_GLOBAL_VAR,
	F_ATTRIBUTES,
	F_TRUE_SIGNATURE,
	F_FORCE_CU_MERGING,
	F_LAYOUT,
	F_INLINE,
	F_NR,
};

static const struct {
	const char *name;
	bool is_default;	/* in "default" and "+..." */
	int since;		/* the pahole 1.MINOR that has it */
} features[F_NR] = {
	[F_ENCODE_FORCE] = { "encode_force", true },
	[F_VAR] = { "var", true },
	[F_FLOAT] = { "float", true },
	[F_DECL_TAG] = { "decl_tag", true },
	[F_TYPE_TAG] = { "type_tag", true },
	[F_ENUM64] = { "enum64", true },
	[F_OPTIMIZED_FUNC] = { "optimized_func", true },
	[F_CONSISTENT_FUNC] = { "consistent_func", true },
	[F_DECL_TAG_KFUNCS] = { "decl_tag_kfuncs", true },
	[F_REPRODUCIBLE_BUILD] = { "reproducible_build", false },
	[F_DISTILLED_BASE] = { "distilled_base", false },
	[F_GLOBAL_VAR] = { "global_var", false },
	[F_ATTRIBUTES] = { "attributes", false },
	/* GCC's clones (foo.isra.0) under their own names, with the
	 * parameters their code takes (d2b_opts.true_signature) */
	[F_TRUE_SIGNATURE] = { "true_signature", false, 32 },
	/* pahole merges the units that refer to each other's DIEs into one;
	 * dwarf2btf always follows references between units: nothing to do */
	[F_FORCE_CU_MERGING] = { "force_cu_merging", false, 32 },
	/* pahole git HEAD's (libbpf 1.8): base BTF only */
	[F_LAYOUT] = { "layout", false, 32 },
	/* the bpf tree's (2026) inline sites: LOC_PARAM, LOC_PROTO and LOCSEC
	 * after every other type, for resolve_btfids --inline to move into
	 * .BTF.inline (d2b_opts.inline_sites); scripts/Makefile.btf asks from
	 * pahole 1.31 on */
	[F_INLINE] = { "inline", false, 31 },
};

struct pahole_cli {
	bool on[F_NR];
	bool features_given;	/* a --btf_features was seen */
	bool encode;		/* -J */
	const char *detached;	/* --btf_encode_detached */
	const char *base_path;	/* --btf_base */
	unsigned int jobs;
	int minor;		/* --pahole-policy=1.MINOR */
	bool no_cxx;		/* --lang_exclude=c++ */
	struct cli cli;
};

static void pahole_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s -J [OPTION]... FILE\n"
		"dwarf2btf's pahole-compatible command line, for kernel builds\n"
		"(make PAHOLE=%s).  Encodes the DWARF of FILE as BTF, like pahole %d.%d -J.\n"
		"\n"
		"  -J, --btf_encode               write .BTF into FILE (in place)\n"
		"      --btf_encode_detached=OUT  write raw BTF to OUT instead\n"
		"      --btf_base=BASE            split BTF over BASE (ELF with .BTF, or raw BTF),\n"
		"                                 its parse and index kept in $DWARF2BTF_CACHE_DIR\n"
		"                                 (else $XDG_CACHE_HOME/dwarf2btf, else\n"
		"                                 ~/.cache/dwarf2btf; 'none': no cache)\n"
		"  -j, --jobs[=N]                 N threads (default: one per CPU)\n"
		"      --btf_features=LIST        features to encode (repeatable); 'default' or\n"
		"                                 a leading '+' adds the default set\n"
		"      --btf_features_strict=LIST the same, refusing unknown names\n"
		"      --supported_btf_features   list the feature names (1.32's true_signature:\n"
		"                                 GCC's clones, foo.isra.0, under their own\n"
		"                                 names, with the parameters they take)\n"
		"      --lang_exclude=LANGS       leave out units in these languages (C and\n"
		"                                 C++ units are converted; c++ leaves C++ out)\n"
		"      --btf_gen_floats, --btf_gen_optimized, --btf_gen_all,\n"
		"      --skip_encoding_btf_vars, --skip_encoding_btf_decl_tag,\n"
		"      --skip_encoding_btf_type_tag, --skip_encoding_btf_enum64,\n"
		"      --skip_encoding_btf_inconsistent_proto, --btf_encode_force\n"
		"                                 the older spellings of features\n"
		"      --pahole-policy=1.31|1.32  whose BTF policy to follow (default 1.%d, or\n"
		"                                 $DWARF2BTF_PAHOLE_POLICY): which functions\n"
		"                                 get BTF, how arrays nest\n"
		"  -V, --verbose                  say what was left out and why: functions on\n"
		"                                 standard output in pahole's words, the rest\n"
		"                                 on standard error\n"
		"      --version                  print v%d.%d (the pahole release followed;\n"
		"                                 v1.31 with policy 1.31)\n"
		"      --numeric_version          print %d%02d (131 with policy 1.31)\n"
		"  -h, --help                     print this help\n",
		prog, prog, PAHOLE_MAJOR, PAHOLE_MINOR, PAHOLE_MINOR, PAHOLE_MAJOR, PAHOLE_MINOR,
		PAHOLE_MAJOR, PAHOLE_MINOR);
}

static void set_defaults(struct pahole_cli *p)
{
	memset(p->on, 0, sizeof(p->on));
	p->on[F_VAR] = p->on[F_DECL_TAG] = p->on[F_TYPE_TAG] = p->on[F_ENUM64] = true;
}

static void enable_default_set(struct pahole_cli *p)
{
	int f;

	for (f = 0; f < F_NR; f++) {
		if (features[f].is_default)
			p->on[f] = true;
	}
}

static int parse_features(struct pahole_cli *p, const char *list, bool strict)
{
	char *copy, *name, *save = NULL, *s;
	int f;

	if (!p->features_given) {
		memset(p->on, 0, sizeof(p->on));
		p->features_given = true;
	}
	if (*list == '+') {
		enable_default_set(p);
		list++;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (s = copy; (name = strtok_r(s, ",", &save)) != NULL; s = NULL) {
		if (!strcmp(name, "default")) {
			enable_default_set(p);
			continue;
		}
		for (f = 0; f < F_NR; f++) {
			if (!strcmp(name, features[f].name))
				break;
		}
		if (f < F_NR) {
			p->on[f] = true;
		} else if (strict) {
			fprintf(stderr, "%s: unknown BTF feature '%s' (--btf_features_strict)\n",
				prog, name);
			free(copy);
			return -EINVAL;
		} else if (p->cli.verbose) {
			fprintf(stderr, "%s: ignoring unknown BTF feature '%s'\n", prog, name);
		}
	}
	free(copy);
	return 0;
}

/* C and C++ are converted: excluding C++ (c++, c++11, ...) leaves its units
 * out, excluding other languages changes nothing, and excluding C itself
 * is not something this tool can do. */
static int parse_lang_exclude(struct pahole_cli *p, const char *list)
{
	char *copy = strdup(list), *name, *save = NULL, *s;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (s = copy; (name = strtok_r(s, ",", &save)) != NULL; s = NULL) {
		if (!strcasecmp(name, "c") || !strcasecmp(name, "c89") || !strcasecmp(name, "c99") ||
		    !strcasecmp(name, "c11") || !strcasecmp(name, "c17")) {
			fprintf(stderr, "%s: --lang_exclude=%s: excluding C is not supported\n",
				prog, name);
			err = -EINVAL;
		}
		if (!strncasecmp(name, "c++", 3))
			p->no_cxx = true;
	}
	free(copy);
	return err;
}

/* The features of the release followed */
static void print_features(int minor)
{
	const char *sep = "";
	int f;

	for (f = 0; f < F_NR; f++) {
		if (features[f].since > minor)
			continue;
		printf("%s%s", sep, features[f].name);
		sep = ",";
	}
	printf("\n");
}

enum {
	P_BTF_BASE = 256,
	P_DETACHED,
	P_FEATURES,
	P_FEATURES_STRICT,
	P_SUPPORTED,
	P_LANG_EXCLUDE,
	P_GEN_FLOATS,
	P_GEN_OPTIMIZED,
	P_GEN_ALL,
	P_SKIP_VARS,
	P_SKIP_DECL_TAG,
	P_SKIP_TYPE_TAG,
	P_SKIP_ENUM64,
	P_SKIP_INCONSISTENT,
	P_ENCODE_FORCE,
	P_VERSION,
	P_NUMERIC_VERSION,
	P_POLICY,
};

static const struct option pahole_options[] = {
	{ "btf_encode", no_argument, NULL, 'J' },
	{ "btf_encode_detached", required_argument, NULL, P_DETACHED },
	{ "btf_base", required_argument, NULL, P_BTF_BASE },
	{ "jobs", optional_argument, NULL, 'j' },
	{ "btf_features", required_argument, NULL, P_FEATURES },
	{ "btf_features_strict", required_argument, NULL, P_FEATURES_STRICT },
	{ "supported_btf_features", no_argument, NULL, P_SUPPORTED },
	{ "lang_exclude", required_argument, NULL, P_LANG_EXCLUDE },
	{ "btf_gen_floats", no_argument, NULL, P_GEN_FLOATS },
	{ "btf_gen_optimized", no_argument, NULL, P_GEN_OPTIMIZED },
	{ "btf_gen_all", no_argument, NULL, P_GEN_ALL },
	{ "skip_encoding_btf_vars", no_argument, NULL, P_SKIP_VARS },
	{ "skip_encoding_btf_decl_tag", no_argument, NULL, P_SKIP_DECL_TAG },
	{ "skip_encoding_btf_type_tag", no_argument, NULL, P_SKIP_TYPE_TAG },
	{ "skip_encoding_btf_enum64", no_argument, NULL, P_SKIP_ENUM64 },
	{ "skip_encoding_btf_inconsistent_proto", no_argument, NULL, P_SKIP_INCONSISTENT },
	{ "btf_encode_force", no_argument, NULL, P_ENCODE_FORCE },
	{ "verbose", no_argument, NULL, 'V' },
	{ "version", no_argument, NULL, P_VERSION },
	{ "numeric_version", no_argument, NULL, P_NUMERIC_VERSION },
	{ "pahole-policy", required_argument, NULL, P_POLICY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* 1: handled, 0: not an option of ours, <0: error */
static int parse_option(struct pahole_cli *p, int c)
{
	switch (c) {
	case 'J':
		p->encode = true;
		return 1;
	case 'j':
		if (cli_parse_jobs(optarg, &p->jobs)) {
			fprintf(stderr, "%s: invalid job count '%s'\n", prog, optarg);
			return -EINVAL;
		}
		return 1;
	case 'V':
		p->cli.verbose++;
		return 1;
	case P_DETACHED:
		p->detached = optarg;
		return 1;
	case P_BTF_BASE:
		p->base_path = optarg;
		return 1;
	case P_FEATURES:
	case P_FEATURES_STRICT:
		return parse_features(p, optarg, c == P_FEATURES_STRICT) ?: 1;
	case P_LANG_EXCLUDE:
		return parse_lang_exclude(p, optarg) ?: 1;
	case P_GEN_FLOATS:
		p->on[F_FLOAT] = true;
		return 1;
	case P_GEN_OPTIMIZED:
		p->on[F_OPTIMIZED_FUNC] = true;
		return 1;
	case P_GEN_ALL:
		enable_default_set(p);
		return 1;
	case P_SKIP_VARS:
		p->on[F_VAR] = false;
		return 1;
	case P_SKIP_DECL_TAG:
		p->on[F_DECL_TAG] = false;
		return 1;
	case P_SKIP_TYPE_TAG:
		p->on[F_TYPE_TAG] = false;
		return 1;
	case P_SKIP_ENUM64:
		p->on[F_ENUM64] = false;
		return 1;
	case P_SKIP_INCONSISTENT:
		p->on[F_CONSISTENT_FUNC] = true;
		return 1;
	case P_ENCODE_FORCE:
		p->on[F_ENCODE_FORCE] = true;
		return 1;
	default:
		return 0;
	}
}

/*
 * pahole's --verbose lines about the functions it leaves out, which tools
 * and tests read (pahole's own tests/btf_functions.sh and
 * gcc_optimized_default.sh grep them): on standard output, word for word
 * (the "inconsistet" is pahole's), in its order (by name; for each, where
 * its prototypes differ, then why it is left out).  pahole 1.31 says why
 * only for a reason dwarf2btf never finds (an uncertain parameter
 * location): under its policy, as for the reasons pahole never words (no
 * ELF symbol), dwarf2btf's own line goes to standard error.
 */
static const char *const pahole_why[] = {
	[D2B_FUNC_AMBIGUOUS] = "ambiguous address",
	[D2B_FUNC_OPTIMIZED] = "optimized parameters",
	[D2B_FUNC_REORDERED] = "reordered parameters",
	[D2B_FUNC_UNEXPECTED_REG] = "unexpected register usage for parameter",
	/* pahole compares a clone's prototype with its origin's */
	[D2B_FUNC_CLONE_CHANGED] = "inconsistet prototype",
	[D2B_FUNC_INCONSISTENT] = "inconsistet prototype",
};

/* Print pahole's line for f, if pahole has one: true if printed. */
static bool pahole_func_line(const struct pahole_cli *p, const struct d2b_func_note *f)
{
	const char *why = NULL;

	if (f->what == D2B_FUNC_LEFT_OUT) {
		if (p->minor == PAHOLE_MINOR_OLD ||
		    (size_t)f->why >= sizeof(pahole_why) / sizeof(pahole_why[0]))
			return false;
		why = pahole_why[f->why];
		if (!why)
			return false;
		printf("%s : skipping BTF encoding of function due to %s\n", f->name, why);
		return true;
	}
	if (f->what != D2B_FUNC_PROTOS_DIFFER)
		return false;
	printf("%s : skipping BTF encoding of function due to ", f->name);
	switch (f->diff) {
	case D2B_PROTO_PARAM_COUNT:
		printf("param count mismatch; %u params != %u params\n", f->nr_params[0],
		       f->nr_params[1]);
		break;
	case D2B_PROTO_RETURN:
		printf("return type mismatch\n");
		break;
	default:
		printf("param type mismatch for param#%u %s != %s\n", f->param + 1,
		       f->param_name[0], f->param_name[1]);
		break;
	}
	return true;
}

/* The d2b_diag_fn: pahole's lines on standard output, the rest as
 * dwarf2btf says it (cli_print_diag()) */
static void pahole_diag(const struct d2b_diag *d, void *arg)
{
	struct pahole_cli *p = arg;

	if (d->func && p->cli.verbose && pahole_func_line(p, d->func))
		return;
	cli_print_diag(d, &p->cli);
}

/* The library's options for the features selected. */
static void to_opts(const struct pahole_cli *p, struct d2b_opts *o)
{
	o->jobs = p->jobs;
	o->funcs = D2B_FUNCS_KERNEL;
	o->consistent_funcs = p->on[F_CONSISTENT_FUNC];
	o->kfunc_tags = p->on[F_DECL_TAG_KFUNCS];
	o->kfunc_attributes = p->on[F_ATTRIBUTES];
	o->vars = p->on[F_GLOBAL_VAR] ? D2B_VARS_ALL : p->on[F_VAR] ? D2B_VARS_PERCPU : D2B_VARS_NONE;
	o->no_float = !p->on[F_FLOAT];
	o->no_enum64 = !p->on[F_ENUM64];
	o->skip_decl_tags = !p->on[F_DECL_TAG];
	o->skip_type_tags = !p->on[F_TYPE_TAG];
	o->kernel_policy = p->minor == PAHOLE_MINOR_OLD ? D2B_KERNEL_POLICY_PAHOLE_1_31 :
			   D2B_KERNEL_POLICY_PAHOLE_1_32;
	/* pahole 1.31 flattens int a[5][6] into int[30]; 1.32 nests them */
	o->flatten_arrays = p->minor == PAHOLE_MINOR_OLD;
	o->no_cxx = p->no_cxx;
	/* a release without the feature ignores its name, as any unknown one */
	o->layout = p->on[F_LAYOUT] && features[F_LAYOUT].since <= p->minor;
	o->inline_sites = p->on[F_INLINE] && features[F_INLINE].since <= p->minor;
	o->true_signature = p->on[F_TRUE_SIGNATURE] &&
			    features[F_TRUE_SIGNATURE].since <= p->minor;
}

static int encode(struct pahole_cli *p, const char *file)
{
	struct d2b_opts opts = { .sz = D2B_OPTS_SZ, .diag = pahole_diag, .diag_arg = p,
				 .func_notes = true };
	struct d2b_btf *base = NULL, *btf = NULL, *dist_base = NULL, *dist_split = NULL;
	int err, rc = 1;

	to_opts(p, &opts);
	cli_cache_dir(&p->cli, NULL);
	if (cli_convert(file, p->base_path, &opts, &p->cli, &base, &btf) < 0)
		goto out;
	/* as pahole: a distilled .BTF.base goes with split BTF written into
	 * the ELF file, never with raw output */
	if (p->on[F_DISTILLED_BASE] && base && !p->detached) {
		err = d2b_btf__distill_base(btf, &dist_base, &dist_split);
		if (err < 0) {
			fprintf(stderr, "%s: %s: cannot distill the base BTF: %s\n", prog, file,
				strerror(-err));
			goto out;
		}
	}
	if (cli_write_btf(file, p->detached, dist_split ? dist_split : btf, dist_base) < 0)
		goto out;
	rc = 0;
out:
	d2b_btf__free(dist_split);
	d2b_btf__free(dist_base);
	d2b_btf__free(btf);
	d2b_btf__free(base);
	return rc;
}

/* "1.31" or "1.32" (what: where it was read, for the message) */
static int parse_policy(struct pahole_cli *p, const char *s, const char *what)
{
	if (!strcmp(s, "1.31")) {
		p->minor = PAHOLE_MINOR_OLD;
	} else if (!strcmp(s, "1.32")) {
		p->minor = PAHOLE_MINOR;
	} else {
		fprintf(stderr, "%s: %s%s: only 1.31 and 1.32 are known\n", prog, what, s);
		return -EINVAL;
	}
	return 0;
}

int pahole_main(int argc, char **argv)
{
	struct pahole_cli p = { 0 };
	const char *env;
	int c, r, query = 0;

	prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	set_defaults(&p);
	/* the kernel runs "$PAHOLE" --version (quoted): the environment is how
	 * a kernel build chooses the policy, the option how a person does */
	p.minor = PAHOLE_MINOR;
	env = getenv("DWARF2BTF_PAHOLE_POLICY");
	if (env && parse_policy(&p, env, "DWARF2BTF_PAHOLE_POLICY="))
		return 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Jj::Vh", pahole_options, NULL)) != -1) {
		switch (c) {
		case P_POLICY:
			if (parse_policy(&p, optarg, "--pahole-policy="))
				return 2;
			break;
		case P_SUPPORTED:
		case P_VERSION:
		case P_NUMERIC_VERSION:
			query = c;	/* answered once the policy is known */
			break;
		case 'h':
			pahole_usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "%s: option '%s' needs an argument\n", prog, argv[optind - 1]);
			return 2;
		case '?':
			fprintf(stderr, "%s: pahole option '%s' is not supported (dwarf2btf only "
				"encodes BTF; see --help)\n", prog, argv[optind - 1]);
			return 2;
		default:
			r = parse_option(&p, c);
			if (r < 0)
				return 2;
			break;
		}
	}
	switch (query) {
	case P_SUPPORTED:
		print_features(p.minor);
		return 0;
	case P_VERSION:
		printf("v%d.%d\n", PAHOLE_MAJOR, p.minor);
		return 0;
	case P_NUMERIC_VERSION:
		printf("%d%02d\n", PAHOLE_MAJOR, p.minor);
		return 0;
	}
	if (!p.encode && !p.detached) {
		fprintf(stderr, "%s: nothing to do: only BTF encoding (-J or "
			"--btf_encode_detached) is supported\n", prog);
		return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", prog, optind >= argc ? "no input file" :
			"only one input file is supported");
		return 2;
	}
	return encode(&p, argv[optind]);
}
