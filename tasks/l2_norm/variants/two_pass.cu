// Two passes, no atomics: float4 grid-stride loads with a float sum per
// thread (about 128 elements each), a shared-memory tree per block, one
// partial per block; a second one-block kernel adds the partials in double.
#define BLOCKS 1024
#define THREADS 256

__device__ float l2_normPartials[BLOCKS];

__device__ float blockSum(float v) {
  __shared__ float partial[THREADS];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  return partial[0];
}

__global__ void partials(const float *x, int n) {
  const long tid = blockIdx.x * (long)THREADS + threadIdx.x, stride = (long)BLOCKS * THREADS;
  float sum = 0;
  for (long q = tid; q < n / 4; q += stride) {
    const float4 v = reinterpret_cast<const float4 *>(x)[q];
    sum += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
  }
  for (long i = (n / 4) * 4 + tid; i < n; i += stride) {
    sum += x[i] * x[i];
  }
  const float total = blockSum(sum);
  if (threadIdx.x == 0)
    l2_normPartials[blockIdx.x] = total;
}

__global__ void finish(float *out) {
  __shared__ double partial[THREADS];
  double sum = 0;
  for (int b = threadIdx.x; b < BLOCKS; b += THREADS)
    sum += l2_normPartials[b];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = (float)(sqrt(partial[0]));
}

extern "C" void l2_norm(const float *x, float *out, int n) {
  partials<<<BLOCKS, THREADS>>>(x, n);
  finish<<<1, THREADS>>>(out);
}
