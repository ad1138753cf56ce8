#include "common.h"

struct only_a {
	int x;
	struct shared *s;
};

struct only_a var_a;
shared_t the_shared;

int from_a(struct shared *s, union value *v)
{
	return s->a + v->i + var_a.x;
}

/* a passes in rdi, not rsi (d takes xmm0): the kernel's policy
 * (consistent_func) leaves it out, if it can read a's location */
__attribute__((noinline)) int mixed_args(double d, int a)
{
	return (int)d + a + var_a.x;
}
