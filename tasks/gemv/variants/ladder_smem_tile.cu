// Thread-per-row made coalesced through shared memory: a block of 32 x 8
// threads owns 32 rows and walks the columns in 32 x 32 tiles, loaded row by
// row (coalesced); thread (ty, tx) then multiplies row tx of the tile by x.
// The tile is not padded: the column-wise reads tile[tx][c] are 32-way bank
// conflicts.
#define TILE 32
#define ROWS 8

__global__ void gemvTile(const float *A, const float *x, float *y, int rows, int cols) {
  __shared__ float tile[TILE][TILE];
  __shared__ float xs[TILE];
  __shared__ float part[ROWS][TILE];
  const int rowBase = blockIdx.x * TILE;
  float sum = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += TILE) {
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
      int row = rowBase + r, col = c0 + threadIdx.x;
      tile[r][threadIdx.x] = row < rows && col < cols ? A[(long)row * cols + col] : 0.0f;
    }
    if (threadIdx.y == 0)
      xs[threadIdx.x] = c0 + threadIdx.x < cols ? x[c0 + threadIdx.x] : 0.0f;
    __syncthreads();
    for (int c = threadIdx.y; c < TILE; c += ROWS)
      sum += tile[threadIdx.x][c] * xs[c];
    __syncthreads();
  }
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0) {
    float total = 0.0f;
    for (int w = 0; w < ROWS; ++w)
      total += part[w][threadIdx.x];
    if (rowBase + threadIdx.x < rows)
      y[rowBase + threadIdx.x] = total;
  }
}

extern "C" void gemv(const float *A, const float *x, float *y, int rows, int cols) {
  dim3 block(TILE, ROWS);
  gemvTile<<<(rows + TILE - 1) / TILE, block>>>(A, x, y, rows, cols);
}
