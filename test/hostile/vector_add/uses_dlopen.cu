// expect: rejected
// Loads code at run time (here a library that could do the work on the CPU or call cuBLAS).
#include <dlfcn.h>

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  void *library = dlopen("libcublas.so", RTLD_NOW);
  (void)library;
}
