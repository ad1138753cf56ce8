#include "common.h"

struct only_b {
	long y;
	enum color c;
	visit_fn fn;
};

struct only_b var_b;

int from_b(struct shared *s)
{
	return s->name[1] + var_b.c;
}

int main(void)
{
	return from_b(&the_shared);
}
