// One block of 1024 threads strides over the whole input.
__global__ void argmaxSingle(const float *x, int *out, int n) {
  __shared__ float value[1024];
  __shared__ int index[1024];
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

extern "C" void argmax(const float *x, int *out, int n) { argmaxSingle<<<1, 1024>>>(x, out, n); }
