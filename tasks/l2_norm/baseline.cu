// Plain CUDA: a grid-stride sum of squares in double per thread, a tree per
// block, one partial per block, then one block adds the partials and takes
// the root. Accurate at the benchmark size (a float atomic per element loses
// the small squares once the sum passes 2^24): it is the timed calls' oracle.
#define BLOCKS 1024
#define THREADS 256

__device__ double l2Partials[BLOCKS];

__global__ void partialSquares(const float *x, int n) {
  __shared__ double partial[THREADS];
  double sum = 0;
  for (long i = blockIdx.x * (long)THREADS + threadIdx.x; i < n; i += (long)BLOCKS * THREADS)
    sum += (double)x[i] * x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    l2Partials[blockIdx.x] = partial[0];
}

__global__ void rootOfPartials(float *out) {
  __shared__ double partial[THREADS];
  double sum = 0;
  for (int b = threadIdx.x; b < BLOCKS; b += THREADS)
    sum += l2Partials[b];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = (float)sqrt(partial[0]);
}

extern "C" void l2_norm(const float *x, float *out, int n) {
  partialSquares<<<BLOCKS, THREADS>>>(x, n);
  rootOfPartials<<<1, THREADS>>>(out);
}
