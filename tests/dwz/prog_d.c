/* In p1 only: what dwz -m leaves in p1 itself, so that p1 converts to
 * something without its supplementary file (--allow-missing-debug). */
struct only_in_p1 {
	int zeta;
	char tag[6];
};

struct only_in_p1 var_d;
