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

// Operators and methods the file defines are walked too, `this` bound to the
// object in memory: a strided read behind `rows[i] * 2.f`, a functor, an
// accessor's operator() or a method is the kernel's read.
struct Wide {
  float v[64];
  __device__ float head() const { return v[0]; }
};
__device__ float operator*(const Wide &w, float s) { return w.v[0] * s; }
struct Strided {
  const float *base;
  int ld;
  __device__ float operator()(int r, int c) const { return base[c * ld + r]; }
};
struct Gather {
  __device__ float operator()(const float *p) const { return p[threadIdx.x * 32]; }
};
__global__ void userBodies(float *out, const Wide *rows, const float *in, int ld) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Strided at{in, ld};
  Gather gather;
  out[i] = rows[i] * 2.f + rows[i].head() + at(i, 0) + gather(in);
}
// CHECK: kernel userBodies
// CHECK-DAG: global load w.v[0] stride 64 score -0.5
// CHECK-DAG: global load v[0] stride 64 score -0.5
// CHECK-DAG: global load base[c * ld + r] stride 1 score 1
// CHECK-DAG: global load p[threadIdx.x * 32] stride 32 score -0.5
// CHECK-DAG: global store out[i] stride 1 score 1

// A struct of more than 16 bytes copied from memory moves in 16-byte pieces
// whose lanes are the struct's size apart: not a coalesced read.
__global__ void bigCopy(float *out, const Wide *rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Wide r = rows[i];
  out[i] = r.v[0];
}
// CHECK: kernel bigCopy
// CHECK: global load rows[i] stride 16 score -0.5
