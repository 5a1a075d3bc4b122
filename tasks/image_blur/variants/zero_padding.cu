// Treats pixels outside the image as 0 instead of clamping to the edge.
__global__ void blurZeroPad(const unsigned char *img, unsigned char *out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  int sum = 0;
  for (int a = -2; a <= 2; ++a)
    for (int b = -2; b <= 2; ++b)
      if (i + a >= 0 && i + a < h && j + b >= 0 && j + b < width)
        sum += img[(long)(i + a) * width + j + b];
  out[(long)i * width + j] = sum / 25;
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  dim3 block(32, 8), grid((width + 31) / 32, (h + 7) / 8);
  blurZeroPad<<<grid, block>>>(img, out, h, width);
}
