// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What every translator of lib/unit shares: diagnostics, kept with the unit
 * and handed on when it is merged, so that their order does not depend on
 * which thread walked which unit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/vec.h"
#include "unit/cu.h"

void cu__diag(struct cu *w, enum d2b_level level, Dwarf_Die *die, const char *fmt, ...)
{
	struct unit *u = w->u;
	struct unit_diag *d;
	va_list ap;
	char *msg;

	if (!w->opts->diag)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || VEC_RESERVE(u->diags, u->diags_cap, u->nr_diags, 1)) {
		free(msg);
		u->oom = true;
		return;
	}
	d = &u->diags[u->nr_diags++];
	d->level = level;
	d->die_off = die ? dwarf_dieoffset(die) : UINT64_MAX;
	d->tag = die ? dwarf_tag(die) : 0;
	d->msg = msg;
}
