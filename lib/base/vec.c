// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/vec.h"

int vec__reserve(void **data, size_t *cap, size_t len, size_t add, size_t elem_size)
{
	size_t need, new_cap;
	void *p;

	if (add > SIZE_MAX - len)
		return -EOVERFLOW;
	need = len + add;
	if (need <= *cap)
		return 0;
	new_cap = *cap ? *cap : VEC_MIN_CAP;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2)
			return -EOVERFLOW;
		new_cap *= 2;
	}
	if (elem_size && new_cap > SIZE_MAX / elem_size)
		return -EOVERFLOW;
	p = realloc(*data, new_cap * elem_size);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = new_cap;
	return 0;
}
