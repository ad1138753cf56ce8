// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * C++ as clang 23 writes it (-O2 -g): a namespace, a class with a method
 * and bitfields, template instances, an enum class.  No annotations: clang
 * ignores btf_type_tag and btf_decl_tag in C++ (a warning).  No
 * references: pahole 1.32 refuses DW_TAG_reference_type.
 */

namespace d2b {

enum class color : unsigned char { red, green, blue };

struct flags {
	unsigned int ready : 1;
	unsigned int mode : 3;
	color c : 2;
	unsigned long long stamp : 40;
};

template <typename T> struct box {
	T value;
	box *next;
};

class counter {
public:
	int bump(int by);
	int total;
	flags f;
	box<long> *items;
};

int counter::bump(int by)
{
	total += by;
	return total;
}

} // namespace d2b

d2b::counter g_counter;
d2b::box<int> g_box;

__attribute__((noinline)) int use_ptr(d2b::counter *c, const d2b::box<int> *b)
{
	return c->bump(b->value) + c->f.mode;
}

int entry(void)
{
	return use_ptr(&g_counter, &g_box);
}
