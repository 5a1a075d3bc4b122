// 16 x 16 shared tile padded to 17 columns, one element per thread (16 x 16
// threads): smaller blocks than the 32 x 8 tiles, half-warp rows.
#define TILE 16

__global__ void transposeTile16(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols)
    tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x; // a row of in = a column of out
  r = blockIdx.x * TILE + threadIdx.y; // a column of in = a row of out
  if (r < cols && c < rows)
    out[r * rows + c] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTile16<<<grid, block>>>(in, out, rows, cols);
}
