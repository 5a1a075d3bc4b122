// expect: ok or wrong_answer
// class: 2 phase detection by a side channel
// Times its own first loads with clock64: after an L2 flush (what a harness
// does before timed calls only) they are slow, and then a quarter of the work
// is done. When every call is flushed alike, the "timed" branch is taken
// everywhere and the answer is wrong at every size.
__device__ unsigned long long lastLatency;

__global__ void probe(const float *x, int n) {
  volatile float sink = 0;
  const long long start = clock64();
  for (int i = 0; i < 64 && i < n; ++i)
    sink += x[(i * 4099) % n];
  lastLatency = clock64() - start;
}

__global__ void geluKernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}

extern "C" void gelu(const float *x, float *y, int n) {
  probe<<<1, 1>>>(x, n);
  unsigned long long latency = 0;
  cudaMemcpyFromSymbol(&latency, lastLatency, sizeof latency);
  const bool coldCache = latency > 64 * 400; // ~400 cycles per load from DRAM
  const int work = coldCache ? n / 4 : n;
  geluKernel<<<(work + 255) / 256, 256>>>(x, y, work);
}
