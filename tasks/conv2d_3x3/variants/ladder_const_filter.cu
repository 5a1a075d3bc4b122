// coalesced with the filter in __constant__ memory: all lanes read the same
// weight at once (a broadcast), no shared memory.
__constant__ float filter[9];

__global__ void convConstant(const float *__restrict__ img, float *__restrict__ out, int h, int width) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= h || j >= width)
    return;
  float sum = 0.0f;
#pragma unroll
  for (int a = -1; a <= 1; ++a)
#pragma unroll
    for (int b = -1; b <= 1; ++b)
      if (i + a >= 0 && i + a < h && j + b >= 0 && j + b < width)
        sum += filter[(a + 1) * 3 + b + 1] * img[(long)(i + a) * width + j + b];
  out[(long)i * width + j] = sum;
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  cudaMemcpyToSymbolAsync(filter, w, 9 * sizeof(float), 0, cudaMemcpyDeviceToDevice);
  dim3 block(32, 8), grid((width + 31) / 32, (h + 7) / 8);
  convConstant<<<grid, block>>>(img, out, h, width);
}
