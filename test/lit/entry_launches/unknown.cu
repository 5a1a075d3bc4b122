// What the analysis cannot size stays unknown, not zero: a grid from the
// device's SM count, a size the entry rewrites, an entry absent from the file.
// RUN: %cudaperf-text %s %cudaperf-arg-entry=run %cudaperf-arg-entry-args=_,1048576 | FileCheck %s
// RUN: %cudaperf-text %s %cudaperf-arg-entry=missing %cudaperf-arg-entry-args=_,1048576 | FileCheck %s --check-prefix=MISSING
// RUN: not %cudaperf-text %s %cudaperf-arg-entry=run %cudaperf-arg-entry-args=_,lots 2>&1 | FileCheck %s --check-prefix=BAD
#include "cuda.h"
int cudaDeviceGetAttribute(int *value, int attribute, int device);
const int cudaDevAttrMultiProcessorCount = 16;

__global__ void k(float *x, int n) {}

extern "C" void run(float *x, int n) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  k<<<sms * 4, 256>>>(x, n);
  n = n / 2;
  k<<<(n + 255) / 256, 256>>>(x, n);
}
// CHECK: launches of run at the task's size: none
// CHECK-NEXT: blocks and threads unknown: the launch at {{.*}}unknown.cu:15:3 has a grid, block or shared size not known at the size, or one CUDA refuses
// CHECK: translation unit:
// CHECK: unknown: {{.*}}blocks threads

// MISSING: launches of missing at the task's size: none
// MISSING-NEXT: blocks and threads unknown: no function of this file exports the symbol 'missing' (extern "C")

// BAD: entry-args must be integers or _ separated by commas, not '_,lots'
