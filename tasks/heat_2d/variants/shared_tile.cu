// 32 x 8 cells per block with a one-cell halo in shared memory.
constexpr int kW = 32, kH = 8;

__global__ void heatTiled(const float *__restrict__ u, float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[kH + 2][kW + 2];
  int j = blockIdx.x * kW + threadIdx.x, i = blockIdx.y * kH + threadIdx.y;
  // Cooperative load of the (kH + 2) x (kW + 2) window, clamped to the grid.
  for (int t = threadIdx.y * kW + threadIdx.x; t < (kH + 2) * (kW + 2); t += kW * kH) {
    int ti = t / (kW + 2), tj = t % (kW + 2);
    int gi = min(max(static_cast<int>(blockIdx.y * kH) + ti - 1, 0), rows - 1);
    int gj = min(max(static_cast<int>(blockIdx.x * kW) + tj - 1, 0), cols - 1);
    tile[ti][tj] = u[(long)gi * cols + gj];
  }
  __syncthreads();
  if (i >= rows || j >= cols)
    return;
  const float c = tile[threadIdx.y + 1][threadIdx.x + 1];
  long at = (long)i * cols + j;
  if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
    out[at] = c;
  else
    out[at] = c + 0.2f * (tile[threadIdx.y][threadIdx.x + 1] + tile[threadIdx.y + 2][threadIdx.x + 1] +
                          tile[threadIdx.y + 1][threadIdx.x] + tile[threadIdx.y + 1][threadIdx.x + 2] - 4.0f * c);
}

extern "C" void heat_2d(const float *u, float *out, int rows, int cols) {
  dim3 block(kW, kH), grid((cols + kW - 1) / kW, (rows + kH - 1) / kH);
  heatTiled<<<grid, block>>>(u, out, rows, cols);
}
