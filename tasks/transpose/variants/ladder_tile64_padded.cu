// 64 x 64 tiles (padded to 65 columns) moved by 32 x 8 threads: each thread
// carries 16 elements, 2 columns by 8 rows, so a block does 4 times the work
// of the 32 x 32 tile for the same number of barriers.
#define TILE 64
#define ROWS 8

__global__ void transposeTile64(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int rowBase = blockIdx.y * TILE, colBase = blockIdx.x * TILE;
#pragma unroll
  for (int h = 0; h < TILE; h += 32)
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      int r = rowBase + threadIdx.y + j, c = colBase + threadIdx.x + h;
      if (r < rows && c < cols)
        tile[threadIdx.y + j][threadIdx.x + h] = in[r * cols + c];
    }
  __syncthreads();
#pragma unroll
  for (int h = 0; h < TILE; h += 32)
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      int r = colBase + threadIdx.y + j, c = rowBase + threadIdx.x + h; // r: row of out, c: column of out
      if (r < cols && c < rows)
        out[r * rows + c] = tile[threadIdx.x + h][threadIdx.y + j];
    }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(32, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTile64<<<grid, block>>>(in, out, rows, cols);
}
