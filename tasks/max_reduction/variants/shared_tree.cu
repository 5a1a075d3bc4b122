#include <climits>

__global__ void fill(int *out, int value) { *out = value; }

__global__ void maxTree(const int *x, int *out, int n) {
  __shared__ int best[256];
  int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  int v = INT_MIN;
  if (i < n)
    v = x[i];
  if (i + blockDim.x < n)
    v = max(v, x[i + blockDim.x]);
  best[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      best[threadIdx.x] = max(best[threadIdx.x], best[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicMax(out, best[0]);
}

extern "C" void max_reduction(const int *x, int *out, int n) {
  fill<<<1, 1>>>(out, INT_MIN);
  maxTree<<<(n + 511) / 512, 256>>>(x, out, n);
}
