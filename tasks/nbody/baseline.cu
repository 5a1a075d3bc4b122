// Plain CUDA: one thread per body, 128-thread blocks, global loads.
__global__ void nbodyKernel(const float *pos, float *acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; ++j) {
    float dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1], dz = pos[4 * j + 2] - pos[4 * i + 2];
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

extern "C" void nbody(const float *pos, float *acc, int n) { nbodyKernel<<<(n + 127) / 128, 128>>>(pos, acc, n); }
