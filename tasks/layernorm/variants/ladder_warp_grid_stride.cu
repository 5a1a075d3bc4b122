// One warp per row over a fixed grid (264 blocks of 8 warps): each warp
// takes rows with a grid stride; two passes of shuffle reductions.
__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernormWarpStride(const float *__restrict__ x, const float *__restrict__ gamma,
                                    const float *__restrict__ beta, float *__restrict__ out, int rows, int cols) {
  const int lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows; r += warps) {
    const float *row = x + (long)r * cols;
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32)
      s += row[j];
    const float mean = warpSum(s) / cols;
    float q = 0.0f;
    for (int j = lane; j < cols; j += 32)
      q += (row[j] - mean) * (row[j] - mean);
    const float inv = rsqrtf(warpSum(q) / cols + 1e-5f);
    for (int j = lane; j < cols; j += 32)
      out[(long)r * cols + j] = (row[j] - mean) * inv * gamma[j] + beta[j];
  }
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  layernormWarpStride<<<264, 256>>>(x, gamma, beta, out, rows, cols);
}
