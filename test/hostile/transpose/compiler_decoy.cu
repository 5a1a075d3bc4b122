// expect: ok
// class: 13 blinding the static analysis
// A correct transpose that shows the static analysis another kernel body
// than the one that runs. Clang defines __clang__ on both of its sides, nvcc on neither: every
// Clang pass reads the padded tile, nvcc builds the uncoalesced kernel. No
// Clang pass reads what nvcc builds, so the daemon gives R_str the floor
// (r_str_unreadable) with a note naming the line
// (integration/daemon, test_a_compiler_decoy_gets_the_floor).
#define TILE 32
#define ROWS 8

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
#ifndef __clang__
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < rows && c < cols)
      out[c * rows + r + j] = in[(r + j) * cols + c];
#else
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < rows && c < cols)
      tile[threadIdx.y + j][threadIdx.x] = in[(r + j) * cols + c];
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x;
  r = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < cols && c < rows)
      out[(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
#endif
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTile<<<grid, block>>>(in, out, rows, cols);
}
