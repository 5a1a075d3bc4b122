// Errors in host code: the kernels that parsed are still reported.
// RUN: %cudaperf-text %s > %t.out 2> %t.err || true
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
#include "cuda.h"

__global__ void survivor(const float *in, float *out) { out[threadIdx.x] = in[threadIdx.x]; }

int main() {
  undeclared_function(42);
  SomeUnknownType value;
  return value.size();
}

__global__ void afterTheErrors(float *x) { x[threadIdx.x * 2] = 0; }
// ERR: error: use of undeclared identifier 'undeclared_function'
// CHECK: 2 kernels
// CHECK: compiler error(s) in this file; kernels that parsed are reported
// CHECK: kernel survivor
// CHECK-NEXT: coal=1
// CHECK: kernel afterTheErrors
// CHECK-NEXT: coal=0.4
