// expect: runtime_error
// Dereferences a null host pointer inside the entry.
extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  volatile float *nowhere = nullptr;
  *nowhere = a == b ? 1.0f : 2.0f;
}
