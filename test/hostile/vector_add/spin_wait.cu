// expect: ok, median_ms>=0.2 or rejected
// Honest work, but the entry spins on cudaStreamQuery until its kernel is
// done instead of letting the worker sleep in its device-wide wait: the
// worker then answers without the blocking-sync wake-up that every honest
// worker's (and the baseline's) round trips contained before the doorbell.
// Its gap_shift, far below the others' then (-0.05 to -0.13 ms on the H200),
// was the headroom of an exploit that spins and shaves its event times by
// that much more; with the call's end at the doorbell, which the GPU rings
// and the judge spins on, the wake-up is in no round trip and gap_shift
// should be about 0. Rejected is a fair verdict too: the spin is CPU time the
// timed budget may not allow on a slow host.
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
