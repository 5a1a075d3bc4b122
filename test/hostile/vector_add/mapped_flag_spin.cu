// expect: rejected
// class: 5 host computation behind a spinning kernel
// A kernel spins on a flag in mapped host memory, so the GPU looks busy for
// the whole call, while the host copies the inputs out, adds them and copies
// the sum back; then it sets the flag. GPU-time share near 100 %.
#include <vector>

__global__ void spinUntil(volatile int *flag) {
  while (*flag == 0) {
  }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static int *flag = nullptr, *deviceFlag = nullptr;
  static cudaStream_t side;
  if (!flag) {
    cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped);
    cudaHostGetDevicePointer(&deviceFlag, flag, 0);
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  }
  *flag = 0;
  spinUntil<<<1, 1, 0, side>>>(deviceFlag);
  std::vector<float> x(n), y(n);
  cudaMemcpy(x.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(y.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    x[i] += y[i];
  cudaMemcpy(c, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  *flag = 1;
  cudaStreamSynchronize(side);
}
