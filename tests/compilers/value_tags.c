/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * GCC 16 type tags on types that are not pointers: the type's own tags.
 * pahole 1.32 and GCC's own BTF drop them, clang 22 ignores the attribute
 * there; dwarf2btf keeps them above the tagged type (value_tags.*.known
 * lists what pahole drops).
 */
#define __tag(x) __attribute__((btf_type_tag(#x)))

typedef int __tag(td) tagged_int;	/* a tagged copy of int under the typedef */
tagged_int ti;
tagged_int *tip;
tagged_int __tag(more) tm;		/* the copy's chain goes on into td */
int __tag(pcpu) counter;		/* as the kernel's DEFINE_PER_CPU */
const int __tag(k) ck;
int __tag(e) arr[4];			/* on the array */
struct st { int a; } __tag(st_tag);	/* the definition itself */
struct st *stp;
