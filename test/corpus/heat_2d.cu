// 2-D heat equation, 5-point Jacobi step, host loop swapping buffers.
#include <cuda_runtime.h>

__global__ void heatStep(const float *u, float *uNext, int nx, int ny, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
  int i = y * nx + x;
  uNext[i] = u[i] + alpha * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * u[i]);
}

void simulate(float *host, int nx, int ny, int steps) {
  float *a, *b;
  size_t bytes = (size_t)nx * ny * sizeof(float);
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice);
  dim3 block(32, 8);
  dim3 grid((nx + 31) / 32, (ny + 7) / 8);
  for (int s = 0; s < steps; ++s) {
    heatStep<<<grid, block>>>(a, b, nx, ny, 0.1f);
    float *t = a; a = b; b = t;
  }
  cudaMemcpy(host, a, bytes, cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
}
