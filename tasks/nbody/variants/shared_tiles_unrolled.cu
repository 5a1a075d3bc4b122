// float4 tiles in shared memory, rsqrtf for 1 / d^(3/2), the inner loop
// unrolled by 8 (padding bodies have mass 0, so full tiles are always safe).
constexpr int kTile = 256;

__global__ void nbodyFast(const float4 *__restrict__ pos, float *__restrict__ acc, int n) {
  __shared__ float4 tile[kTile];
  int i = blockIdx.x * kTile + threadIdx.x;
  const float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += kTile) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
#pragma unroll 8
    for (int t = 0; t < kTile; ++t) {
      const float4 b = tile[t];
      float dx = b.x - me.x, dy = b.y - me.y, dz = b.z - me.z;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
      float s = b.w * inv * inv * inv;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    __syncthreads();
  }
  if (i < n) {
    acc[3 * i] = ax;
    acc[3 * i + 1] = ay;
    acc[3 * i + 2] = az;
  }
}

extern "C" void nbody(const float *pos, float *acc, int n) {
  nbodyFast<<<(n + kTile - 1) / kTile, kTile>>>(reinterpret_cast<const float4 *>(pos), acc, n);
}
