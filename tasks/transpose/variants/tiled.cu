#define TILE 32
#define ROWS 8

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 0];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < rows && c < cols)
      tile[threadIdx.y + j][threadIdx.x] = in[(r + j) * cols + c];
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x; // now indexes rows of in = columns of out
  r = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < cols && c < rows)
      out[(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTile<<<grid, block>>>(in, out, rows, cols);
}
