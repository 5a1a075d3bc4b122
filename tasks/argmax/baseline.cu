// Plain CUDA: one block of 256 threads, a shared-memory tree.
__global__ void argmaxBlock(const float *x, int *out, int n) {
  __shared__ float value[256];
  __shared__ int index[256];
  float v = -INFINITY;
  int at = n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (x[i] > v) {
      v = x[i];
      at = i;
    }
  value[threadIdx.x] = v;
  index[threadIdx.x] = at;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      float w = value[threadIdx.x + s];
      int j = index[threadIdx.x + s];
      if (w > value[threadIdx.x] || (w == value[threadIdx.x] && j < index[threadIdx.x])) {
        value[threadIdx.x] = w;
        index[threadIdx.x] = j;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = index[0];
}

extern "C" void argmax(const float *x, int *out, int n) { argmaxBlock<<<1, 256>>>(x, out, n); }
