// ---------------------------------------------------------------------------
// Dot product, vectorised. Parameters travel in a struct; two float4 of each
// vector per iteration (read-only path), a scalar loop for the n % 4 tail
// (and for everything when a pointer is not 16-byte aligned), warp shuffles,
// one slot per warp in shared memory, one atomicAdd per block.
// ---------------------------------------------------------------------------
#include <cstdint>

struct DotArgs {
  const float *pfX;
  const float *pfY;
  float *pfOut;
  int nLen;
  int nVec; // number of float4 groups processed by the vector loop
};

__device__ __forceinline__ float fWarpSum(float fVal) {
#pragma unroll
  for (int iOff = 16; iOff > 0; iOff >>= 1)
    fVal += __shfl_xor_sync(0xffffffffu, fVal, iOff);
  return fVal;
}

__global__ void __launch_bounds__(256) kDotVec(DotArgs stArgs) {
  __shared__ float afWarp[8];
  const float4 *pv4X = reinterpret_cast<const float4 *>(stArgs.pfX);
  const float4 *pv4Y = reinterpret_cast<const float4 *>(stArgs.pfY);
  const int iStride = gridDim.x * blockDim.x;
  int iIdx = blockIdx.x * blockDim.x + threadIdx.x;
  float fAcc = 0.0f;
  for (; iIdx + iStride < stArgs.nVec; iIdx += 2 * iStride) {
    const float4 v4A = __ldg(pv4X + iIdx), v4B = __ldg(pv4Y + iIdx);
    const float4 v4C = __ldg(pv4X + iIdx + iStride), v4D = __ldg(pv4Y + iIdx + iStride);
    fAcc += v4A.x * v4B.x + v4A.y * v4B.y + v4A.z * v4B.z + v4A.w * v4B.w;
    fAcc += v4C.x * v4D.x + v4C.y * v4D.y + v4C.z * v4D.z + v4C.w * v4D.w;
  }
  if (iIdx < stArgs.nVec) {
    const float4 v4A = __ldg(pv4X + iIdx), v4B = __ldg(pv4Y + iIdx);
    fAcc += v4A.x * v4B.x + v4A.y * v4B.y + v4A.z * v4B.z + v4A.w * v4B.w;
  }
  for (int iTail = 4 * stArgs.nVec + blockIdx.x * blockDim.x + threadIdx.x; iTail < stArgs.nLen; iTail += iStride)
    fAcc += stArgs.pfX[iTail] * stArgs.pfY[iTail];
  fAcc = fWarpSum(fAcc);
  if ((threadIdx.x & 31) == 0)
    afWarp[threadIdx.x >> 5] = fAcc;
  __syncthreads();
  if (threadIdx.x < 32) {
    fAcc = fWarpSum(threadIdx.x < (blockDim.x >> 5) ? afWarp[threadIdx.x] : 0.0f);
    if (threadIdx.x == 0)
      atomicAdd(stArgs.pfOut, fAcc);
  }
}

extern "C" void dot(const float *x, const float *y, float *out, int n) {
  DotArgs stArgs;
  stArgs.pfX = x;
  stArgs.pfY = y;
  stArgs.pfOut = out;
  stArgs.nLen = n;
  const bool bAligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15u) == 0;
  stArgs.nVec = bAligned ? n / 4 : 0;
  cudaMemsetAsync(out, 0, sizeof(float));
  kDotVec<<<264, 256>>>(stArgs);
}
