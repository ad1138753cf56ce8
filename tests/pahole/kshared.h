/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Types the base (kbase.c) and the module (kmodule.c) of tests/pahole share */
typedef unsigned long ksize_t;
enum kstate { KSTATE_NEW, KSTATE_LIVE, KSTATE_DEAD };
union kval {
	long i;
	double f;
};
struct kobj;
struct kobj_ops {
	int (*open)(struct kobj *);
};
struct kobj {
	int refcount;
	char name[16];
	struct kobj *parent;
	struct kobj_ops ops;
	struct {
		unsigned int flags : 3, busy : 1;
	} state;			/* anonymous: moves into the module */
	enum kstate st;
};
struct kstats {
	unsigned long hits[4];
};
struct hidden;				/* only ever a FWD */
