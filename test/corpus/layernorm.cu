// LayerNorm forward with Welford statistics per row and affine parameters.
#include <cuda_runtime.h>

__global__ void layerNorm(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                          float *__restrict__ y, int cols, float eps) {
  __shared__ float sMean[32], sM2[32], sCount[32];
  const float *row = x + blockIdx.x * cols;
  float mean = 0.0f, m2 = 0.0f, count = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = row[c];
    count += 1.0f;
    float delta = v - mean;
    mean += delta / count;
    m2 += delta * (v - mean);
  }
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int o = 16; o > 0; o >>= 1) {
    float oMean = __shfl_down_sync(0xffffffff, mean, o);
    float oM2 = __shfl_down_sync(0xffffffff, m2, o);
    float oCount = __shfl_down_sync(0xffffffff, count, o);
    float total = count + oCount;
    if (total > 0.0f) {
      float delta = oMean - mean;
      mean += delta * oCount / total;
      m2 += oM2 + delta * delta * count * oCount / total;
      count = total;
    }
  }
  if (lane == 0) { sMean[warp] = mean; sM2[warp] = m2; sCount[warp] = count; }
  __syncthreads();
  if (threadIdx.x == 0) {
    float tMean = 0, tM2 = 0, tCount = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) {
      float total = tCount + sCount[w];
      float delta = sMean[w] - tMean;
      tMean += delta * sCount[w] / total;
      tM2 += sM2[w] + delta * delta * tCount * sCount[w] / total;
      tCount = total;
    }
    sMean[0] = tMean;
    sM2[0] = rsqrtf(tM2 / tCount + eps);
  }
  __syncthreads();
  float mu = sMean[0], rstd = sM2[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[blockIdx.x * cols + c] = (row[c] - mu) * rstd * gamma[c] + beta[c];
}
