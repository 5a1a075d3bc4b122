// Warp-shuffle scans: each 1024-thread block scans its 1024 elements with
// __shfl_up_sync inside warps and once more over the 32 warp totals; the
// block totals are scanned by one block with the same code, carrying a
// running offset across chunks.
__device__ int blockInclusiveScan(int v) {
  __shared__ int warpTotals[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d)
      v += up;
  }
  if (lane == 31)
    warpTotals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = warpTotals[lane];
    for (int d = 1; d < 32; d <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, t, d);
      if (lane >= d)
        t += up;
    }
    warpTotals[lane] = t;
  }
  __syncthreads();
  int result = v + (warp > 0 ? warpTotals[warp - 1] : 0);
  __syncthreads(); // warpTotals is reused by the next call
  return result;
}

__global__ void blockScan(const int *__restrict__ x, int *__restrict__ out, int *sums, int n) {
  int i = blockIdx.x * 1024 + threadIdx.x;
  int v = blockInclusiveScan(i < n ? x[i] : 0);
  if (i < n)
    out[i] = v;
  if (threadIdx.x == 1023)
    sums[blockIdx.x] = v;
}

__global__ void scanSums(int *sums, int count) {
  int carry = 0;
  for (int base = 0; base < count; base += 1024) {
    int i = base + threadIdx.x;
    int v = blockInclusiveScan(i < count ? sums[i] : 0);
    if (i < count)
      sums[i] = v + carry;
    __shared__ int chunkTotal;
    if (threadIdx.x == 1023)
      chunkTotal = v;
    __syncthreads();
    carry += chunkTotal;
    __syncthreads();
  }
}

__global__ void addOffsets(int *out, const int *sums, int n) {
  int i = blockIdx.x * 1024 + threadIdx.x;
  if (i < n && blockIdx.x > 0)
    out[i] += sums[blockIdx.x - 1];
}

extern "C" void prefix_scan(const int *x, int *out, int n) {
  int blocks = (n + 1023) / 1024;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  blockScan<<<blocks, 1024>>>(x, out, sums, n);
  scanSums<<<1, 1024>>>(sums, blocks);
  addOffsets<<<blocks, 1024>>>(out, sums, n);
  cudaFree(sums);
}
