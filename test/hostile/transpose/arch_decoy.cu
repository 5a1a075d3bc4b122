// expect: ok
// class: 13 blinding the static analysis
// A correct transpose that shows the static analysis another kernel body
// than the one that runs. The analysis parses the host side, where __CUDA_ARCH__ is undefined, and
// nvcc builds the device side, where it is defined: the kernel that runs is
// the uncoalesced one in the #ifdef, the one the host pass reads is a padded
// shared-memory tile. The analysis reads the file a second time as Clang's
// device pass and the daemon scores the lower of the two sides
// (integration/daemon, test_an_arch_decoy_scores_as_the_code_that_runs).
#define TILE 32
#define ROWS 8

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
#ifdef __CUDA_ARCH__
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
