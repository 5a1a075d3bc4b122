__global__ void blurNaive(const unsigned char *img, unsigned char *out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  int sum = 0;
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b) {
      int y = min(max(i + a, 0), h - 1), x = min(max(j + b, 0), width - 1);
      sum += img[(long)y * width + x];
    }
  out[(long)i * width + j] = sum / 25;
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  dim3 block(32, 8), grid((width + 31) / 32, (h + 7) / 8);
  blurNaive<<<grid, block>>>(img, out, h, width);
}
