// The stride across threadIdx.x of each index form, in elements of the type
// accessed: the lane index itself 1, scaled 2, a 2-D row-major tile whose
// column is the lane 1, whose row is the lane `width` (symbolic), the
// block index alone 0 (a broadcast), a float4 load 1 (16 bytes, vector).
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__global__ void forms(float *out, const float *in, const float4 *wide, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = in[i];
  s += in[2 * i];
  s += in[threadIdx.y * width + threadIdx.x];
  s += in[threadIdx.x * width + threadIdx.y];
  s += in[blockIdx.x];
  float4 v = wide[i];
  out[i] = s + v.x;
}

// CHECK: kernel forms
// CHECK-DAG: global load in[i]  stride 1 {{.*}}:10:13
// CHECK-DAG: global load in[2 * i]  stride 2 {{.*}}:11:8
// CHECK-DAG: global load in[threadIdx.y * width + threadIdx.x]  stride 1 {{.*}}:12:8
// CHECK-DAG: global load in[threadIdx.x * width + threadIdx.y]  stride width {{.*}}:13:8
// CHECK-DAG: global load in[blockIdx.x]  stride 0 {{.*}}:14:8
// CHECK-DAG: global load wide[i]  stride 1  score 1  vector {{.*}}:15:14
// CHECK-DAG: global store out[i]  stride 1 {{.*}}:16:3
