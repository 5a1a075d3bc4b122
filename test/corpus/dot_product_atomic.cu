// Dot product with a per-thread loop and one atomic per warp.
#include <cuda_runtime.h>

__global__ void dot(const double *a, const double *b, double *result, int n) {
  double sum = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += a[i] * b[i];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffff, sum, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, sum);
}
