// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One compile unit, start to end: decide whether its language is one we
 * convert, walk its top-level DIEs (every type, defined function and
 * variable, in DIE order, so type IDs follow the order types are first
 * met), then define the composites reserved on the way.  Diagnostics are
 * kept with the unit and handed on when the unit is merged, so that their
 * order does not depend on which thread walked which unit.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/btf.h"
#include "dwarf/dwarf_ext.h"
#include "dwarf/dwarf_file.h"
#include "unit/cu_annot.h"
#include "unit/cu_decls.h"
#include "unit/cu_types.h"
#include "unit/unit.h"

/* The languages whose types BTF describes: C, and assembly (no types). */
static bool language_converted(int lang)
{
	switch (lang) {
	case -1:		/* no DW_AT_language: assume C */
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case D2B_DW_LANG_C17:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

static const char *language_name(int lang)
{
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return "C++";
	case DW_LANG_Rust:
		return "Rust";
	case DW_LANG_Go:
		return "Go";
	case DW_LANG_Fortran77:
	case DW_LANG_Fortran90:
	case DW_LANG_Fortran95:
	case DW_LANG_Fortran03:
	case DW_LANG_Fortran08:
		return "Fortran";
	case DW_LANG_Ada83:
	case DW_LANG_Ada95:
		return "Ada";
	default:
		return NULL;
	}
}

static bool is_type_tag(int tag)
{
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_typedef:
	case DW_TAG_array_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_subroutine_type:
	case DW_TAG_unspecified_type:
		return true;
	default:
		return false;
	}
}

/*
 * Can this unit hold annotations at all?  Its abbreviation table answers
 * for the whole unit at once: no DW_TAG_LLVM/GNU_annotation abbreviation
 * and no DW_AT_GNU_annotation attribute means no DIE needs to be searched
 * for them (true of every gcc < 16 unit, so of most kernels).
 */
static bool unit_has_annotations(Dwarf_Die *cu_die)
{
	Dwarf_Off off = 0;
	size_t len, n, i;
	Dwarf_Abbrev *ab;
	int guard;

	for (guard = 0; guard < CU_MAX_ABBREVS; guard++) {
		ab = dwarf_getabbrev(cu_die, off, &len);
		if (!ab || ab == (Dwarf_Abbrev *)-1l || len == 0)
			return false;
		if (dwarf_getabbrevtag(ab) == D2B_DW_TAG_LLVM_annotation ||
		    dwarf_getabbrevtag(ab) == D2B_DW_TAG_GNU_annotation)
			return true;
		if (dwarf_getattrcnt(ab, &n) == 0) {
			for (i = 0; i < n; i++) {
				unsigned int name, form;

				if (dwarf_getabbrevattr(ab, i, &name, &form, NULL) == 0 && 
				    name == D2B_DW_AT_GNU_annotation)
					return true;
			}
		}
		off += len;
	}
	return true;	/* could not tell: look everywhere */
}

/*
 * Types defined inside a function body (and its lexical blocks) are the
 * unit's types too, as pahole has them (structs, and also the qualified and
 * pointer types only a local variable uses); variables and code there are
 * not walked.  Depth is bounded: nesting comes from the file.
 */
static int walk_local_types(struct cu *w, Dwarf_Die *scope, int depth)
{
	Dwarf_Die child;
	int err;

	if (depth > CU_MAX_SCOPE_DEPTH || !dwarf_haschildren(scope) || dwarf_child(scope, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_lexical_block) {
			err = walk_local_types(w, &child, depth + 1);
			if (err < 0)
				return err;
		} else if (is_type_tag(tag)) {
			err = cu_types__type(w, &child);
			if (err < 0)
				return err;
		}
	} while (cu__next(w, &child));
	return 0;
}

/*
 * The registers the ABI passes the first integer parameters in, as
 * DW_OP_reg* operands (the kernel's function policy checks that parameters
 * are there).  Machines not listed get no check.
 */
static int abi_param_regs(unsigned int machine, int regs[8])
{
	static const int x86_64[] = { DW_OP_reg5, DW_OP_reg4, DW_OP_reg1,	/* rdi rsi rdx */
				      DW_OP_reg2, DW_OP_reg8, DW_OP_reg9 };	/* rcx r8 r9 */
	static const int s390[] = { DW_OP_reg2, DW_OP_reg3, DW_OP_reg4, DW_OP_reg5, DW_OP_reg6 };
	static const int arm[] = { DW_OP_reg0, DW_OP_reg1, DW_OP_reg2, DW_OP_reg3,
				   DW_OP_reg4, DW_OP_reg5, DW_OP_reg6, DW_OP_reg7 };
	const int *t;
	int i, n;

	switch (machine) {
	case EM_X86_64:
		t = x86_64, n = 6;
		break;
	case EM_S390:
		t = s390, n = 5;
		break;
	case EM_ARM:
	case EM_AARCH64:
		t = arm, n = 8;
		break;
	default:
		return 0;
	}
	for (i = 0; i < n; i++)
		regs[i] = t[i];
	return n;
}

/*
 * The unit's pointer size is its address size (the unit header's), which
 * must be the file's (the ELF class's): one BTF has one pointer size, so a
 * unit of another size (a 32-bit unit in a 64-bit file) is left out.
 */
static bool unit_data_model(struct cu *w, Dwarf_Die *cu_die)
{
	unsigned int want = dwarf_file__addr_size(w->df);
	uint8_t addr_size = 0, off_size;
	Dwarf_Die die;

	if (!dwarf_diecu(cu_die, &die, &addr_size, &off_size))
		addr_size = (uint8_t)want;	/* libdw read the header before */
	if (addr_size != want) {
		cu__diag(w, D2B_WARN, cu_die,
			 "compile unit left out: its addresses are %u bytes, the file's %u",
			 addr_size, want);
		w->u->skipped = true;
		return false;
	}
	d2b_btf__set_pointer_size(w->btf, addr_size);
	w->ptr_size = addr_size;
	return true;
}

/* Walk the unit's top-level DIEs into w->u. */
static int walk(struct cu *w, Dwarf_Die *cu_die)
{
	Dwarf_Die child;
	int lang, err = 0;

	lang = dwarf_srclang(cu_die);
	if (!language_converted(lang)) {
		const char *lname = language_name(lang);

		if (lname)
			cu__diag(w, D2B_INFO, cu_die, "compile unit left out: language %s", lname);
		else
			cu__diag(w, D2B_INFO, cu_die, "compile unit left out: language 0x%x", lang);
		w->u->skipped = true;
		return 0;
	}
	w->has_annotations = unit_has_annotations(cu_die);
	w->has_v2_type_tags = w->has_annotations && cu_annot__unit_has_v2(w, cu_die);
	if (!dwarf_haschildren(cu_die))
		return 0;
	if (dwarf_child(cu_die, &child) != 0)
		goto corrupt;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_invalid)
			goto corrupt;
		if (is_type_tag(tag))
			err = cu_types__type(w, &child);
		else if (tag == DW_TAG_subprogram) {
			err = cu_decls__subprogram(w, &child);
			if (err >= 0)
				err = walk_local_types(w, &child, 0);
		}
		else if (tag == DW_TAG_variable)
			err = cu_decls__variable(w, &child);
		else if (tag == DW_TAG_imported_unit)
			cu__diag(w, D2B_INFO, &child, "imported (partial) unit not followed");
		if (err < 0)
			return err;
		/* keep the worklist short and the IDs in meeting order */
		err = cu_types__drain(w);
		if (err < 0)
			return err;
	} while (cu__next(w, &child));
	if (w->corrupt)
		goto corrupt;
	return 0;
corrupt:
	/* libdw could not decode the next DIE: the unit is damaged, and what
	 * follows cannot be trusted, so the whole conversion fails */
	cu__diag(w, D2B_ERROR, NULL, "corrupt .debug_info in compile unit %s: %s",
		 w->u->name ?: "(unnamed)", dwarf_errmsg(-1));
	return -EBADMSG;
}

int unit__walk(struct unit *u, const struct d2b_opts *opts,
	       const struct unit_func_filter *filter, struct dwarf_file *df, Dwarf_Die *cu_die)
{
	struct cu w = {
		.opts = opts,
		.func_filter = filter,
		.df = df,
		.u = u,
		.cu_die = *cu_die,
		.big_endian = dwarf_file__big_endian(df),
	};
	int err;

	memset(u, 0, sizeof(*u));
	u->name = dwarf_diename(cu_die);
	u->btf = d2b_btf__new(NULL);
	if (!u->btf)
		return -ENOMEM;
	w.btf = u->btf;
	if (!unit_data_model(&w, cu_die))
		return 0;
	w.nr_reg_params = abi_param_regs(dwarf_file__machine(df), w.reg_params);
	hmap__init(&w.die_map, false);
	err = walk(&w, cu_die);
	hmap__release(&w.die_map);
	free(w.pending);
	return err;
}

void unit__release(struct unit *u)
{
	size_t i;

	d2b_btf__free(u->btf);
	free(u->vars);
	free(u->tag_offs);
	free(u->funcs);
	for (i = 0; i < u->nr_diags; i++)
		free(u->diags[i].msg);
	free(u->diags);
	memset(u, 0, sizeof(*u));
}
