// expect: ok
// class: 13 blinding the static analysis
// Code only Clang reads (nvcc does not define __clang__): a Clang 19 crasher
// (llvm-project issue 150738) kills the analysis of the whole file, so there
// is no structure to score, beside a correct naive kernel. The judge runs the
// kernel and answers ok. The daemon gives R_str the floor
// (r_str_unreadable), below every score a readable kernel gets, never the 0
// of "as good as the task's baseline" (integration/daemon,
// test_a_source_only_clang_cannot_read_gets_the_floor).
#ifdef __clang__
template <class T> void foo(T x) {
  [](T = x) {}();
};
void trigger() { foo(0); }
#endif

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
