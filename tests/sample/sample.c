/* The quick-start sample: a little of everything BTF can say.
 * Rebuild with: gcc -g -O2 -c sample.c -o sample.o */
#include <stddef.h>

typedef unsigned int u32;

enum color { RED, GREEN = 5, BLUE = -1 };

struct list_head {
	struct list_head *next, *prev;
};

struct packet {
	u32 len;
	unsigned int proto : 4, flags : 12;
	enum color color;
	struct list_head node;
	const char *name;
	unsigned char payload[];
};

union value {
	long l;
	double d;
	void *p;
};

struct opaque;

int counter = 1;
static struct packet *last;
union value values[4][2];
struct opaque *handle;

int packet_sum(const struct packet *p, int (*filter)(const struct packet *))
{
	int s = 0;

	for (u32 i = 0; i < p->len; i++)
		s += filter && filter(p) ? p->payload[i] : 0;
	last = (struct packet *)p;
	return s + counter;
}
