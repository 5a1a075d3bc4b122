// A host pipeline with transfers in a loop, streams and async copies.
#include <cuda_runtime.h>

__global__ void process(float *chunk, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) chunk[i] = chunk[i] * gain + 1.0f;
}

void pipeline(float *host, int total, int chunkSize) {
  float *device;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMalloc(&device, chunkSize * sizeof(float));
  for (int offset = 0; offset < total; offset += chunkSize) {
    cudaMemcpyAsync(device, host + offset, chunkSize * sizeof(float), cudaMemcpyHostToDevice, stream);
    process<<<(chunkSize + 127) / 128, 128, 0, stream>>>(device, chunkSize, 2.0f);
    cudaMemcpyAsync(host + offset, device, chunkSize * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
  }
  cudaFree(device);
}
