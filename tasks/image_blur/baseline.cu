// Plain CUDA: 25 loads per pixel, 16 x 16 blocks.
__global__ void blurKernel(const unsigned char *img, unsigned char *out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  int sum = 0;
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b)
      sum += img[(long)min(max(i + a, 0), h - 1) * width + min(max(j + b, 0), width - 1)];
  out[(long)i * width + j] = sum / 25;
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  dim3 block(16, 16), grid((width + 15) / 16, (h + 15) / 16);
  blurKernel<<<grid, block>>>(img, out, h, width);
}
