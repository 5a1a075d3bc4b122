// Histogram with global atomics versus privatised shared-memory bins, and a
// host loop that copies the result back on every iteration.
#include <cuda_runtime.h>

__global__ void histGlobal(const unsigned char *data, int n, unsigned *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

__global__ void histShared(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

void histogramFrames(const unsigned char *frames, int frameSize, int count, unsigned *hostBins, unsigned *bins) {
  for (int f = 0; f < count; ++f) {
    histShared<<<64, 256>>>(frames + (size_t)f * frameSize, frameSize, bins);
    cudaMemcpy(hostBins + f * 256, bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  }
  histGlobal<<<(frameSize + 255) / 256, 256>>>(frames, frameSize, bins);
}
