// expect: runtime_error
// Aborts the process (SIGABRT) from the entry.
#include <cstdlib>

extern "C" void vector_add(const float *, const float *, float *, int) { std::abort(); }
