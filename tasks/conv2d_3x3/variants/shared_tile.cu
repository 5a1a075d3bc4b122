// A 32 x 8 tile plus a one-pixel halo (zeros outside the image) in shared
// memory; the filter in __constant__ memory (a broadcast to the warp).
constexpr int kW = 32, kH = 8;
__constant__ float filter[9];

__global__ void convTiled(const float *__restrict__ img, float *__restrict__ out, int h, int width) {
  __shared__ float tile[kH + 2][kW + 2];
  for (int t = threadIdx.y * kW + threadIdx.x; t < (kH + 2) * (kW + 2); t += kW * kH) {
    int ti = t / (kW + 2), tj = t % (kW + 2);
    int gi = static_cast<int>(blockIdx.y * kH) + ti - 1, gj = static_cast<int>(blockIdx.x * kW) + tj - 1;
    tile[ti][tj] = gi >= 0 && gi < h && gj >= 0 && gj < width ? img[(long)gi * width + gj] : 0.0f;
  }
  __syncthreads();
  int j = blockIdx.x * kW + threadIdx.x, i = blockIdx.y * kH + threadIdx.y;
  if (i >= h || j >= width)
    return;
  float sum = 0.0f;
#pragma unroll
  for (int a = 0; a < 3; ++a)
#pragma unroll
    for (int b = 0; b < 3; ++b)
      sum += filter[a * 3 + b] * tile[threadIdx.y + a][threadIdx.x + b];
  out[(long)i * width + j] = sum;
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  cudaMemcpyToSymbolAsync(filter, w, 9 * sizeof(float), 0, cudaMemcpyDeviceToDevice);
  dim3 block(kW, kH), grid((width + kW - 1) / kW, (h + kH - 1) / kH);
  convTiled<<<grid, block>>>(img, out, h, width);
}
