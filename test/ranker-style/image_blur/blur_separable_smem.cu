// Separable blur inside one kernel: the block's (BH + 4) x (BW + 4) input
// window (clamped) goes to shared memory, the horizontal 5-sums of every
// window row go to a second shared array, and each thread adds 5 of those
// vertically. Tile shape as template parameters (32 x 16).
template <int BW, int BH>
__global__ void blur_separable(const unsigned char *__restrict__ img, unsigned char *__restrict__ out, int h,
                               int width) {
  __shared__ unsigned char win[BH + 4][BW + 4];
  __shared__ int hsum[BH + 4][BW];
  const int tid = threadIdx.y * BW + threadIdx.x;
  const int r0 = static_cast<int>(blockIdx.y) * BH - 2, c0 = static_cast<int>(blockIdx.x) * BW - 2;
  for (int t = tid; t < (BH + 4) * (BW + 4); t += BW * BH) {
    const int r = t / (BW + 4), c = t % (BW + 4);
    const int gr = min(max(r0 + r, 0), h - 1), gc = min(max(c0 + c, 0), width - 1);
    win[r][c] = img[(long)gr * width + gc];
  }
  __syncthreads();
  for (int t = tid; t < (BH + 4) * BW; t += BW * BH) {
    const int r = t / BW, c = t % BW;
    hsum[r][c] = win[r][c] + win[r][c + 1] + win[r][c + 2] + win[r][c + 3] + win[r][c + 4];
  }
  __syncthreads();
  const int i = blockIdx.y * BH + threadIdx.y, j = blockIdx.x * BW + threadIdx.x;
  if (i < h && j < width) {
    const int s = hsum[threadIdx.y][threadIdx.x] + hsum[threadIdx.y + 1][threadIdx.x] +
                  hsum[threadIdx.y + 2][threadIdx.x] + hsum[threadIdx.y + 3][threadIdx.x] +
                  hsum[threadIdx.y + 4][threadIdx.x];
    out[(long)i * width + j] = s / 25;
  }
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  constexpr int BW = 32, BH = 16;
  dim3 grid((width + BW - 1) / BW, (h + BH - 1) / BH);
  blur_separable<BW, BH><<<grid, dim3(BW, BH)>>>(img, out, h, width);
}
