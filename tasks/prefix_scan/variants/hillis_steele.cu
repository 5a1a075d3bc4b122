// Per-block Hillis-Steele (1024 elements, n log n additions) in shared
// memory; the block sums are scanned by a single thread.
constexpr int kBlock = 1024;

__global__ void blockScan(const int *x, int *out, int *sums, int n) {
  __shared__ int buffer[kBlock];
  int i = blockIdx.x * kBlock + threadIdx.x;
  buffer[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int d = 1; d < kBlock; d <<= 1) {
    int add = threadIdx.x >= d ? buffer[threadIdx.x - d] : 0;
    __syncthreads();
    buffer[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n)
    out[i] = buffer[threadIdx.x];
  if (threadIdx.x == kBlock - 1)
    sums[blockIdx.x] = buffer[kBlock - 1];
}

__global__ void scanSumsSerial(int *sums, int count) {
  int running = 0;
  for (int b = 0; b < count; ++b) {
    int v = sums[b];
    sums[b] = running;
    running += v;
  }
}

__global__ void addOffsets(int *out, const int *sums, int n) {
  int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < n && blockIdx.x > 0)
    out[i] += sums[blockIdx.x];
}

extern "C" void prefix_scan(const int *x, int *out, int n) {
  int blocks = (n + kBlock - 1) / kBlock;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  blockScan<<<blocks, kBlock>>>(x, out, sums, n);
  scanSumsSerial<<<1, 1>>>(sums, blocks);
  addOffsets<<<blocks, kBlock>>>(out, sums, n);
  cudaFree(sums);
}
