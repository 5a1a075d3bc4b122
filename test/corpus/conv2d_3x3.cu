// 3x3 convolution with the filter in constant memory and a shared tile.
#include <cuda_runtime.h>

#define TILE_W 16
#define TILE_H 16
__constant__ float filter[3][3];

__global__ void conv3x3(const float *img, float *out, int width, int height) {
  __shared__ float tile[TILE_H + 2][TILE_W + 2];
  int x = blockIdx.x * TILE_W + threadIdx.x;
  int y = blockIdx.y * TILE_H + threadIdx.y;
  for (int dy = threadIdx.y; dy < TILE_H + 2; dy += TILE_H)
    for (int dx = threadIdx.x; dx < TILE_W + 2; dx += TILE_W) {
      int gx = min(max(blockIdx.x * TILE_W + dx - 1, 0), width - 1);
      int gy = min(max(blockIdx.y * TILE_H + dy - 1, 0), height - 1);
      tile[dy][dx] = img[gy * width + gx];
    }
  __syncthreads();
  if (x < width && y < height) {
    float acc = 0.0f;
    for (int fy = 0; fy < 3; ++fy)
      for (int fx = 0; fx < 3; ++fx) acc += filter[fy][fx] * tile[threadIdx.y + fy][threadIdx.x + fx];
    out[y * width + x] = acc;
  }
}
