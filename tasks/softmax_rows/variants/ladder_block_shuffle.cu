// One 256-thread block per row, three passes (max, sum, write) as in
// block_per_row, but the block reductions are warp shuffles plus one shared
// slot per warp instead of a shared-memory tree.
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

// Every warp reduces the per-warp slots itself, so no broadcast is needed;
// the last barrier lets the next reduction reuse the slots.
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

__global__ void softmaxBlockShuffle(const float *__restrict__ in, float *__restrict__ out, int cols) {
  __shared__ float slots[32];
  const float *x = in + (size_t)blockIdx.x * cols;
  float *y = out + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    m = fmaxf(m, x[c]);
  m = blockMax(m, slots);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    sum += __expf(x[c] - m);
  const float inv = 1.0f / blockSum(sum, slots);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[c] = __expf(x[c] - m) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  softmaxBlockShuffle<<<rows, THREADS>>>(in, out, cols);
}
