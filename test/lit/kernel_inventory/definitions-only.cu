// Every __global__ definition is a kernel, in source order, with its location;
// a declaration without a body is not, nor is a __device__ helper; a template
// counts once, as its pattern when no instantiation is launched.
// RUN: %cudaperf-text %s | FileCheck %s
// RUN: %cudaperf-text %s | FileCheck %s --check-prefix=NONE
#include "cuda.h"

__global__ void declaredOnly(float *out);

__device__ float twice(float x) { return 2 * x; }

__global__ void first(float *out) { out[threadIdx.x] = twice(1.0f); }

template <int N> __global__ void scaled(float *out) { out[threadIdx.x] = N; }

__global__ void second(float *out) { out[threadIdx.x] = 0; }

// CHECK: (sm_90, 3 kernels
// CHECK: kernel first  at {{.*}}definitions-only.cu:12:17
// CHECK: kernel scaled{{.*}}definitions-only.cu:14:34
// CHECK: kernel second  at {{.*}}definitions-only.cu:16:17
// NONE-NOT: kernel declaredOnly
// NONE-NOT: kernel twice
