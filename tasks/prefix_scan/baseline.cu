// Plain CUDA: per-block scans (Hillis-Steele, 256 elements), block sums
// scanned by one thread, offsets added.
__global__ void blockScan(const int *x, int *out, int *sums, int n) {
  __shared__ int buffer[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  buffer[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int d = 1; d < 256; d <<= 1) {
    int add = threadIdx.x >= d ? buffer[threadIdx.x - d] : 0;
    __syncthreads();
    buffer[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n)
    out[i] = buffer[threadIdx.x];
  if (threadIdx.x == 255)
    sums[blockIdx.x] = buffer[255];
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
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    out[i] += sums[blockIdx.x];
}

extern "C" void prefix_scan(const int *x, int *out, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  blockScan<<<blocks, 256>>>(x, out, sums, n);
  scanSums<<<1, 1>>>(sums, blocks);
  addOffsets<<<blocks, 256>>>(out, sums, n);
  cudaFree(sums);
}
