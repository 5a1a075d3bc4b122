// expect: rejected
// class: 12 collateral damage
// Eight threads spin for two seconds in the library's constructors, under
// Load, where no call's CPU budget looks: everything else on its judge's
// cores (the spares starting, the judge itself) is slowed, then saxpy is
// honest. The load's own CPU budget (one busy thread) must reject it.
#include <chrono>
#include <thread>
#include <vector>

__attribute__((constructor)) static void spinWhileLoading() {
  std::vector<std::thread> spinners;
  for (int t = 0; t < 8; ++t)
    spinners.emplace_back([] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      volatile unsigned long sink = 0;
      while (std::chrono::steady_clock::now() < until)
        sink = sink + 1;
    });
  for (auto &spinner : spinners)
    spinner.join();
}

__global__ void saxpyKernel(const float *a, const float *x, float *y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[0] * x[i] + y[i];
}

extern "C" void saxpy(const float *a, const float *x, float *y, int n) {
  saxpyKernel<<<(n + 255) / 256, 256>>>(a, x, y, n);
}
