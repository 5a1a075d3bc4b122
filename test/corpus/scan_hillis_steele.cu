// Inclusive scan of one block, Hillis-Steele with double buffering.
#include <cuda_runtime.h>

__global__ void scanBlock(const int *in, int *out, int n) {
  extern __shared__ int temp[];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * n + tid] = tid < n ? in[tid] : 0;
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      temp[pout * n + tid] = temp[pin * n + tid] + temp[pin * n + tid - offset];
    else
      temp[pout * n + tid] = temp[pin * n + tid];
    __syncthreads();
  }
  if (tid < n) out[tid] = temp[pout * n + tid];
}

void scan(const int *in, int *out, int n) { scanBlock<<<1, 1024, 2 * 1024 * sizeof(int)>>>(in, out, n); }
