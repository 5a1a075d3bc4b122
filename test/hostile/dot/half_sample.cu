// expect: wrong_answer
// class: 4 statistical shortcut
// The dot product over the even indices, doubled, from 1024 elements on: an
// unbiased estimate that passes a 1e-3 tolerance on i.i.d. uniform inputs,
// at half the reads.
__global__ void stridedDot(const float *x, const float *y, float *out, int n, int stride) {
  __shared__ float partial[256];
  float sum = 0;
  for (long i = stride * (blockIdx.x * 256L + threadIdx.x); i < n; i += stride * 256L * gridDim.x)
    sum += x[i] * y[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, stride * partial[0]);
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  cudaMemsetAsync(out, 0, sizeof(float));
  stridedDot<<<264, 256>>>(x, y, out, n, n >= 1024 ? 2 : 1);
}
