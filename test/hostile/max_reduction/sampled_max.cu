// expect: wrong_answer
// class: 4 statistical shortcut
// The maximum of every eighth element: among 33 M uniform draws the largest
// values are dense, so a sample's maximum is close to the true one.
#include <climits>

__global__ void sampledMax(const int *x, int *out, int n, int stride) {
  int best = INT_MIN;
  for (long i = (blockIdx.x * (long)blockDim.x + threadIdx.x) * stride; i < n; i += (long)gridDim.x * blockDim.x * stride)
    best = max(best, x[i]);
  atomicMax(out, best);
}

extern "C" void max_reduction(const int *x, int *out, int n) {
  const int lowest = INT_MIN;
  cudaMemcpy(out, &lowest, sizeof lowest, cudaMemcpyHostToDevice);
  sampledMax<<<512, 256>>>(x, out, n, n > 100000 ? 8 : 1);
}
