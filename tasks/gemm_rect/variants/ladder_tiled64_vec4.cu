// tiled64_4x4 with float4 tile loads: A's 64 x 16 slab and B's 16 x 64 slab
// are 256 float4 each, one of each per thread. Taken when k and n are
// multiples of 4 and A and B are 16-byte aligned (every float4 is then
// aligned and either wholly inside the matrix or wholly outside); otherwise
// the scalar loads of tiled64_4x4.
#include <cstdint>

constexpr int kTile = 64, kDepth = 16;

template <bool kVec>
__global__ void gemmTile64Vec(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m,
                              int n, int k) {
  __shared__ float a[kDepth][kTile + 4], b[kDepth][kTile + 4];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int rowBase = blockIdx.y * kTile, colBase = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int t = 0; t < k; t += kDepth) {
    if (kVec) {
      const int r = tid / 4, p = (tid % 4) * 4, row = rowBase + r;
      float4 va = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (row < m && t + p < k)
        va = *reinterpret_cast<const float4 *>(A + (long)row * k + t + p);
      a[p][r] = va.x;
      a[p + 1][r] = va.y;
      a[p + 2][r] = va.z;
      a[p + 3][r] = va.w;
      const int bp = tid / 16, c = (tid % 16) * 4, col = colBase + c;
      float4 vb = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (t + bp < k && col < n)
        vb = *reinterpret_cast<const float4 *>(B + (long)(t + bp) * n + col);
      b[bp][c] = vb.x;
      b[bp][c + 1] = vb.y;
      b[bp][c + 2] = vb.z;
      b[bp][c + 3] = vb.w;
    } else {
      for (int e = tid; e < kTile * kDepth; e += 256) {
        int r = e / kDepth, p = e % kDepth;
        int row = rowBase + r;
        a[p][r] = row < m && t + p < k ? A[(long)row * k + t + p] : 0.0f;
        int bp = e / kTile, c = e % kTile;
        int col = colBase + c;
        b[bp][c] = t + bp < k && col < n ? B[(long)(t + bp) * n + col] : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kDepth; ++p) {
      float av[4], bv[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        av[q] = a[p][ty + 16 * q];
        bv[q] = b[p][tx + 16 * q];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int row = rowBase + ty + 16 * i, col = colBase + tx + 16 * j;
      if (row < m && col < n)
        C[(long)row * n + col] = acc[i][j];
    }
}

extern "C" void gemm_rect(const float *A, const float *B, float *C, int m, int n, int k) {
  dim3 block(16, 16), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  const bool aligned = (reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B)) % 16 == 0;
  if (aligned && k % 4 == 0 && n % 4 == 0)
    gemmTile64Vec<true><<<grid, block>>>(A, B, C, m, n, k);
  else
    gemmTile64Vec<false><<<grid, block>>>(A, B, C, m, n, k);
}
