// Work-efficient per-block scan (up-sweep, down-sweep) over 1024 elements
// with 512 threads; block sums scanned the same way, level by level.
constexpr int kElements = 1024;

__global__ void blockScan(const int *x, int *out, int *sums, int n) {
  __shared__ int tree[kElements];
  int base = blockIdx.x * kElements, t = threadIdx.x;
  tree[2 * t] = base + 2 * t < n ? x[base + 2 * t] : 0;
  tree[2 * t + 1] = base + 2 * t + 1 < n ? x[base + 2 * t + 1] : 0;
  int offset = 1;
  for (int d = kElements / 2; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d)
      tree[offset * (2 * t + 2) - 1] += tree[offset * (2 * t + 1) - 1];
    offset <<= 1;
  }
  __syncthreads();
  int total = tree[kElements - 1];
  if (t == 0)
    tree[kElements - 1] = 0;
  for (int d = 1; d < kElements; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      int v = tree[left];
      tree[left] = tree[right];
      tree[right] += v;
    }
  }
  __syncthreads();
  // Exclusive in the tree: inclusive = exclusive + own element.
  for (int e = 2 * t; e <= 2 * t + 1; ++e)
    if (base + e < n)
      out[base + e] = tree[e] + x[base + e];
  if (t == 0 && sums)
    sums[blockIdx.x] = total;
}

__global__ void addOffsets(int *out, const int *scannedSums, int n) {
  int i = blockIdx.x * kElements + threadIdx.x;
  if (blockIdx.x > 0)
    for (int e = i; e < min(n, (blockIdx.x + 1) * kElements); e += blockDim.x)
      out[e] += scannedSums[blockIdx.x - 1];
}

// Inclusive scan of `data` in place (count elements), recursively.
static void scanInPlace(int *data, int count) {
  int blocks = (count + kElements - 1) / kElements;
  int *sums = nullptr;
  if (blocks > 1)
    cudaMalloc(&sums, blocks * sizeof(int));
  blockScan<<<blocks, kElements / 2>>>(data, data, sums, count);
  if (blocks > 1) {
    scanInPlace(sums, blocks);
    addOffsets<<<blocks, kElements>>>(data, sums, count);
    cudaFree(sums);
  }
}

extern "C" void prefix_scan(const int *x, int *out, int n) {
  cudaMemcpyAsync(out, x, n * sizeof(int), cudaMemcpyDeviceToDevice);
  scanInPlace(out, n);
}
