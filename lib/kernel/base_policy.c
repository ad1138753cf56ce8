// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Converting over a base that pahole made (base_policy.h). */
#include "kernel/base_policy.h"
#include "merge/base_index.h"

bool base_policy__flat_arrays(const struct d2b_btf *base)
{
	return !base_index__chained_arrays(base);
}
