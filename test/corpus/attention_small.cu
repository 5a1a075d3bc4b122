// Small attention: one block per (query row), scores in shared memory.
#include <cuda_runtime.h>

template <int HEAD_DIM>
__global__ void attentionRow(const float *Q, const float *K, const float *V, float *O, int seqLen, float scale) {
  extern __shared__ float scores[];
  const float *q = Q + blockIdx.x * HEAD_DIM;
  float localMax = -1e30f;
  for (int j = threadIdx.x; j < seqLen; j += blockDim.x) {
    float s = 0.0f;
#pragma unroll
    for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * K[j * HEAD_DIM + d];
    scores[j] = s * scale;
    localMax = fmaxf(localMax, scores[j]);
  }
  __shared__ float red[256];
  red[threadIdx.x] = localMax;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  float m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < seqLen; j += blockDim.x) {
    scores[j] = __expf(scores[j] - m);
    sum += scores[j];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  for (int d = threadIdx.x; d < HEAD_DIM; d += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < seqLen; ++j) acc += scores[j] * V[j * HEAD_DIM + d];
    O[blockIdx.x * HEAD_DIM + d] = acc * inv;
  }
}

void attention(const float *Q, const float *K, const float *V, float *O, int seqLen) {
  attentionRow<64><<<seqLen, 256, seqLen * sizeof(float)>>>(Q, K, V, O, seqLen, 0.125f);
}
