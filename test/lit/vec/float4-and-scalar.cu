// vec: bytes per global access, access-weighted: a float4 copy moves 16, a
// scalar one 4, a double 8; the file pools the sites: (16 * 2 + 4 * 2 + 8 * 2) / 6.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void copy4(const float4 *in, float4 *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void copy1(const float *in, float *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void copyDouble(const double *in, double *out) { out[threadIdx.x] = in[threadIdx.x]; }
// CHECK: kernel copy4
// CHECK: extended: bank=1 vec=16 
// CHECK: kernel copy1
// CHECK: extended: bank=1 vec=4 
// CHECK: kernel copyDouble
// CHECK: extended: bank=1 vec=8 
// CHECK: translation unit:
// CHECK: extended: bank=1 vec=9.33333 
