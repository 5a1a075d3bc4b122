// The address flows through locals and pointer arithmetic:
// row = in + blockIdx.x * C; row[threadIdx.x] is still stride 1 on 'in'.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void rowCopy(const float *in, float *out, int C) {
  const float *row = in + blockIdx.x * C;
  float *dst = out + blockIdx.x * C;
  int t = threadIdx.x;
  int j = t;
  dst[j] = row[j];
}
// CHECK: kernel rowCopy
// CHECK-NEXT: coal=1
// CHECK: global load row[j] stride 1
// CHECK: global store dst[j] stride 1
