#define THREADS 256

__global__ void softmaxBlockRow(const float *in, float *out, int cols) {
  __shared__ float scratch[THREADS];
  const float *x = in + (size_t)blockIdx.x * cols;
  float *y = out + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += THREADS)
    m = fmaxf(m, x[c]);
  scratch[threadIdx.x] = m;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    __syncthreads();
  }
  m = scratch[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += THREADS)
    sum += __expf(x[c] - m);
  scratch[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / scratch[0];
  for (int c = threadIdx.x; c < cols; c += THREADS)
    y[c] = __expf(x[c] - m) * inv;
}

extern "C" void softmax_rows(const float *in, float *out, int rows, int cols) {
  softmaxBlockRow<<<rows, THREADS>>>(in, out, cols);
}
