// expect: ok
// class: 13 blinding the static analysis
// One kernel, two bodies, no template and no preprocessor: the size of an
// ext_vector_type of 3 floats is 16 under Clang and 4 under nvcc's front end
// (which ignores the attribute), and an if constexpr on it keeps the shared
// tile for Clang and the uncoalesced copy for nvcc. The kernel's name is the
// same in both, so the daemon compares what the analysis read of its body
// with ptxas's facts of the build: 4224 bytes of static shared memory read,
// none built, so R_str is the floor
// (integration/daemon, test_code_the_build_does_not_have_gets_the_floor).
#define TILE 32
#define ROWS 8

constexpr bool kSlow = sizeof(float __attribute__((ext_vector_type(3)))) == sizeof(float);

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
  if constexpr (kSlow) {
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
      if (r + j < rows && c < cols)
        out[c * rows + r + j] = in[(r + j) * cols + c];
  } else {
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
  }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTile<<<grid, block>>>(in, out, rows, cols);
}
