// expect: runtime_error
// Writes through a wild device pointer: cudaErrorIllegalAddress poisons the
// context and the harness exits for a fresh one.
__global__ void wild(float *c, int n) {
  float *far = c + (1ll << 40);
  far[threadIdx.x] = static_cast<float>(n);
}

extern "C" void vector_add(const float *, const float *, float *c, int n) { wild<<<1, 32>>>(c, n); }
