// Odd-even transposition sort network, one phase per launch.
#include <cuda_runtime.h>

__global__ void oddEvenPhase(float *a, int n, int phase) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + (phase & 1);
  if (i + 1 < n && a[i] > a[i + 1]) {
    float t = a[i];
    a[i] = a[i + 1];
    a[i + 1] = t;
  }
}

void oddEvenSort(float *d, int n) {
  for (int phase = 0; phase < n; ++phase) {
    oddEvenPhase<<<(n / 2 + 255) / 256, 256>>>(d, n, phase);
    cudaDeviceSynchronize();
  }
}
