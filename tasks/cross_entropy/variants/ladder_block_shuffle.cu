// One 256-thread block per row, two passes (max, sum of exp) with block
// reductions by warp shuffles and one shared slot per warp.
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

__global__ void crossEntropyBlock(const float *__restrict__ logits, const int *__restrict__ labels,
                                  float *__restrict__ loss, int cols) {
  __shared__ float slots[32];
  const float *row = logits + (long)blockIdx.x * cols;
  const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
  float best = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    best = fmaxf(best, row[j]);
  best = warpMax(best);
  if (lane == 0)
    slots[threadIdx.x / 32] = best;
  __syncthreads();
  best = warpMax(lane < warps ? slots[lane] : -INFINITY);
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    sum += __expf(row[j] - best);
  sum = warpSum(sum);
  if (lane == 0)
    slots[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = warpSum(lane < warps ? slots[lane] : 0.0f);
    if (threadIdx.x == 0)
      loss[blockIdx.x] = best + logf(sum) - row[labels[blockIdx.x] % cols];
  }
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyBlock<<<rows, THREADS>>>(logits, labels, loss, cols);
}
