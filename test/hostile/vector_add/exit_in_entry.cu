// expect: runtime_error
// exit(0) from the entry: a clean exit status, but no answer from the harness.
#include <cstdlib>

extern "C" void vector_add(const float *, const float *, float *, int) { std::exit(0); }
