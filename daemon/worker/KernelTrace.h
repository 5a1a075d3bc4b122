// Which kernels ran on the GPU while the candidate's entry function ran, from
// CUPTI's activity records: a candidate that computes on the CPU (and perhaps
// launches an empty kernel for show) is caught by the kernel count and by
// the share of the call's wall time that its kernels kept the GPU busy.
#pragma once

#include <cstddef>
#include <string>

namespace cudaperf {

struct KernelActivity {
  std::size_t kernels = 0;
  double kernelMs = 0; // sum of the kernels' durations
  double busyMs = 0;   // union of their intervals (kernels on several streams overlap)
  std::string firstKernel;
};

class KernelTrace {
public:
  // Registers the activity callbacks; available() is false when CUPTI refuses
  // (no library, no permission), and error() says why.
  KernelTrace();
  bool available() const { return available_; }
  const std::string &error() const { return error_; }

  void start();          // enables kernel records
  KernelActivity stop(); // flushes, disables, returns what ran since start()

private:
  bool available_ = false;
  std::string error_;
};

} // namespace cudaperf
