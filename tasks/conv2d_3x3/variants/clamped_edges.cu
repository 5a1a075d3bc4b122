// Clamps coordinates to the image (edge replication) instead of zero padding.
__global__ void convClamped(const float *img, const float *w, float *out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  float sum = 0.0f;
  for (int a = -1; a <= 1; ++a)
    for (int b = -1; b <= 1; ++b) {
      int y = min(max(i + a, 0), h - 1), x = min(max(j + b, 0), width - 1);
      sum += w[(a + 1) * 3 + b + 1] * img[(long)y * width + x];
    }
  out[(long)i * width + j] = sum;
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  dim3 block(32, 8), grid((width + 31) / 32, (h + 7) / 8);
  convClamped<<<grid, block>>>(img, w, out, h, width);
}
