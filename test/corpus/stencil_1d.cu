// 1-D stencil with a shared-memory halo.
#include <cuda_runtime.h>

#define RADIUS 3
#define BLOCK_SIZE 256

__global__ void stencil1d(const float *in, float *out, int n) {
  __shared__ float temp[BLOCK_SIZE + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = gindex < n ? in[gindex] : 0.0f;
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = gindex >= RADIUS ? in[gindex - RADIUS] : 0.0f;
    temp[lindex + BLOCK_SIZE] = gindex + BLOCK_SIZE < n ? in[gindex + BLOCK_SIZE] : 0.0f;
  }
  __syncthreads();
  float result = 0.0f;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
  if (gindex < n) out[gindex] = result;
}

void run(const float *in, float *out, int n) { stencil1d<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(in, out, n); }
