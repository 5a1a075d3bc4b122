// Bodies staged through shared memory 256 at a time; every thread of the
// block reuses each staged body.
constexpr int kTile = 256;

__global__ void nbodyTiles(const float *__restrict__ pos, float *__restrict__ acc, int n) {
  __shared__ float tile[kTile * 4];
  int i = blockIdx.x * kTile + threadIdx.x;
  float xi = 0.0f, yi = 0.0f, zi = 0.0f;
  if (i < n) {
    xi = pos[4 * i];
    yi = pos[4 * i + 1];
    zi = pos[4 * i + 2];
  }
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += kTile) {
    int j = base + threadIdx.x;
    for (int c = 0; c < 4; ++c)
      tile[threadIdx.x * 4 + c] = j < n ? pos[4 * j + c] : 0.0f; // mass 0: no force
    __syncthreads();
    int count = min(kTile, n - base);
    for (int t = 0; t < count; ++t) {
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

extern "C" void nbody(const float *pos, float *acc, int n) { nbodyTiles<<<(n + kTile - 1) / kTile, kTile>>>(pos, acc, n); }
