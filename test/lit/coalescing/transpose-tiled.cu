// Shared-memory tiled transpose: both global accesses are coalesced; the
// padded tile has no bank conflict on the transposed read.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"
#define TILE 32

__global__ void transposeTiled(const float *in, float *out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < width && y < height)
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < height && y < width)
    out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
// CHECK: kernel transposeTiled
// CHECK-NEXT: coal=1
// CHECK: shared: 4224 B static, worst bank conflict 1-way
// CHECK: global load in[y * width + x] stride 1 score 1
// CHECK: shared store tile[threadIdx.y][threadIdx.x] stride 1 bank 1-way
// CHECK: shared load tile[threadIdx.x][threadIdx.y] stride 33 bank 1-way
// CHECK: global store out[y * height + x] stride 1 score 1
// CHECK: sync __syncthreads
