// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* An out-of-tree "module" (an object, as a .ko is) over the base of
 * kbase.c (tests/pahole/run.sh) */
#include "kshared.h"

struct mod_private {			/* the module's own type */
	struct kobj *kobj;
	ksize_t len;
	struct hidden *opaque;
	float ratio;
	union kval last;
};

__attribute__((section(".data..percpu"))) struct mod_private mod_percpu;

__attribute__((noinline)) int mod_init(struct mod_private *p, struct kobj *k, enum kstate s)
{
	p->kobj = k;
	p->len = sizeof(*k);
	p->last.i = s;
	return k->state.busy + (int)p->ratio;
}
