// shared_halo with 4 outputs per thread: a block of 256 threads stages 1024
// inputs plus the 3 + 3 halo in shared memory (coalesced, 4 loads per
// thread), then each thread makes the outputs tid, tid + 256, tid + 512 and
// tid + 768 of the block's span.
constexpr int kRadius = 3, kPer = 4;
constexpr int kThreads = 256;

__global__ void stencilShared4(const float *__restrict__ x, float *__restrict__ out, int n) {
  __shared__ float tile[kThreads * kPer + 2 * kRadius];
  const float w[7] = {1.0f / 16, 2.0f / 16, 3.0f / 16, 4.0f / 16, 3.0f / 16, 2.0f / 16, 1.0f / 16};
  const int base = blockIdx.x * kThreads * kPer;
  for (int t = threadIdx.x; t < kThreads * kPer + 2 * kRadius; t += kThreads) {
    const int g = base - kRadius + t;
    tile[t] = g >= 0 && g < n ? x[g] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < kPer; ++q) {
    const int local = threadIdx.x + q * kThreads, i = base + local;
    if (i < n) {
      float sum = 0.0f;
#pragma unroll
      for (int k = 0; k < 7; ++k)
        sum += w[k] * tile[local + k];
      out[i] = sum;
    }
  }
}

extern "C" void stencil_1d(const float *x, float *out, int n) {
  stencilShared4<<<(n + kThreads * kPer - 1) / (kThreads * kPer), kThreads>>>(x, out, n);
}
