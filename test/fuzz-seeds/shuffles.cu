// Warp-shuffle reduction: shuffles counted, the unrolled loop's pragma too.

__device__ float warpSum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void rowSum(const float *in, float *out) {
  float v = warpSum(in[blockIdx.x * 32 + threadIdx.x]);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}
