// A PyTorch extension without PyTorch's headers: the include is skipped and
// reported, the kernel analysed. (-nostdlibinc: this machine may have PyTorch's
// headers, from libtorch-dev; the test is about a machine without them.)
// RUN: %cudaperf-text-nostdlibinc %s > %t.out 2> %t.err || true
// RUN: FileCheck %s < %t.out
#include "cuda.h"
#include <torch/extension.h>

__global__ void relu(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] > 0 ? in[i] : 0;
}

torch::Tensor forward(torch::Tensor x) {
  auto y = torch::empty_like(x);
  relu<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
// CHECK: skipped missing include <torch/extension.h>
// CHECK: kernel relu
// CHECK-NEXT: coal=1
// CHECK: branch if (i < n) guard
