// All-pairs n-body with tiles of bodies in shared memory.
#include <cuda_runtime.h>

#define TILE 128

__global__ void bodyForces(const float4 *pos, float3 *acc, int n, float softening) {
  __shared__ float4 tile[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int j = t * TILE + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) {
      float dx = tile[k].x - me.x, dy = tile[k].y - me.y, dz = tile[k].z - me.z;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + softening);
      float s = tile[k].w * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

void step(const float4 *pos, float3 *acc, int n) { bodyForces<<<(n + TILE - 1) / TILE, TILE>>>(pos, acc, n, 1e-3f); }
