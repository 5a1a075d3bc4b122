// Separable: horizontal 5-sums into a 16-bit temporary, then vertical 5-sums
// of those (exact: the sum of 25 bytes fits in 16 bits) and the division.
__global__ void rowSums(const unsigned char *__restrict__ img, unsigned short *__restrict__ sums, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= width)
    return;
  const unsigned char *row = img + (long)i * width;
  int s = 0;
#pragma unroll
  for (int b = -2; b <= 2; ++b)
    s += row[min(max(j + b, 0), width - 1)];
  sums[(long)i * width + j] = s;
}

__global__ void columnSums(const unsigned short *__restrict__ sums, unsigned char *__restrict__ out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= width)
    return;
  int s = 0;
#pragma unroll
  for (int a = -2; a <= 2; ++a)
    s += sums[(long)min(max(i + a, 0), h - 1) * width + j];
  out[(long)i * width + j] = s / 25;
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  unsigned short *sums;
  cudaMalloc(&sums, (size_t)h * width * sizeof(unsigned short));
  dim3 grid((width + 255) / 256, h);
  rowSums<<<grid, 256>>>(img, sums, h, width);
  columnSums<<<grid, 256>>>(sums, out, h, width);
  cudaFree(sums);
}
