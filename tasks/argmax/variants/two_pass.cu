// Pass 1: each block reduces its strided share to a (value, index) partial.
// Pass 2: one block reduces the partials. Ties go to the smaller index.
__device__ void better(float &v, int &at, float w, int j) {
  if (w > v || (w == v && j < at)) {
    v = w;
    at = j;
  }
}

__device__ void blockReduce(float v, int at, float *outValue, int *outIndex) {
  __shared__ float value[256];
  __shared__ int index[256];
  value[threadIdx.x] = v;
  index[threadIdx.x] = at;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      better(value[threadIdx.x], index[threadIdx.x], value[threadIdx.x + s], index[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *outValue = value[0];
    *outIndex = index[0];
  }
}

__global__ void partials(const float *x, int n, float *values, int *indices) {
  float v = -INFINITY;
  int at = n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    better(v, at, x[i], i);
  blockReduce(v, at, values + blockIdx.x, indices + blockIdx.x);
}

__global__ void finish(const float *values, const int *indices, int count, int *out) {
  float v = -INFINITY;
  int at = 0x7fffffff;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    better(v, at, values[i], indices[i]);
  __shared__ float bestValue;
  blockReduce(v, at, &bestValue, out);
}

extern "C" void argmax(const float *x, int *out, int n) {
  const int blocks = 264;
  float *values;
  int *indices;
  cudaMalloc(&values, blocks * sizeof(float));
  cudaMalloc(&indices, blocks * sizeof(int));
  partials<<<blocks, 256>>>(x, n, values, indices);
  finish<<<1, 256>>>(values, indices, blocks, out);
  cudaFree(values);
  cudaFree(indices);
}
