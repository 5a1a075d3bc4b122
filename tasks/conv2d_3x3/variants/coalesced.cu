// threadIdx.x walks columns; the nine weights are loaded into registers once.
__global__ void convCoalesced(const float *__restrict__ img, const float *__restrict__ w, float *__restrict__ out, int h,
                              int width) {
  float k[9];
#pragma unroll
  for (int t = 0; t < 9; ++t)
    k[t] = w[t];
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  float sum = 0.0f;
#pragma unroll
  for (int a = -1; a <= 1; ++a)
#pragma unroll
    for (int b = -1; b <= 1; ++b)
      if (i + a >= 0 && i + a < h && j + b >= 0 && j + b < width)
        sum += k[(a + 1) * 3 + b + 1] * img[(long)(i + a) * width + j + b];
  out[(long)i * width + j] = sum;
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  dim3 block(32, 8), grid((width + 31) / 32, (h + 7) / 8);
  convCoalesced<<<grid, block>>>(img, w, out, h, width);
}
