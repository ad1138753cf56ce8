#include "cxx.h"
int use_b(geo::rect *r) { return r->w; }
