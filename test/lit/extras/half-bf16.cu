// half and bf16 arithmetic through the intrinsics.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void halfMath(const __half *a, const __half *b, __half *c, const __nv_bfloat16 *d, __nv_bfloat16 *e) {
  int i = threadIdx.x;
  c[i] = __hfma(a[i], b[i], __hmul(a[i], b[i]));
  e[i] = __hadd(d[i], d[i]);
}
// CHECK: kernel halfMath
// CHECK: extras: {{.*}} half=2 bf16=1
