// Plain CUDA: a grid-stride scan per thread, a shared-memory tree per block
// (the larger value wins, the lower index on ties), one (value, index) per
// block, then one block reduces the partials the same way.
#include <cmath>

#define BLOCKS 1024
#define THREADS 256

__device__ float argmaxValues[BLOCKS];
__device__ int argmaxIndices[BLOCKS];

__device__ void keepBetter(float &v, int &at, float w, int j) {
  if (w > v || (w == v && j < at)) {
    v = w;
    at = j;
  }
}

__device__ void treeReduce(float *value, int *index) {
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      keepBetter(value[threadIdx.x], index[threadIdx.x], value[threadIdx.x + s], index[threadIdx.x + s]);
    __syncthreads();
  }
}

__global__ void argmaxPartials(const float *x, int n) {
  __shared__ float value[THREADS];
  __shared__ int index[THREADS];
  float v = -INFINITY;
  int at = n;
  for (long i = blockIdx.x * (long)THREADS + threadIdx.x; i < n; i += (long)BLOCKS * THREADS)
    keepBetter(v, at, x[i], (int)i);
  value[threadIdx.x] = v;
  index[threadIdx.x] = at;
  __syncthreads();
  treeReduce(value, index);
  if (threadIdx.x == 0) {
    argmaxValues[blockIdx.x] = value[0];
    argmaxIndices[blockIdx.x] = index[0];
  }
}

__global__ void argmaxOfPartials(int *out, int n) {
  __shared__ float value[THREADS];
  __shared__ int index[THREADS];
  float v = -INFINITY;
  int at = n;
  for (int b = threadIdx.x; b < BLOCKS; b += THREADS)
    keepBetter(v, at, argmaxValues[b], argmaxIndices[b]);
  value[threadIdx.x] = v;
  index[threadIdx.x] = at;
  __syncthreads();
  treeReduce(value, index);
  if (threadIdx.x == 0)
    *out = index[0];
}

extern "C" void argmax(const float *x, int *out, int n) {
  argmaxPartials<<<BLOCKS, THREADS>>>(x, n);
  argmaxOfPartials<<<1, THREADS>>>(out, n);
}
