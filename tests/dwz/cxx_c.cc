#include "cxx.h"
struct c_only { int q; } cq;
