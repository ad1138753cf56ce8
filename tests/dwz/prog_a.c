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
