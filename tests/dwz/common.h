/* Types the three programs of tests/dwz share, so that dwz moves them into
 * partial units (and, with -m, into the supplementary file). */
enum color { RED, GREEN = 5, BLUE };

struct list {
	struct list *next, *prev;
};

struct shared {
	int a;
	char name[4];
	struct list node;
	enum color c;
	const volatile unsigned long *p;
	unsigned int flag : 3, mode : 5;
};

union value {
	int i;
	float f;
	struct shared *sp;
};

typedef struct shared shared_t;
typedef int (*visit_fn)(struct shared *, void *);

/* Used by no code: only -fno-eliminate-unused-debug-types emits it, so
 * after dwz nothing but the import of its partial unit leads to it. */
struct only_declared {
	long x;
	union value v[2];
	visit_fn fn;
};

extern shared_t the_shared;
int from_a(struct shared *s, union value *v);
int from_b(struct shared *s);
int from_c(struct list *l);
