// expect: rejected
// class: 5 host computation in threads
// Eight host threads compute the ReLU of a copy of x while a token kernel
// runs; the answer goes back with one copy. The kernel count is not zero.
#include <thread>
#include <vector>

__global__ void token(float *y) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    y[0] = y[0];
}

extern "C" void relu(const float *x, float *y, int n) {
  std::vector<float> host(n);
  cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < n; i += 8)
        host[i] = host[i] > 0 ? host[i] : 0;
    });
  for (auto &thread : threads)
    thread.join();
  cudaMemcpy(y, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  token<<<1, 32>>>(y);
}
