#include "cxx.h"
int use_a(geo::rect *r) { return r->area(); }
