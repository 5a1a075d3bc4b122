// 48 KiB of shared memory per 256-thread block: shared memory limits the
// resident blocks (sm_90: 4 blocks = 0.5; sm_80: 3 blocks = 0.375).
// RUN: %cudaperf-text %s | FileCheck %s --check-prefix=SM90
// RUN: %cudaperf-sdm80-text %s | FileCheck %s --check-prefix=SM80
#include "cuda.h"

__global__ void bigTile(float *x) {
  __shared__ float tile[12288];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[255 - threadIdx.x];
}

void run(float *x) { bigTile<<<1, 256>>>(x); }
// SM90: kernel bigTile
// SM90: occupancy 0.5 on sm_90 (limited by shared_memory)
// SM80: kernel bigTile
// SM80: occupancy 0.375 on sm_80 (limited by shared_memory)
