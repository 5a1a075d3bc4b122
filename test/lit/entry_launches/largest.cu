// Two kernels: the file's blocks and threads are its largest launch's (the
// pass over the data, not the final reduction of the partial sums); each
// kernel reports its own.
// RUN: %cudaperf-text %s %cudaperf-arg-entry=total %cudaperf-arg-entry-args=_,_,16777216 | FileCheck %s
#include "cuda.h"

__global__ void partial(const float *x, float *parts, int n) {}
__global__ void finish(const float *parts, float *out, int count) {}

extern "C" void total(const float *x, float *out, int n) {
  const int per = 1024;
  int parts = (n + per - 1) / per;
  partial<<<parts, 256>>>(x, out + 1, n);
  finish<<<1, 1024>>>(out + 1, out, parts);
}
// CHECK: kernel partial
// CHECK: extended: {{.*}} blocks=16384 threads=4.1943e+06
// CHECK: kernel finish
// CHECK: extended: {{.*}} blocks=1 threads=1024
// CHECK: launches of total at the task's size:
// CHECK-NEXT: partial  blocks=16384  tpb=256  threads=4194304
// CHECK-NEXT: finish  blocks=1  tpb=1024  threads=1024
// CHECK: translation unit:
// CHECK: extended: {{.*}} blocks=16384 threads=4.1943e+06
