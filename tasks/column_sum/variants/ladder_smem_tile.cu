// 32 x 32 blocks own 32 columns: thread (ty, tx) sums rows ty, ty + 32, ...
// of column tx (coalesced), the 32 partials of each column meet in a shared
// tile, and warp ty reads column ty of the tile back and adds it with
// shuffles: no atomics, one kernel. The tile is not padded: the column read
// part[tx][ty] is a 32-way bank conflict.
#define TILE 32

__global__ void columnTile(const float *__restrict__ a, float *__restrict__ out, int rows, int cols) {
  __shared__ float part[TILE][TILE];
  const int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  if (col < cols)
    for (int i = threadIdx.y; i < rows; i += TILE)
      sum += a[(long)i * cols + col];
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  float v = part[threadIdx.x][threadIdx.y]; // lane tx: row group tx of column ty
  for (int offset = TILE / 2; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset, TILE);
  const int target = blockIdx.x * TILE + threadIdx.y;
  if (threadIdx.x == 0 && target < cols)
    out[target] = v;
}

extern "C" void column_sum(const float *a, float *out, int rows, int cols) {
  dim3 block(TILE, TILE);
  columnTile<<<(cols + TILE - 1) / TILE, block>>>(a, out, rows, cols);
}
