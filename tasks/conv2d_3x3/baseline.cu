// Plain CUDA: one thread per pixel, 16 x 16 blocks, x over columns.
__global__ void convKernel(const float *img, const float *w, float *out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  float sum = 0.0f;
  for (int a = -1; a <= 1; ++a)
    for (int b = -1; b <= 1; ++b)
      if (i + a >= 0 && i + a < h && j + b >= 0 && j + b < width)
        sum += w[(a + 1) * 3 + b + 1] * img[(long)(i + a) * width + j + b];
  out[(long)i * width + j] = sum;
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  dim3 block(16, 16), grid((width + 15) / 16, (h + 15) / 16);
  convKernel<<<grid, block>>>(img, w, out, h, width);
}
