// Row softmax: one block per row, max and sum reductions in shared memory.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void softmaxRows(const float *input, float *output, int cols) {
  extern __shared__ float scratch[];
  const float *in = input + blockIdx.x * cols;
  float *out = output + blockIdx.x * cols;
  float localMax = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) localMax = fmaxf(localMax, in[c]);
  scratch[threadIdx.x] = localMax;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    __syncthreads();
  }
  float rowMax = scratch[0];
  __syncthreads();
  float localSum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) localSum += __expf(in[c] - rowMax);
  scratch[threadIdx.x] = localSum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  float inv = 1.0f / scratch[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __expf(in[c] - rowMax) * inv;
}

void softmax(const float *in, float *out, int rows, int cols) {
  softmaxRows<<<rows, 256, 256 * sizeof(float)>>>(in, out, cols);
}
