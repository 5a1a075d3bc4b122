// expect: ok, median_ms>=0.2 or rejected
// Honest work, but the entry spins on cudaStreamQuery until its kernel is
// done instead of letting the worker sleep in its device-wide wait: the
// worker then answers without the blocking-sync wake-up that every honest
// worker's (and the baseline's) gaps contain. Spinning alone gains nothing
// (its time is its event time, an honest one); its gap_shift, below the
// others', measures the wake-up's share of a gap: the headroom of the open
// exploit that spins and then shaves its event times by that much more
// (docs/tasks.md, "What is left"). Rejected is a fair verdict too: the spin is
// CPU time the timed budget may not allow on a slow host.
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  while (cudaStreamQuery(0) == cudaErrorNotReady) {
  }
}
