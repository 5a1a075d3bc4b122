// expect: rejected or wrong_answer
// class: 9 unscored verdict on purpose
// Correct on the call itself, then leaves a kernel behind on a stream of its
// own that waits 0.2 ms and writes NaN over both inputs: the judge's oracle
// of that timed call would read NaN and write NaN everywhere, the failure
// pattern the judge now reads on the device as a broken task (bad_task,
// unscored). The judge must see the leftover work (the probe after the call)
// or the changed inputs first, and keep the verdict the candidate's own.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

__global__ void poisonLater(float *a, float *b, int n) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < 200000ull);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    a[i] = b[i] = __int_as_float(0x7fffffff);
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static cudaStream_t side = nullptr;
  if (!side)
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  cudaStreamSynchronize(0);
  poisonLater<<<132, 256, 0, side>>>(const_cast<float *>(a), const_cast<float *>(b), n);
}
