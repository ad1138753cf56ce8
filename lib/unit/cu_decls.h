/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cu_decls.c: functions -> FUNC, variables -> unit_var records. */
#ifndef D2B_UNIT_CU_DECLS_H
#define D2B_UNIT_CU_DECLS_H

#include "unit/cu.h"

int cu_decls__subprogram(struct cu *w, const struct cu_die *die);
int cu_decls__variable(struct cu *w, const struct cu_die *die);

#endif
