// expect: ok
// class: 13 blinding the static analysis
// No preprocessor at all: Clang's overload resolution drops the candidate
// of the wrong side (pick(int) is __device__, the call is in host code) and
// instantiates transposeTile<false>, the shared tile; nvcc's front end picks
// by signature alone, so nvcc builds transposeTile<true>, the uncoalesced
// copy. Found by an adversarial review. The daemon compares the analysed
// kernels with ptxas's entries of the build: the analysed instance was
// never built, so R_str is the floor
// (integration/daemon, test_code_the_build_does_not_have_gets_the_floor).
#define TILE 32
#define ROWS 8
template <bool B> struct Flag { static constexpr bool value = B; };
struct Pick {
  __device__ static Flag<true> pick(int);
  __host__ static Flag<false> pick(long);
};
template <bool Slow>
__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
  if constexpr (Slow) {
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
  transposeTile<decltype(Pick::pick(0))::value><<<grid, block>>>(in, out, rows, cols);
}
