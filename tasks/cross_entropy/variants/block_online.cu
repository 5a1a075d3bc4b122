// One 128-thread block per row, a single pass: each thread keeps an online
// (max, sum of exp) pair, merged across the block in shared memory.
__device__ void merge(float &m, float &s, float m2, float s2) {
  const float top = fmaxf(m, m2);
  if (top == -INFINITY)
    return;
  s = s * __expf(m - top) + s2 * __expf(m2 - top);
  m = top;
}

__global__ void crossEntropyOnline(const float *__restrict__ logits, const int *__restrict__ labels,
                                   float *__restrict__ loss, int cols) {
  __shared__ float maxes[128], sums[128];
  const float *row = logits + (long)blockIdx.x * cols;
  float m = -INFINITY, s = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    merge(m, s, row[j], 1.0f);
  maxes[threadIdx.x] = m;
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      float mm = maxes[threadIdx.x], ss = sums[threadIdx.x];
      merge(mm, ss, maxes[threadIdx.x + stride], sums[threadIdx.x + stride]);
      maxes[threadIdx.x] = mm;
      sums[threadIdx.x] = ss;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    loss[blockIdx.x] = maxes[0] + logf(sums[0]) - row[labels[blockIdx.x] % cols];
}

extern "C" void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  crossEntropyOnline<<<rows, 128>>>(logits, labels, loss, cols);
}
