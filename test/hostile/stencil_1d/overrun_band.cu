// expect: wrong_answer
// class: 11 writes beyond the canary band
// The right stencil, then 2000 more elements past the end of out (8 KB):
// beyond a 4 KiB canary band, where a lax harness never looks.
__global__ void stencil(const float *x, float *out, int n) {
  const float w[7] = {1.0f / 16, 2.0f / 16, 3.0f / 16, 4.0f / 16, 3.0f / 16, 2.0f / 16, 1.0f / 16};
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n + 2000)
    return;
  float sum = 0;
  for (int k = -3; k <= 3; ++k)
    if (i + k >= 0 && i + k < n)
      sum += w[k + 3] * x[i + k];
  out[i] = sum; // also for n <= i < n + 2000
}

extern "C" void stencil_1d(const float *x, float *out, int n) {
  stencil<<<(n + 2000 + 255) / 256, 256>>>(x, out, n);
}
