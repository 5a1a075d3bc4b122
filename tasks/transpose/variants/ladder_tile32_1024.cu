// 32 x 33 shared tile with one thread per element (32 x 32 = 1024 threads):
// no loop over rows, but the largest block and fewer resident blocks.
#define TILE 32

__global__ void transposeTileFull(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols)
    tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x;
  r = blockIdx.x * TILE + threadIdx.y;
  if (r < cols && c < rows)
    out[r * rows + c] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTileFull<<<grid, block>>>(in, out, rows, cols);
}
