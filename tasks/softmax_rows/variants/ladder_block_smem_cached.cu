// One 256-thread block per row with the row kept in (dynamic) shared memory:
// the input is read from global memory once instead of three times, the
// exponentials are computed once. Rows longer than 12000 floats do not fit
// and take the same kernel reading global memory.
#define THREADS 256

__device__ float warpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ float blockMax(float v, float *slots) {
  v = warpMax(v);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = warpMax(threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : -INFINITY);
  __syncthreads();
  return v;
}

__device__ float blockSum(float v, float *slots) {
  v = warpSum(v);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = warpSum(threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : 0.0f);
  __syncthreads();
  return v;
}

template <bool kCached>
__global__ void softmaxCached(const float *__restrict__ in, float *__restrict__ out, int cols) {
  extern __shared__ float cache[];
  __shared__ float slots[32];
  const float *x = in + (size_t)blockIdx.x * cols;
  float *y = out + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = x[c];
    if (kCached)
      cache[c] = v;
    m = fmaxf(m, v);
  }
  m = blockMax(m, slots);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float e = __expf((kCached ? cache[c] : x[c]) - m);
    if (kCached)
      cache[c] = e;
    sum += e;
  }
  const float inv = 1.0f / blockSum(sum, slots);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[c] = (kCached ? cache[c] : __expf(x[c] - m)) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  if (cols <= 12000)
    softmaxCached<true><<<rows, THREADS, cols * sizeof(float)>>>(in, out, cols);
  else
    softmaxCached<false><<<rows, THREADS>>>(in, out, cols);
}
