// expect: rejected
// Calls cuBLAS (saxpy on a copy) in a task that allows no library.
#include <cublas_v2.h>

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1.0f;
  cudaMemcpy(c, b, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cublasSaxpy(handle, n, &one, a, 1, c, 1);
  cublasDestroy(handle);
}
