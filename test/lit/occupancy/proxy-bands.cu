// CudaPerf's occupancy proxy by threads per block: 128..256 -> 1, 64..127 and
// 257..512 -> 0.4, otherwise 0.1.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void k32(float *x) { x[threadIdx.x] = 0; }
__global__ void k96(float *x) { x[threadIdx.x] = 0; }
__global__ void k192(float *x) { x[threadIdx.x] = 0; }
__global__ void k384(float *x) { x[threadIdx.x] = 0; }
__global__ void k1024(float *x) { x[threadIdx.x] = 0; }

void run(float *x) {
  k32<<<1, 32>>>(x);
  k96<<<1, 96>>>(x);
  k192<<<1, 192>>>(x);
  k384<<<1, 384>>>(x);
  k1024<<<1, 1024>>>(x);
}
// CHECK: kernel k32
// CHECK-NEXT: occ=0.1
// CHECK: occupancy 0.5 on sm_90 (limited by blocks)
// CHECK: kernel k96
// CHECK-NEXT: occ=0.4
// CHECK: kernel k192
// CHECK-NEXT: occ=1
// CHECK: kernel k384
// CHECK-NEXT: occ=0.4
// CHECK: kernel k1024
// CHECK-NEXT: occ=0.1
// CHECK: occupancy 1 on sm_90 (limited by warps)
