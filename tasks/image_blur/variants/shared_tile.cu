// A 32 x 8 tile plus a 2-pixel halo (clamped to the image) in shared memory.
constexpr int kW = 32, kH = 8, kR = 2;

__global__ void blurTiled(const unsigned char *__restrict__ img, unsigned char *__restrict__ out, int h, int width) {
  __shared__ unsigned char tile[kH + 2 * kR][kW + 2 * kR];
  for (int t = threadIdx.y * kW + threadIdx.x; t < (kH + 2 * kR) * (kW + 2 * kR); t += kW * kH) {
    int ti = t / (kW + 2 * kR), tj = t % (kW + 2 * kR);
    int gi = min(max(static_cast<int>(blockIdx.y * kH) + ti - kR, 0), h - 1);
    int gj = min(max(static_cast<int>(blockIdx.x * kW) + tj - kR, 0), width - 1);
    tile[ti][tj] = img[(long)gi * width + gj];
  }
  __syncthreads();
  int j = blockIdx.x * kW + threadIdx.x, i = blockIdx.y * kH + threadIdx.y;
  if (i >= h || j >= width)
    return;
  int sum = 0;
#pragma unroll
  for (int a = 0; a < 5; ++a)
#pragma unroll
    for (int b = 0; b < 5; ++b)
      sum += tile[threadIdx.y + a][threadIdx.x + b];
  out[(long)i * width + j] = sum / 25;
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  dim3 block(kW, kH), grid((width + kW - 1) / kW, (h + kH - 1) / kH);
  blurTiled<<<grid, block>>>(img, out, h, width);
}
