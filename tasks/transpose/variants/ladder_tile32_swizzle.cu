// 32 x 32 shared tile without padding: element (r, c) of the tile is stored
// at column c ^ r (XOR swizzle), so both the row-wise writes and the
// column-wise reads hit 32 different banks.
#define TILE 32
#define ROWS 8

__global__ void transposeSwizzle(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int ty = threadIdx.y + j;
    if (r + j < rows && c < cols)
      tile[ty][threadIdx.x ^ ty] = in[(r + j) * cols + c];
  }
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x;
  r = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int ty = threadIdx.y + j;
    if (r + j < cols && c < rows)
      out[(r + j) * rows + c] = tile[threadIdx.x][ty ^ threadIdx.x];
  }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeSwizzle<<<grid, block>>>(in, out, rows, cols);
}
