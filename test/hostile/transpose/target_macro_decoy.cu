// expect: ok
// class: 13 blinding the static analysis
// The side decided by a header: NV_IF_ELSE_TARGET (<nv/target>, CUDA's own
// idiom) keeps its first body on the device side and its second on the
// host side, and this file names no side macro at all. nvcc builds the
// uncoalesced copy; the host pass reads a padded shared-memory tile. Every
// analysis also reads the device pass, and the daemon scores the lower side
// (integration/daemon, test_a_side_chosen_by_a_header_scores_as_the_code_that_runs).
#include <nv/target>
#define TILE 32
#define ROWS 8

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (int c = blockIdx.x * TILE + threadIdx.x; int r = blockIdx.y * TILE + threadIdx.y;
                     for (int j = 0; j < TILE; j += ROWS) if (r + j < rows && c < cols)
                         out[c * rows + r + j] = in[(r + j) * cols + c];),
                    (__shared__ float tile[TILE][TILE + 1]; int c = blockIdx.x * TILE + threadIdx.x;
                     int r = blockIdx.y * TILE + threadIdx.y;
                     for (int j = 0; j < TILE; j += ROWS) if (r + j < rows && c < cols)
                         tile[threadIdx.y + j][threadIdx.x] = in[(r + j) * cols + c];
                     __syncthreads(); c = blockIdx.y * TILE + threadIdx.x; r = blockIdx.x * TILE + threadIdx.y;
                     for (int j = 0; j < TILE; j += ROWS) if (r + j < cols && c < rows)
                         out[(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];))
}

extern "C" void transpose(const float *in, float *out, int rows, int cols) {
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transposeTile<<<grid, block>>>(in, out, rows, cols);
}
