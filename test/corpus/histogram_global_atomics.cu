// Naive histogram: every element is an atomic on global memory.
#include <cuda_runtime.h>

__global__ void histogramNaive(const int *values, int n, int *bins, int numBins, int maxValue) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int bin = (int)((long long)values[i] * numBins / (maxValue + 1));
    atomicAdd(&bins[bin], 1);
  }
}
