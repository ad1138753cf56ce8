/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cu_sites.c: a function's inlined calls -> unit_site records. */
#ifndef D2B_UNIT_CU_SITES_H
#define D2B_UNIT_CU_SITES_H

#include "unit/cu.h"

/* The inline sites in the body of fn, a subprogram with code, into w->u. */
int cu_sites__function(struct cu *w, const struct cu_die *fn);
/* Free what the unit's walk of sites kept. */
void cu_sites__release(struct cu *w);

#endif
