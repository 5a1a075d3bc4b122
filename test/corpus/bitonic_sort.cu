// Bitonic sort of one block in shared memory, and the global-memory step.
#include <cuda_runtime.h>

__global__ void bitonicSortShared(int *keys) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = keys[blockIdx.x * 1024 + t];
  __syncthreads();
  for (unsigned size = 2; size <= 1024; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      unsigned partner = t ^ stride;
      if (partner > t) {
        bool ascending = (t & size) == 0;
        int a = s[t], b = s[partner];
        if ((a > b) == ascending) {
          s[t] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * 1024 + t] = s[t];
}

__global__ void bitonicStepGlobal(int *keys, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0 ? keys[i] > keys[ixj] : keys[i] < keys[ixj]) {
      int tmp = keys[i];
      keys[i] = keys[ixj];
      keys[ixj] = tmp;
    }
  }
}

void sort(int *keys, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) bitonicStepGlobal<<<n / 512, 512>>>(keys, j, k);
}
