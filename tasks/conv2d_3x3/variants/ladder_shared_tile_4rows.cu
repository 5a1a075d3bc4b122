// shared_tile grown to 32 x 32 output pixels per block: the 34 x 34 input
// tile (halo included) is loaded once by 32 x 8 threads, and each thread
// makes 4 outputs (rows ty, ty + 8, ty + 16, ty + 24); the filter in
// registers.
constexpr int kW = 32, kH = 32, kRows = 8;

__global__ void convTile4(const float *__restrict__ img, const float *__restrict__ w, float *__restrict__ out, int h,
                          int width) {
  __shared__ float tile[kH + 2][kW + 2];
  float k[9];
#pragma unroll
  for (int t = 0; t < 9; ++t)
    k[t] = w[t];
  for (int t = threadIdx.y * kW + threadIdx.x; t < (kH + 2) * (kW + 2); t += kW * kRows) {
    int ti = t / (kW + 2), tj = t % (kW + 2);
    int gi = static_cast<int>(blockIdx.y) * kH + ti - 1, gj = static_cast<int>(blockIdx.x) * kW + tj - 1;
    tile[ti][tj] = gi >= 0 && gi < h && gj >= 0 && gj < width ? img[(long)gi * width + gj] : 0.0f;
  }
  __syncthreads();
  const int j = blockIdx.x * kW + threadIdx.x;
  if (j >= width)
    return;
#pragma unroll
  for (int q = 0; q < kH / kRows; ++q) {
    const int r = threadIdx.y + kRows * q, i = blockIdx.y * kH + r;
    if (i >= h)
      break;
    float sum = 0.0f;
#pragma unroll
    for (int a = 0; a < 3; ++a)
#pragma unroll
      for (int b = 0; b < 3; ++b)
        sum += k[a * 3 + b] * tile[r + a][threadIdx.x + b];
    out[(long)i * width + j] = sum;
  }
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  dim3 block(kW, kRows), grid((width + kW - 1) / kW, (h + kH - 1) / kH);
  convTile4<<<grid, block>>>(img, w, out, h, width);
}
