/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * dwarf2btf: convert DWARF debug information into BTF.
 *
 * The library's only public header.  Conventions:
 *  - functions return a negative errno on failure and a value >= 0 (an ID,
 *    an offset, 0) on success; heap objects come from object__new() and go
 *    to object__free(), which accepts NULL;
 *  - the library never prints and never exits: diagnostics go to the
 *    callback in struct d2b_opts;
 *  - no global state: everything hangs off the objects below.
 *
 * Errors: one channel.  Every fallible call returns a negative errno on
 * failure, and its message is the caller's to fetch from the caller's own
 * buffer, errbuf/errlen: one line, no trailing newline, never the path of
 * the file it was given, which the caller adds once ("dwarf2btf: FILE:
 * message").  On failure errbuf always holds it; on success it is "";
 * errbuf may be NULL (no message wanted).  The buffer is
 *  - an argument of the calls that read or write a file or parse bytes
 *    (d2b_btf__parse_raw, d2b_btf__load_file, d2b_btf__load_base,
 *    d2b_btf__write_raw, d2b_elf__write_btf);
 *  - d2b_opts.errbuf for a conversion (d2b_convert_file, d2b_convert_mem,
 *    d2b_convert_file_later_base): the first error met, prefixed by its
 *    unit and DIE when it has them ("foo.c: DIE 0x2a: ...");
 *  - none for the calls on objects in memory (the builder, encode, dump,
 *    distill, verify, compare), which fail only for what their errno says
 *    in full (-ENOMEM; -E2BIG at a BTF limit; -EINVAL for an argument
 *    outside what their comment allows; -EIO for a stream that fails):
 *    strerror(-err) is their whole message.
 * Beside it, and not for errors: a conversion's diagnostics callback
 * (d2b_opts.diag) is its log, warnings and notes with their unit and DIE,
 * where its errors appear too (as D2B_ERROR, in their place); the
 * callbacks of d2b_btf__verify and d2b_btf__compare are their results (a
 * violation, a difference: each call's return counts them), and a compare
 * callback's own stop code is returned as it is.
 *
 * Threads: the library holds no global state, so independent calls on
 * different threads need no lock: conversions, and reading a d2b_btf (a
 * converted one, a base shared by several conversions) while nothing
 * changes it.  A d2b_btf changed (add, set) must be the changer's alone.
 *
 * ABI: libdwarf2btf.so.1.  Each symbol has the version that
 * lib/libdwarf2btf.map gives it: LIBDWARF2BTF_1.0 for the first release's
 * functions, LIBDWARF2BTF_1.1 for d2b_btf__load_base, LIBDWARF2BTF_1.2 for
 * the inline-site builders (d2b_btf__add_loc_*, d2b_btf__add_locsec*),
 * d2b_btf__split_inline and d2b_elf__write_btf_inline.  A
 * new function goes into a new version; a symbol removed or changed, or a
 * public struct or enum value changed, takes a new soname (tests/libso
 * checks the exported symbols and, with abidiff, the ABI against what is
 * committed).  So D2B_KIND_MAX stays 19 (it sizes a public array) and the
 * kinds added since are past it, up to D2B_KIND_LAST; the inline helpers
 * d2b_kind() and d2b_vlen() read the bpf tree's wider fields, the same
 * bits for every BTF a 6.x kernel loads.
 *
 * The BTF format structures are spelled out here (rather than taken from
 * <linux/btf.h>) so the library builds against any kernel headers and does
 * not clash with libbpf in programs that use both.
 */
#ifndef DWARF2BTF_H
#define DWARF2BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the library is built with -fvisibility=hidden: what is declared here is
 * what it exports (and lib/libdwarf2btf.map gives each its version) */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---------------------------------------------------------------------
 * The BTF format (Documentation/bpf/btf.rst)
 * ------------------------------------------------------------------- */

enum {
	D2B_BTF_MAGIC = 0xeB9F,
	D2B_BTF_VERSION = 1,
	D2B_MAX_TYPE_ID = 0xfffff,	/* the kernel's BTF_MAX_TYPE */
	D2B_MAX_NAME_OFF = 0xffffff,
	/* the most members, values or entries a 6.x kernel reads (16-bit
	 * vlen), and the builder's limit for the kinds INT to ENUM64 */
	D2B_MAX_VLEN = 0xffff,
	/* the bpf tree's (2026) 24-bit vlen: the builder's limit for
	 * LOC_PARAM, LOC_PROTO and LOCSEC, which only its kernels read;
	 * encode writes a vlen over D2B_MAX_VLEN only for such a kernel
	 * (-E2BIG otherwise: see "Inline sites" below) */
	D2B_MAX_VLEN_WIDE = 0xffffff,
};

enum d2b_kind {
	D2B_KIND_UNKN = 0,	/* void */
	D2B_KIND_INT = 1,
	D2B_KIND_PTR = 2,
	D2B_KIND_ARRAY = 3,
	D2B_KIND_STRUCT = 4,
	D2B_KIND_UNION = 5,
	D2B_KIND_ENUM = 6,
	D2B_KIND_FWD = 7,
	D2B_KIND_TYPEDEF = 8,
	D2B_KIND_VOLATILE = 9,
	D2B_KIND_CONST = 10,
	D2B_KIND_RESTRICT = 11,
	D2B_KIND_FUNC = 12,
	D2B_KIND_FUNC_PROTO = 13,
	D2B_KIND_VAR = 14,
	D2B_KIND_DATASEC = 15,
	D2B_KIND_FLOAT = 16,
	D2B_KIND_DECL_TAG = 17,
	D2B_KIND_TYPE_TAG = 18,
	D2B_KIND_ENUM64 = 19,
	/* The last kind of the first release, and so for ever the size of
	 * struct d2b_compare_summary's kind[] (changing it would change that
	 * struct: a new soname).  The kinds after it are not counted there. */
	D2B_KIND_MAX = 19,
	/* The bpf tree's inline sites (2026): see "Inline sites" below.
	 * Kernels 6.x refuse them (and d2b_btf__verify() does, unless told
	 * D2B_VERIFY_LOC_KINDS). */
	D2B_KIND_LOC_PARAM = 20,
	D2B_KIND_LOC_PROTO = 21,
	D2B_KIND_LOCSEC = 22,
	D2B_KIND_LAST = 22,	/* the last kind this library knows */
};

/* BTF_KIND_INT encoding bits */
enum d2b_int_enc {
	D2B_INT_SIGNED = 1 << 0,
	D2B_INT_CHAR = 1 << 1,
	D2B_INT_BOOL = 1 << 2,
};

/* FUNC linkage (in vlen) and VAR linkage */
enum d2b_linkage {
	D2B_LINKAGE_STATIC = 0,
	D2B_LINKAGE_GLOBAL = 1,
	D2B_LINKAGE_EXTERN = 2,
};

struct d2b_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off;
	uint32_t type_len;
	uint32_t str_off;
	uint32_t str_len;
};

/*
 * The header's extension of libbpf 1.8 and Linux 7.1 (hdr_len 32): a
 * layout section, between the types and the strings, holding one struct
 * d2b_layout per kind the writer knew, indexed by kind, so that a reader
 * can step over kinds it does not know.  Kernels before 7.1 refuse a
 * header whose bytes past the first 24 are not zero: it is written only
 * when asked for (d2b_btf__set_layout, d2b_opts.layout), never for split
 * BTF (as pahole writes it).
 */
enum {
	D2B_HDR_LEN = 24,		/* struct d2b_header */
	D2B_HDR_LEN_LAYOUT = 32,	/* struct d2b_header_layout */
};

struct d2b_header_layout {
	struct d2b_header hdr;
	uint32_t layout_off;
	uint32_t layout_len;
};

struct d2b_layout {
	uint8_t info_sz;	/* bytes of the one record after struct d2b_type */
	uint8_t elem_sz;	/* bytes of each of its vlen records */
	uint16_t flags;		/* none defined: 0 */
};

/* struct btf_type: info = vlen (bits 0-23) | kind (24-30) | kind_flag (31),
 * as the bpf tree (2026) widened them; kernels 6.x read vlen from bits 0-15
 * and kind from 24-28, and refuse a type with any of the others set, which
 * BTF for them never has (so the two readings agree on it) */
struct d2b_type {
	uint32_t name_off;
	uint32_t info;
	union {
		uint32_t size;	/* INT ENUM ENUM64 STRUCT UNION DATASEC FLOAT */
		uint32_t type;	/* everything else */
	};
};

struct d2b_array {
	uint32_t type;
	uint32_t index_type;
	uint32_t nelems;
};

struct d2b_member {
	uint32_t name_off;
	uint32_t type;
	uint32_t offset;	/* bits; kind_flag: bitfield_size << 24 | bit_offset */
};

struct d2b_enum {
	uint32_t name_off;
	int32_t val;
};

struct d2b_enum64 {
	uint32_t name_off;
	uint32_t val_lo32;
	uint32_t val_hi32;
};

struct d2b_param {
	uint32_t name_off;
	uint32_t type;
};

struct d2b_var {
	uint32_t linkage;
};

struct d2b_var_secinfo {
	uint32_t type;
	uint32_t offset;
	uint32_t size;
};

struct d2b_decl_tag {
	int32_t component_idx;
};

/*
 * Inline sites (the bpf tree, 2026: kernels of that tree load them, 6.x
 * refuse them):
 *  - LOC_PARAM: name_off 0, kind_flag 0, size: the bytes of the value it
 *    describes; then struct d2b_loc_param (flags) and vlen uint32_t
 *    values, read by its flags: CONST a constant (vlen 1, or 2 for 64
 *    bits, low word first), CONST|ADDR an address the kernel relocates;
 *    REG a register (DWARF number; D2B_LOC_PARAM_FBREG the frame base),
 *    vlen 2 a value in two registers; REG|OFFSET reg + offset (an address;
 *    the offset values[1], or [1] and [2] low first); REG|DEREF *(reg);
 *    REG|DEREF|OFFSET *(reg + offset).  SIGNED: the constant or the offset
 *    is signed.
 *  - LOC_PROTO: name_off 0, type 0; vlen uint32_t IDs, one per parameter
 *    of a function: a LOC_PARAM, or 0 (no location).
 *  - LOCSEC: a section name ("inline.text" for .text); vlen struct d2b_loc,
 *    each an inline site: the FUNC inlined, the LOC_PROTO of its
 *    parameters there, the site's offset in the ELF section.
 */
enum d2b_loc_param_flags {
	D2B_LOC_PARAM_SIGNED = 0x1,
	D2B_LOC_PARAM_CONST = 0x2,
	D2B_LOC_PARAM_ADDR = 0x4,
	D2B_LOC_PARAM_REG = 0x8,
	D2B_LOC_PARAM_DEREF = 0x10,
	D2B_LOC_PARAM_OFFSET = 0x20,
};

/* apart: a value past INT_MAX makes its enum unsigned */
enum d2b_loc_param_reg {
	D2B_LOC_PARAM_FBREG = 0xffffffffu,	/* the register: the frame base */
};

struct d2b_loc_param {
	uint32_t flags;		/* then vlen uint32_t values */
};

struct d2b_loc {
	uint32_t func;		/* a FUNC */
	uint32_t loc_proto;	/* a LOC_PROTO */
	uint32_t offset;	/* bytes from the start of the ELF section */
};

static inline unsigned int d2b_kind(const struct d2b_type *t)
{
	return (t->info >> 24) & 0x7f;
}

static inline unsigned int d2b_vlen(const struct d2b_type *t)
{
	return t->info & 0xffffff;
}

static inline bool d2b_kflag(const struct d2b_type *t)
{
	return t->info >> 31;
}

static inline uint32_t d2b_info(unsigned int kind, bool kflag, unsigned int vlen)
{
	return (kflag ? 1u << 31 : 0) | (kind & 0x7f) << 24 | (vlen & 0xffffff);
}

/* A LOC_PARAM's flags and values, a LOC_PROTO's parameters, a LOCSEC's sites */
static inline uint32_t d2b_loc_param_flags(const struct d2b_type *t)
{
	return ((const struct d2b_loc_param *)(t + 1))->flags;
}

static inline const uint32_t *d2b_loc_param_values(const struct d2b_type *t)
{
	return (const uint32_t *)((const struct d2b_loc_param *)(t + 1) + 1);
}

static inline const uint32_t *d2b_loc_proto_params(const struct d2b_type *t)
{
	return (const uint32_t *)(t + 1);
}

static inline const struct d2b_loc *d2b_locsec_locs(const struct d2b_type *t)
{
	return (const struct d2b_loc *)(t + 1);
}

/* The INT kind's trailing word: encoding << 24 | offset << 16 | bits */
static inline unsigned int d2b_int_encoding(uint32_t w) { return (w >> 24) & 0x0f; }
static inline unsigned int d2b_int_offset(uint32_t w) { return (w >> 16) & 0xff; }
static inline unsigned int d2b_int_bits(uint32_t w) { return w & 0xff; }

/* Member offset helpers, honouring the struct's kind_flag */
static inline uint32_t d2b_member_bit_offset(const struct d2b_type *t, const struct d2b_member *m)
{
	return d2b_kflag(t) ? m->offset & 0xffffff : m->offset;
}

static inline uint32_t d2b_member_bitfield_size(const struct d2b_type *t, const struct d2b_member *m)
{
	return d2b_kflag(t) ? m->offset >> 24 : 0;
}

const char *d2b_kind_name(unsigned int kind);

/* ---------------------------------------------------------------------
 * struct d2b_btf: a BTF type graph in memory, optionally split over a base
 *
 * Type IDs start at 1 (0 is void) or, for split BTF, right after the base's
 * last ID; string offsets likewise continue after the base's strings.
 * Pointers returned by d2b_btf__type() are valid until the next add.
 * ------------------------------------------------------------------- */

struct d2b_btf;

struct d2b_btf *d2b_btf__new(const struct d2b_btf *base);
void d2b_btf__free(struct d2b_btf *btf);

const struct d2b_btf *d2b_btf__base(const struct d2b_btf *btf);
/* IDs valid in btf: [1, d2b_btf__end_id()); own types: [start_id, end_id) */
uint32_t d2b_btf__start_id(const struct d2b_btf *btf);
uint32_t d2b_btf__end_id(const struct d2b_btf *btf);
/* own types only */
uint32_t d2b_btf__nr_types(const struct d2b_btf *btf);
/* NULL for an invalid ID; the type 0 (void) is a zeroed d2b_type */
const struct d2b_type *d2b_btf__type(const struct d2b_btf *btf, uint32_t id);
/* "" for offset 0, NULL for an invalid offset */
const char *d2b_btf__str(const struct d2b_btf *btf, uint32_t off);
const char *d2b_btf__name(const struct d2b_btf *btf, uint32_t id);
/* size in bytes of a type, following typedefs, modifiers and arrays (a PTR
 * has d2b_btf__pointer_size()); < 0 on error */
int64_t d2b_btf__resolve_size(const struct d2b_btf *btf, uint32_t id);

/* The target's pointer size in bytes, 4 or 8 (BTF itself does not record
 * it).  A converted BTF has its file's (the ELF class, each unit's address
 * size); a split BTF starts with its base's; one read back from raw bytes
 * has the size of its 'long' INT (as libbpf infers it), one read from an ELF
 * file's .BTF the ELF class's.  When nothing says, the host's.
 * set_pointer_size: -EINVAL unless size is 4 or 8. */
uint32_t d2b_btf__pointer_size(const struct d2b_btf *btf);
int d2b_btf__set_pointer_size(struct d2b_btf *btf, uint32_t size);

/* Builder.  Each add returns the new type's ID or a negative errno.  Names
 * may be NULL or "" for anonymous types.  Members, values and parameters are
 * added right after their parent type, in order. */
int d2b_btf__add_str(struct d2b_btf *btf, const char *s);
int d2b_btf__add_int(struct d2b_btf *btf, const char *name, uint32_t size, unsigned int encoding);
int d2b_btf__add_float(struct d2b_btf *btf, const char *name, uint32_t size);
/* PTR CONST VOLATILE RESTRICT (name NULL); TYPEDEF TYPE_TAG (named) */
int d2b_btf__add_ref(struct d2b_btf *btf, enum d2b_kind kind, const char *name, uint32_t type);
int d2b_btf__add_array(struct d2b_btf *btf, uint32_t elem_type, uint32_t index_type, uint32_t nelems);
int d2b_btf__add_composite(struct d2b_btf *btf, enum d2b_kind kind, const char *name, uint32_t size);
/* bit_offset from the start of the struct; bitfield_size 0 for a plain member */
int d2b_btf__add_member(struct d2b_btf *btf, const char *name, uint32_t type,
			uint32_t bit_offset, uint32_t bitfield_size);
int d2b_btf__add_fwd(struct d2b_btf *btf, const char *name, bool is_union);
/* ENUM when size <= 4 and values fit 32 bits (use add_enum64 otherwise) */
int d2b_btf__add_enum(struct d2b_btf *btf, const char *name, uint32_t size, bool is_signed);
int d2b_btf__add_enum64(struct d2b_btf *btf, const char *name, uint32_t size, bool is_signed);
int d2b_btf__add_enum_value(struct d2b_btf *btf, const char *name, int64_t value);
int d2b_btf__add_func_proto(struct d2b_btf *btf, uint32_t ret_type);
/* type 0 and name NULL: the varargs marker */
int d2b_btf__add_param(struct d2b_btf *btf, const char *name, uint32_t type);
int d2b_btf__add_func(struct d2b_btf *btf, const char *name, enum d2b_linkage linkage, uint32_t proto);
int d2b_btf__add_var(struct d2b_btf *btf, const char *name, enum d2b_linkage linkage, uint32_t type);
int d2b_btf__add_datasec(struct d2b_btf *btf, const char *name, uint32_t size);
int d2b_btf__add_datasec_var(struct d2b_btf *btf, uint32_t var, uint32_t offset, uint32_t size);
int d2b_btf__add_decl_tag(struct d2b_btf *btf, const char *value, uint32_t target, int component_idx);
int d2b_btf__add_type_tag(struct d2b_btf *btf, const char *value, uint32_t type);
/* Append a type in raw form (as d2b_btf__type() returns it), with its
 * trailing records; name and string fields are offsets into this btf. */
int d2b_btf__add_raw(struct d2b_btf *btf, const struct d2b_type *t);

/*
 * Since LIBDWARF2BTF_1.2: the inline-site kinds (see "Inline sites" above).
 * add_loc_param: flags D2B_LOC_PARAM_*, nvalues values (1 or more); size
 * not 0.  add_loc_proto opens a LOC_PROTO, to which add_loc_proto_param
 * adds its parameters in order (0: no location); add_locsec opens a LOCSEC
 * (name not empty), to which add_locsec_loc adds its sites.  Each of these
 * holds up to D2B_MAX_VLEN_WIDE values, parameters or sites.  The builder
 * checks only what it must to write the type: d2b_btf__verify() applies
 * the kernel's rules (with D2B_VERIFY_LOC_KINDS).
 */
int d2b_btf__add_loc_param(struct d2b_btf *btf, uint32_t size, uint32_t flags,
			   const uint32_t *values, unsigned int nvalues);
int d2b_btf__add_loc_proto(struct d2b_btf *btf);
int d2b_btf__add_loc_proto_param(struct d2b_btf *btf, uint32_t loc_param_id);
int d2b_btf__add_locsec(struct d2b_btf *btf, const char *name);
int d2b_btf__add_locsec_loc(struct d2b_btf *btf, uint32_t func_id, uint32_t loc_proto_id,
			    uint32_t offset);

/*
 * Distill split's base (.BTF.base for out-of-tree modules): *ret_base gets
 * the base types the split BTF needs, in the form the kernel relocates by
 * name and size (named INT FLOAT FWD as they are, named STRUCT UNION ENUM as
 * member-less types of their size); *ret_split gets split's types over it,
 * plus the referenced base types the distilled base cannot hold (anonymous
 * ones, pointers, arrays, typedefs, ...).  Free *ret_split before *ret_base.
 * Inline sites (LOC_*) are split's own types and stay so.
 * -EINVAL: split is not split BTF, or references a base VAR/FUNC/DATASEC
 * (a LOCSEC naming a base FUNC too) or a base inline-site type.
 */
int d2b_btf__distill_base(const struct d2b_btf *split, struct d2b_btf **ret_base,
			  struct d2b_btf **ret_split);

/*
 * Check btf's own types against the rules the kernel applies when it loads
 * BTF (names, layouts, references, modifier order: what BPF_BTF_LOAD would
 * refuse).  report (may be NULL) gets each violation as one line naming the
 * type ("type [12] STRUCT 'foo': member 'x' ends past ...").  Returns the
 * number of violations (0: the kernel should accept it), or a negative
 * errno.
 *
 * flags: D2B_VERIFY_CXX_NAMES relaxes one rule: where the kernel wants an
 * identifier, a C++ name ("geo::Box<int>", any printable ASCII) passes too.
 * That BTF is for user-space tools: the kernel refuses such names (a
 * conversion uses it for C++ units with d2b_opts.cxx_names).
 */
enum d2b_verify_flags {
	D2B_VERIFY_CXX_NAMES = 1 << 0,
	/* Since LIBDWARF2BTF_1.2.  The BTF is for a kernel of the bpf tree
	 * (2026) that loads the inline-site kinds: accept LOC_PARAM,
	 * LOC_PROTO and LOCSEC under its rules, and vlen over 16 bits.
	 * Without it, as every 6.x kernel (and this library before 1.2):
	 * those kinds, and any vlen over D2B_MAX_VLEN, are refused. */
	D2B_VERIFY_LOC_KINDS = 1 << 1,
};
typedef void (*d2b_verify_fn)(void *arg, uint32_t id, const char *msg);
int d2b_btf__verify(const struct d2b_btf *btf, unsigned int flags, d2b_verify_fn report,
		    void *arg);

/* ---------------------------------------------------------------------
 * Raw BTF in and out
 * ------------------------------------------------------------------- */

enum d2b_endian {
	D2B_ENDIAN_NATIVE = 0,
	D2B_ENDIAN_LITTLE,
	D2B_ENDIAN_BIG,
};

/* Parse raw BTF (either byte order) over an optional base.  The data is
 * copied.  Returns -EINVAL/-EPROTO style errors for malformed input and
 * fills errbuf (if not NULL) with the reason. */
int d2b_btf__parse_raw(const void *data, size_t size, const struct d2b_btf *base,
		       struct d2b_btf **ret, char *errbuf, size_t errlen);
/* Read a raw BTF file, or the .BTF section of an ELF file.  errbuf gets
 * the reason, without the path (the caller names the file). */
int d2b_btf__load_file(const char *path, const struct d2b_btf *base,
		       struct d2b_btf **ret, char *errbuf, size_t errlen);
/*
 * Since LIBDWARF2BTF_1.1.
 * d2b_btf__load_file() of a base (no base of its own) to convert over,
 * such as a kernel's vmlinux for its modules, with what every conversion
 * over it makes first (an index of its types) made once and attached to
 * it: conversions over the returned BTF, in this process, skip that step.
 * With cache_dir (not NULL), the index and the parse of the base are also
 * kept in an entry of that directory named by a digest of the base's
 * bytes (made if missing, 0700), and the next call over the same bytes, in
 * any process, maps them instead of making them (making them is most of
 * a small module's conversion).  An entry is used only if whole,
 * undamaged, of this library's format and made from these very bytes;
 * else it is made again and written over, without a lock (runs writing
 * at once write the same bytes; the last rename wins).  The entries beyond
 * the 8 most recently used are removed.  The result never depends on the
 * cache.  The base must stay unchanged while the BTF lives (its bytes may
 * be used where the file has them).
 * Returns a negative errno (errbuf says why, as d2b_btf__load_file()), or
 * what the cache did (a problem with the cache is not an error):
 */
enum d2b_base_cache {
	D2B_BASE_CACHE_NONE = 0,	/* no cache_dir, or a base that cannot be
					 * cached (compressed .BTF, another byte
					 * order): the index was made */
	D2B_BASE_CACHE_HIT,		/* read from the cache */
	D2B_BASE_CACHE_MADE,		/* no entry: made, and written */
	D2B_BASE_CACHE_REMADE,		/* the entry was damaged, of another format,
					 * or did not check: made, and written over */
	D2B_BASE_CACHE_UNWRITABLE,	/* made; the entry could not be written */
};
int d2b_btf__load_base(const char *path, const char *cache_dir, struct d2b_btf **ret,
		       char *errbuf, size_t errlen);
/* Byte order the blob was read in, or the target's for a converted BTF
 * (NATIVE for ones built by hand: the host's); a split BTF starts with its
 * base's.  encode and write_raw write in it, d2b_elf__write_btf in the ELF
 * file's. */
enum d2b_endian d2b_btf__endian(const struct d2b_btf *btf);
void d2b_btf__set_endian(struct d2b_btf *btf, enum d2b_endian endian);
/* Serialize own types and strings (header + types + strings) into a
 * malloc()ed buffer in the btf's byte order.  -E2BIG for a type whose vlen
 * is over D2B_MAX_VLEN (a LOCSEC of many sites), which only the bpf tree's
 * kernels read, unless the BTF is marked for such a kernel: one read from
 * bytes that had such a vlen is, and so is a conversion's that asks for
 * inline sites (write_raw and d2b_elf__write_btf say which type). */
int d2b_btf__encode(const struct d2b_btf *btf, void **ret, size_t *ret_size);
/* Write the encoded BTF to path, safely (a temporary file beside it,
 * renamed over it).  errbuf gets the reason, without the path. */
int d2b_btf__write_raw(const struct d2b_btf *btf, const char *path, char *errbuf,
		       size_t errlen);

/* Print own types in the format of `bpftool btf dump file F format raw`;
 * then, when btf has a layout section (bpftool does not print it), a line
 * "LAYOUT kinds=N" and one line per kind ("\t[4] STRUCT info_sz=0
 * elem_sz=12 flags=0x0"). */
int d2b_btf__dump(const struct d2b_btf *btf, FILE *out);

/* The layout section (struct d2b_layout) encode writes.  on: the kinds
 * [0, D2B_KIND_MAX], as libbpf 1.8 and pahole 1.32 write them, or, when
 * btf holds an inline-site kind then, every kind this library knows, [0,
 * D2B_KIND_LAST] (a reader steps over the kinds it does not know by their
 * records); off: none (the default; also the 24-byte header).  -EINVAL to turn it on for
 * split BTF, which never carries one.  A BTF read from bytes keeps the
 * section it had, records as they were (host order). */
int d2b_btf__set_layout(struct d2b_btf *btf, bool on);
/* The layout records and their count, or NULL and 0 when there are none */
const struct d2b_layout *d2b_btf__layout(const struct d2b_btf *btf, uint32_t *ret_nr);

/* ---------------------------------------------------------------------
 * Diagnostics
 * ------------------------------------------------------------------- */

/*
 * A diagnostic's level.  The values are fixed by the ABI and do not sort
 * by importance: D2B_NOTICE, meant for every user, comes after D2B_DEBUG.
 * Choose what to show by naming the levels (a switch, as dwarf2btf's
 * command line does), never by comparing them with < or >.
 */
enum d2b_level {
	D2B_ERROR,	/* the conversion fails; the first is also in opts.errbuf */
	D2B_WARN,	/* input that could not be used as it is (dwarf2btf: -v) */
	D2B_INFO,	/* what was left out or changed, and why (dwarf2btf: -v) */
	D2B_STATS,	/* counts, times and memory per phase: only with opts.stats */
	D2B_DEBUG,	/* not sent by this version of the library */
	D2B_NOTICE,	/* about the output, for every user (dwarf2btf: always) */
};

/*
 * What the kernel's function policy (D2B_FUNCS_KERNEL) found about a
 * function, as data, for a front end that words it its own way
 * (dwarf2btf-pahole prints pahole's lines): the d2b_diag.func of a
 * D2B_INFO, given when d2b_opts.func_notes asks for it.  Per name, in
 * strcmp() order of the names: a D2B_FUNC_PROTOS_DIFFER, then a
 * D2B_FUNC_LEFT_OUT.
 */
enum d2b_func_what {
	D2B_FUNC_LEFT_OUT = 1,		/* left out, for .why */
	/* two of its definitions' prototypes differ (.diff), whether or not
	 * that leaves it out: the first met against the first that differs,
	 * compared as pahole compares them (named types by name) */
	D2B_FUNC_PROTOS_DIFFER,
};

enum d2b_func_why {
	D2B_FUNC_NO_SYMBOL = 1,		/* no ELF function symbol has its name */
	D2B_FUNC_STATIC_NO_SYMBOLS,	/* static, and the file has no function symbols */
	D2B_FUNC_AMBIGUOUS,		/* its symbols have several addresses */
	D2B_FUNC_OPTIMIZED,		/* parameters optimized out where its ABI changed */
	D2B_FUNC_REORDERED,		/* its code takes its parameters in another order */
	D2B_FUNC_UNEXPECTED_REG,	/* a parameter is not in the ABI's register */
	D2B_FUNC_CLONE_CHANGED,		/* a clone of it takes other parameters */
	D2B_FUNC_INCONSISTENT,		/* prototypes differ between compile units */
};

enum d2b_proto_diff {
	D2B_PROTO_PARAM_COUNT = 1,	/* .nr_params[0] != .nr_params[1] */
	D2B_PROTO_RETURN,		/* the return types */
	D2B_PROTO_PARAM_TYPE,		/* the type of parameter .param */
};

struct d2b_func_note {
	enum d2b_func_what what;
	const char *name;		/* the function's */
	enum d2b_func_why why;		/* D2B_FUNC_LEFT_OUT */
	/* D2B_FUNC_PROTOS_DIFFER: how; [0] is the first prototype's, [1]
	 * the other's (a varargs' "..." counts as a parameter named "") */
	enum d2b_proto_diff diff;
	unsigned int nr_params[2];
	unsigned int param;		/* D2B_PROTO_PARAM_TYPE: from 0 */
	const char *param_name[2];	/* ...its names ("" if none) */
};

struct d2b_diag {
	enum d2b_level level;
	const char *file;	/* input file, or NULL */
	const char *cu;		/* compile unit name, or NULL */
	uint64_t die_off;	/* DIE offset in .debug_info, or UINT64_MAX */
	int tag;		/* DW_TAG_*, or 0 */
	const char *msg;
	/* what msg says of a function, as data, or NULL; only there when
	 * d2b_opts.func_notes asks (a library older than the field never
	 * sets it, and refuses options that ask) */
	const struct d2b_func_note *func;
};

typedef void (*d2b_diag_fn)(const struct d2b_diag *d, void *arg);

/* ---------------------------------------------------------------------
 * DWARF -> BTF conversion
 * ------------------------------------------------------------------- */

/* Which functions become FUNC */
enum d2b_funcs {
	D2B_FUNCS_DEFINED = 0,		/* every function with code, linkage as declared */
	D2B_FUNCS_KERNEL,		/* the kernel's rules (pahole's): only names with an
					 * ELF function symbol, one FUNC per name, static
					 * linkage; see consistent_funcs */
	D2B_FUNCS_NONE,
};

/* Which pahole release's function policy D2B_FUNCS_KERNEL follows */
enum d2b_kernel_policy {
	D2B_KERNEL_POLICY_NEWEST = 0,	/* the newest below (pahole 1.32's) */
	D2B_KERNEL_POLICY_PAHOLE_1_31 = 131,
	D2B_KERNEL_POLICY_PAHOLE_1_32 = 132,
};

/* Which variables become VAR (in a DATASEC per section) */
enum d2b_vars {
	D2B_VARS_ALL = 0,		/* every variable with a static address */
	D2B_VARS_PERCPU,		/* only those in .data..percpu (the kernel's) */
	D2B_VARS_NONE,
};

struct d2b_opts {
	/* sizeof(struct d2b_opts) as the caller's header has it (D2B_OPTS_SZ):
	 * a newer library then reads no field past the caller's, and an older
	 * one refuses (-EINVAL) a field it does not know set to non-zero.
	 * 0 stands for LIBDWARF2BTF_1.0's struct, which ends at
	 * true_signature.  New fields are only ever added at the end. */
	size_t sz;
	d2b_diag_fn diag;		/* NULL: silent */
	void *diag_arg;
	/* the error message of a failed conversion, "" after one that
	 * succeeds (see "Errors" above); NULL: none wanted */
	char *errbuf;
	size_t errlen;
	unsigned int jobs;		/* 0 or 1: single-threaded */
	bool skip_decl_tags;
	bool skip_type_tags;
	enum d2b_funcs funcs;
	enum d2b_vars vars;
	/* D2B_FUNCS_KERNEL: leave out a function whose prototypes differ
	 * between units, that receives a parameter in another register than
	 * the ABI's, or whose name has several addresses */
	bool consistent_funcs;
	/* D2B_FUNCS_KERNEL: whose rules (lib/kernel/func_policy.c).  1.31: a
	 * function's first definition stands for it, and consistent_funcs
	 * decides all the checks.  1.32: the definition at its ELF symbol's
	 * address stands for it (a strong one over a __weak one); a function
	 * whose parameters its code reorders, or that lost parameters where
	 * its ABI changed (a .isra/.constprop symbol at its address, clang's
	 * DW_CC_nocall), is left out, and so are the register and address
	 * checks' failures, whatever consistent_funcs says; prototypes compare
	 * function-pointer parameters too. */
	enum d2b_kernel_policy kernel_policy;
	/* DECL_TAG "bpf_kfunc" (and "bpf_fastcall") on the functions that
	 * .BTF_ids lists in kfunc sets */
	bool kfunc_tags;
	/* with kfunc_tags: the pointers of arena kfuncs (KF_ARENA_* flags)
	 * point through a TYPE_TAG "address_space(1)" with kind_flag 1 */
	bool kfunc_attributes;
	/* int a[5][6] as one ARRAY of 30 int, as pahole writes it, not ARRAY 5
	 * of ARRAY 6.  Also chosen by itself over a base that has no chained
	 * arrays (one pahole made), so that a module's types match its base's */
	bool flatten_arrays;
	bool no_float;			/* floats as INT (old kernels) */
	bool no_enum64;			/* 64-bit enums as ENUM (values truncated) */
	/* a layout section (d2b_btf__set_layout) in the result; not over a
	 * base: split BTF has none */
	bool layout;
	bool no_dedup;			/* keep every CU's types (debugging) */
	/* merge the units one by one on one thread, never in groups
	 * (lib/convert.c): the same output, for checking that it is */
	bool no_merge_groups;
	/* C++ units: names as C++ spells them ("geo::rect", "geo::Box<int>",
	 * "geo::rect::area"), which tools read but the kernel refuses: such
	 * BTF is checked with D2B_VERIFY_CXX_NAMES and a D2B_NOTICE says so.
	 * Without it (the default), only names the kernel accepts: types keep
	 * DW_AT_name when it is an identifier ("rect") and are anonymous
	 * otherwise ("Box<int>"; a typedef becomes its type, a declaration
	 * void); functions and variables are named by their linkage name (the
	 * ELF symbol, "_ZNK3geo4rect4areaEv"), or DW_AT_name, or are left
	 * out; in members' and parameters' names each other character becomes
	 * '_' (_vptr$base -> _vptr_base).  Each one changed is said as
	 * D2B_INFO. */
	bool cxx_names;
	bool no_cxx;			/* leave C++ units out (as other languages) */
	bool stats;			/* report per-phase statistics as D2B_STATS */
	/* more places to look for the files the DWARF needs: the dwz
	 * supplementary file (by build-id under DIR/.build-id, or by name),
	 * .dwo files and the .dwp package (by name) */
	const char *const *debug_dirs;
	size_t nr_debug_dirs;
	/* a supplementary file or .dwo file not found is not an error: what
	 * needs it is left out, and a D2B_NOTICE says what */
	bool allow_missing_debug;
	/* D2B_FUNCS_KERNEL, pahole 1.32's policy (its true_signature): a
	 * function whose code is a GCC clone (a symbol with a '.', as
	 * foo.isra.0, at the address of a definition whose parameters are in
	 * the ABI's registers) is described by that clone, under the clone's
	 * name, with the parameters its DWARF lists -- less, where it reorders
	 * them, those that have no location or that it optimized out --
	 * rather than left out or described by its source prototype; one
	 * whose signature clang changed (DW_CC_nocall) by the parameters its
	 * code takes, read from their locations (dead ones and constants
	 * dropped, an aggregate passed in one register cut to that member,
	 * named "param__member") */
	bool true_signature;
	/* D2B_FUNCS_KERNEL: the diagnostics about the functions the policy
	 * leaves out, or whose prototypes differ, carry what they say as data
	 * (d2b_diag.func) */
	bool func_notes;
	/*
	 * Inline sites, in the bpf tree's kinds (20-22): for each
	 * DW_TAG_inlined_subroutine with an address, the FUNC of the function
	 * inlined there, where each of its parameters is at the site's entry
	 * (LOC_PARAM, LOC_PROTO) and the site's offset in its ELF section
	 * (one LOCSEC per section).  Appended after every other type
	 * (d2b_btf__split_inline() makes them a BTF of their own).  Kernels
	 * and libbpf before the bpf tree's refuse these kinds: never by default.
	 */
	bool inline_sites;
};

/* struct d2b_opts o = { .sz = D2B_OPTS_SZ, ... } */
#define D2B_OPTS_SZ sizeof(struct d2b_opts)

/* Convert the DWARF of an ELF file (or of the debug file it points to).
 * base: split BTF over this base (a module over vmlinux), or NULL. */
int d2b_convert_file(const char *path, const struct d2b_btf *base,
		     const struct d2b_opts *opts, struct d2b_btf **ret);

/*
 * A base still being loaded (on a thread of the caller's) when the
 * conversion starts: get(arg) is called once, after path is opened and
 * before the base is first needed, and returns the base -- or NULL if it
 * could not be had, and then the conversion fails with -ECANCELED without
 * a message of its own (the caller says why).  get() is not called if the
 * conversion fails before.  The base must outlive the result.
 */
struct d2b_base_later {
	const struct d2b_btf *(*get)(void *arg);
	void *arg;
};

/* The same for an ELF file's bytes in memory: data is copied (free it when
 * this returns).  name (NULL: "(memory)") stands for its path: in the
 * diagnostics' .file, and as the place beside which its separate debug
 * file (.gnu_debuglink), dwz supplementary file and .dwo files are looked
 * for, as for a file of that name.  Linux only (memfd_create()). */
int d2b_convert_mem(const void *data, size_t size, const char *name, const struct d2b_btf *base,
		    const struct d2b_opts *opts, struct d2b_btf **ret);

/* d2b_convert_file() over the base that later->get() hands over. */
int d2b_convert_file_later_base(const char *path, const struct d2b_base_later *later,
				const struct d2b_opts *opts, struct d2b_btf **ret);

/*
 * The inline sites of btf (d2b_opts.inline_sites: every type from its
 * first LOC_PARAM, LOC_PROTO or LOCSEC on, which nothing before refers to)
 * as a BTF of their own: *ret_main the types before them, over btf's base,
 * and *ret_inline the inline part, split over *ret_main (empty if btf has
 * no sites), with the same type IDs as in btf.  -EINVAL if a type before
 * them refers into them.
 */
int d2b_btf__split_inline(const struct d2b_btf *btf, struct d2b_btf **ret_main,
			  struct d2b_btf **ret_inline);

/* ---------------------------------------------------------------------
 * ELF output
 * ------------------------------------------------------------------- */

/* Write btf (and, if not NULL, a .BTF.base section with base_btf) into the
 * ELF file path as section .BTF, replacing existing .BTF/.BTF.base.  The new
 * file is built beside path and renamed over it, keeping mode and owner; on
 * any failure path is left byte-identical.  errbuf gets the reason, without
 * the path. */
int d2b_elf__write_btf(const char *path, const struct d2b_btf *btf,
		       const struct d2b_btf *base_btf, char *errbuf, size_t errlen);
/* The same with inline_btf, split over btf (d2b_btf__split_inline()), as
 * section .BTF.inline (replacing one; an existing .BTF.base stays). */
int d2b_elf__write_btf_inline(const char *path, const struct d2b_btf *btf,
			      const struct d2b_btf *inline_btf, char *errbuf, size_t errlen);

/* ---------------------------------------------------------------------
 * Comparing two BTF graphs by meaning (lib/btf/btf_compare.c)
 *
 * Type IDs and order do not matter: named types (INT FLOAT STRUCT UNION
 * ENUM/ENUM64 FWD TYPEDEF FUNC VAR DATASEC LOCSEC) are matched by kind and
 * name (ENUM and ENUM64 share a name space; a LOCSEC's inline sites are
 * matched by FUNC name and offset, in any order, with what their LOC_PROTO
 * says), anonymous ones by their structure, and a reference to a named
 * type is its kind and name.  Several same-name
 * variants (two different `struct foo`) compare as multisets; so do the
 * anonymous types of each kind.  Only own types are compared (a split BTF's
 * base is only looked through for names).
 * ------------------------------------------------------------------- */

enum d2b_diff_what {
	D2B_DIFF_ONLY_A,	/* a named type is in A only */
	D2B_DIFF_ONLY_B,	/* a named type is in B only */
	D2B_DIFF_CHANGED,	/* both have it, defined differently: one call per detail */
	D2B_DIFF_VARIANTS,	/* several same-name variants that do not pair up */
	D2B_DIFF_ANON,		/* an anonymous type occurs a different number of times */
};

struct d2b_compare_diff {
	enum d2b_diff_what what;
	unsigned int kind;	/* D2B_KIND_* (A's when both sides have the type) */
	const char *name;	/* "" for anonymous types */
	uint32_t id_a, id_b;	/* a sample type on each side, 0 if none */
	uint32_t count_a, count_b;	/* VARIANTS, ANON: occurrences on each side */
	const char *detail;	/* CHANGED: "member 'foo' type 'int' vs 'long'";
				 * ANON: the type written C-like; else "" */
};

/* Return 0 to go on, a negative errno to stop (d2b_btf__compare returns it). */
typedef int (*d2b_compare_fn)(const struct d2b_compare_diff *d, void *arg);

struct d2b_compare_opts {
	uint32_t kinds;		/* 1 << D2B_KIND_*: kinds to compare; 0: all */
	uint32_t quiet_presence;	/* 1 << D2B_KIND_*: ONLY_A/ONLY_B of these kinds
					 * are counted but not passed to the callback
					 * (FUNC/VAR: encoder policy, not meaning) */
	bool flatten_arrays;	/* int[5][6] == int[30] (pahole flattens) */
	bool fwd_as_struct;	/* a reference to FWD foo == a reference to STRUCT/UNION foo */
	bool ignore_index_type;	/* ARRAY index types do not matter */
	bool ignore_linkage;	/* FUNC and VAR linkage do not matter (pahole: all static) */
	bool no_anon;		/* do not compare the anonymous types */
	bool anon_sets;		/* anonymous types: compare which forms occur, not how
				 * often (options above can merge two forms of one side) */
};

struct d2b_compare_kind_stats {
	uint32_t nr_a, nr_b;		/* own types of the kind */
	uint32_t anon_a, anon_b;	/* ...of which anonymous */
	uint32_t same;			/* named: names whose variants all match */
	uint32_t only_a, only_b;	/* named: names on one side only */
	uint32_t changed;		/* named: names on both sides, defined differently */
	uint32_t anon_extra_a, anon_extra_b;	/* anonymous: occurrences without a match */
};

struct d2b_compare_summary {
	/* by the type's own kind; the kinds past D2B_KIND_MAX (LOC_PARAM,
	 * LOC_PROTO, LOCSEC) are counted in [0] */
	struct d2b_compare_kind_stats kind[D2B_KIND_MAX + 1];
	uint32_t nr_diffs;		/* differences found, quiet ones included */
};

/* Compare a and b by meaning, calling cb (may be NULL) once per difference
 * in a deterministic order (by kind, then name).  opts and ret may be NULL.
 * Returns the number of differences found (0: equal by meaning, capped at
 * INT_MAX) or a negative errno (-ELOOP for absurdly deep anonymous nesting). */
int d2b_btf__compare(const struct d2b_btf *a, const struct d2b_btf *b,
		     const struct d2b_compare_opts *opts, d2b_compare_fn cb, void *arg,
		     struct d2b_compare_summary *ret);

/* Format d as one line without a newline, e.g. "STRUCT foo differs: member
 * 'x' type 'int' vs 'long'" or "FUNC bar only in A".  Returns snprintf's
 * result. */
int d2b_compare_diff__format(const struct d2b_compare_diff *d, char *buf, size_t len);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* DWARF2BTF_H */
