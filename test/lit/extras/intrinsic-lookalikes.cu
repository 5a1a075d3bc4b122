// CUDA's functions are known by name only when they are the toolchain's
// (declared in a system header, or declared without a body): a function of
// the same name that the file defines itself is walked like any helper, so a
// strided read behind `my::__ldcs` or an `atomicPeek` is seen for what it is.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

namespace my {
__device__ float __ldcs(const float *p) { return p[threadIdx.x * 63]; }
} // namespace my
__device__ float atomicPeek(const float *p) { return p[threadIdx.x * 64]; }

__global__ void lookalikes(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = my::__ldcs(in + i) + atomicPeek(in);
}
// CHECK: kernel lookalikes
// CHECK: atomics=0
// CHECK-DAG: global load p[threadIdx.x * 63] stride 64
// CHECK-DAG: global load p[threadIdx.x * 64] stride 64
// CHECK-DAG: global store out[i] stride 1 score 1

// A struct larger than 16 bytes read through a const method is not counted
// as one whole-object load (its method may read one field of 256 bytes).
struct Row {
  float v[64];
  __device__ float first() const;
};
__global__ void bigRows(float *out, const Row *rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = rows[i].first();
}
// CHECK: kernel bigRows
// CHECK-NOT: global load rows[i]
// CHECK: global store out[i] stride 1 score 1

// A lambda's reads are the kernel's: walked like a helper, in the kernel's
// environment (its captures are the kernel's locals).
__global__ void lambdaReads(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto at = [&](int k) { return in[k * 64]; };
  out[i] = at(i) + in[i];
}
// CHECK: kernel lambdaReads
// CHECK-DAG: global load in[k * 64] stride 64 score -0.5
// CHECK-DAG: global load in[i] stride 1 score 1
// CHECK-DAG: global store out[i] stride 1 score 1
