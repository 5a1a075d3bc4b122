// One thread per body; every body j is read from global memory (through L1/L2).
__global__ void nbodyNaive(const float *pos, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    float dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi, dz = pos[4 * j + 2] - zi;
    float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
    float s = pos[4 * j + 3] / (d2 * sqrtf(d2));
    ax += s * dx;
    ay += s * dy;
    az += s * dz;
  }
  acc[3 * i] = ax;
  acc[3 * i + 1] = ay;
  acc[3 * i + 2] = az;
}

extern "C" void nbody(const float *pos, float *acc, int n) { nbodyNaive<<<(n + 255) / 256, 256>>>(pos, acc, n); }
