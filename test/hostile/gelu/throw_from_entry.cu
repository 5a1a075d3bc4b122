// expect: runtime_error
// class: 9 an unscored verdict on purpose
// Throws a C++ exception out of the extern "C" entry: a harness whose
// catch-all turns it into harness_error charges the candidate nothing.
#include <stdexcept>

extern "C" void gelu(const float *, float *, int) { throw std::runtime_error("not today"); }
