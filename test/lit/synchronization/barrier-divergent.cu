// A barrier inside a thread-dependent branch: some threads never reach it.
// RUN: %cudaperf-verify %s
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void badBarrier(float *x) {
  __shared__ float s[128];
  if (threadIdx.x < 64) { // expected-note {{the condition that differs between threads}}
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads(); // expected-warning {{barrier __syncthreads under a thread-dependent condition}}
  }
  x[threadIdx.x] = s[threadIdx.x];
}
// CHECK: kernel badBarrier
// CHECK: sync=1
// CHECK: sync __syncthreads thread-dependent
// CHECK: warning: barrier __syncthreads under a thread-dependent condition
// CHECK-NEXT: note: the condition that differs between threads  @{{.*}}barrier-divergent.cu:8:7
