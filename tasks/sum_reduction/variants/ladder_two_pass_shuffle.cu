// Two kernels, no atomics and no memset: 1024 blocks each reduce a
// grid-strided slice (scalar loads, warp shuffles, one shared slot per warp)
// to a partial in global memory; one block of 1024 threads adds the partials.
constexpr int kParts = 1024;

__device__ float sumPartials[kParts];

__device__ float blockSum(float v) {
  __shared__ float slots[32];
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0)
    slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < blockDim.x / 32 ? slots[threadIdx.x % 32] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void sumSlices(const float *__restrict__ x, int n) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += x[i];
  sum = blockSum(sum);
  if (threadIdx.x == 0)
    sumPartials[blockIdx.x] = sum;
}

__global__ void sumOfPartials(float *out) {
  float sum = blockSum(sumPartials[threadIdx.x]);
  if (threadIdx.x == 0)
    *out = sum;
}

extern "C" void sum_reduction(const float *x, float *out, int n) {
  sumSlices<<<kParts, 256>>>(x, n);
  sumOfPartials<<<1, kParts>>>(out);
}
