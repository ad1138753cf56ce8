/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * _Atomic (DW_TAG_atomic_type): BTF has no atomic qualifier, so the type
 * itself.  pahole 1.32 stops on it ("Unsupported DW_TAG_atomic_type"):
 * checked by atomic.expect only.
 */
struct node {
	int key;
};

struct atomics {
	_Atomic int counter;
	_Atomic(struct node *) head;
	const _Atomic unsigned long cv_long;
	volatile _Atomic short vs;
};

struct atomics g_atomics;
_Atomic long g_atomic_long;

int peek(struct atomics *a)
{
	return a->counter + a->head->key;
}
