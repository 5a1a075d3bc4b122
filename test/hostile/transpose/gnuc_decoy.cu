// expect: ok
// class: 13 blinding the static analysis
// A compiler's version as the switch: nvcc preprocesses the device side
// with gcc (__GNUC__ 12 here), Clang reports gcc 4.2 compatibility
// (__GNUC__ 4), so every Clang pass reads the padded tile and nvcc builds
// the uncoalesced copy, with no name of Clang's or nvcc's in the file. A
// reserved name tested by the file is a compiler branch: the daemon gives
// R_str the floor (integration/daemon, test_a_compiler_decoy_gets_the_floor).
#define TILE 32
#define ROWS 8

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
#if __GNUC__ >= 5
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
