/* C++ fixtures of tests/dwz: types in a namespace that dwz moves to partial
 * units without DW_AT_language; unused_shape only -fno-eliminate-unused-
 * debug-types emits, so the import alone leads to it. */
namespace geo {
struct rect { int w, h; int area() const { return w * h; } };
struct unused_shape { long corners[4]; };
}
int use_a(geo::rect *r);
int use_b(geo::rect *r);
