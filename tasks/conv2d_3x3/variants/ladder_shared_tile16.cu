// A 16 x 16 tile plus a one-pixel halo (zeros outside the image) in shared
// memory, 16 x 16 threads; the filter in registers.
#define TILE 16

__global__ void convTile16(const float *__restrict__ img, const float *__restrict__ w, float *__restrict__ out, int h,
                           int width) {
  __shared__ float tile[TILE + 2][TILE + 2];
  float k[9];
#pragma unroll
  for (int t = 0; t < 9; ++t)
    k[t] = w[t];
  for (int t = threadIdx.y * TILE + threadIdx.x; t < (TILE + 2) * (TILE + 2); t += TILE * TILE) {
    int ti = t / (TILE + 2), tj = t % (TILE + 2);
    int gi = static_cast<int>(blockIdx.y) * TILE + ti - 1, gj = static_cast<int>(blockIdx.x) * TILE + tj - 1;
    tile[ti][tj] = gi >= 0 && gi < h && gj >= 0 && gj < width ? img[(long)gi * width + gj] : 0.0f;
  }
  __syncthreads();
  int j = blockIdx.x * TILE + threadIdx.x, i = blockIdx.y * TILE + threadIdx.y;
  if (i >= h || j >= width)
    return;
  float sum = 0.0f;
#pragma unroll
  for (int a = 0; a < 3; ++a)
#pragma unroll
    for (int b = 0; b < 3; ++b)
      sum += k[a * 3 + b] * tile[threadIdx.y + a][threadIdx.x + b];
  out[(long)i * width + j] = sum;
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  dim3 block(TILE, TILE), grid((width + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  convTile16<<<grid, block>>>(img, w, out, h, width);
}
