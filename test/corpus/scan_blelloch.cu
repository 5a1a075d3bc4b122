// Work-efficient (Blelloch) exclusive scan with bank-conflict-free padding.
#include <cuda_runtime.h>

#define LOG_BANKS 5
#define PAD(i) ((i) >> LOG_BANKS)

__global__ void blelloch(float *out, const float *in, int n) {
  extern __shared__ float tmp[];
  int thid = threadIdx.x;
  int ai = thid;
  int bi = thid + n / 2;
  tmp[ai + PAD(ai)] = in[ai];
  tmp[bi + PAD(bi)] = in[bi];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      tmp[b + PAD(b)] += tmp[a + PAD(a)];
    }
    offset *= 2;
  }
  if (thid == 0) tmp[n - 1 + PAD(n - 1)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      float t = tmp[a + PAD(a)];
      tmp[a + PAD(a)] = tmp[b + PAD(b)];
      tmp[b + PAD(b)] += t;
    }
  }
  __syncthreads();
  out[ai] = tmp[ai + PAD(ai)];
  out[bi] = tmp[bi + PAD(bi)];
}
