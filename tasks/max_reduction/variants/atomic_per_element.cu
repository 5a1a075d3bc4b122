#include <climits>

__global__ void fill(int *out, int value) { *out = value; }

__global__ void maxAtomic(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(out, x[i]);
}

extern "C" void max_reduction(const int *x, int *out, int n) {
  fill<<<1, 1>>>(out, INT_MIN);
  maxAtomic<<<(n + 255) / 256, 256>>>(x, out, n);
}
