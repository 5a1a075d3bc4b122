// Register tiling without shared memory: each thread makes 4 vertically
// adjacent outputs from a 6 x 3 window held in registers (18 loads for 4
// pixels instead of 36); 32 x 8 threads cover 32 x 32 pixels.
__global__ void convRows4(const float *__restrict__ img, const float *__restrict__ w, float *__restrict__ out, int h,
                          int width) {
  float k[9];
#pragma unroll
  for (int t = 0; t < 9; ++t)
    k[t] = w[t];
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
  if (j >= width || i0 >= h)
    return;
  float v[6][3];
#pragma unroll
  for (int r = 0; r < 6; ++r)
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const int y = i0 - 1 + r, x = j - 1 + c;
      v[r][c] = y >= 0 && y < h && x >= 0 && x < width ? img[(long)y * width + x] : 0.0f;
    }
#pragma unroll
  for (int o = 0; o < 4; ++o) {
    if (i0 + o >= h)
      break;
    float sum = 0.0f;
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
      for (int b = 0; b < 3; ++b)
        sum += k[a * 3 + b] * v[o + a][b];
    out[(long)(i0 + o) * width + j] = sum;
  }
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  dim3 block(32, 8), grid((width + 31) / 32, (h + 31) / 32);
  convRows4<<<grid, block>>>(img, w, out, h, width);
}
