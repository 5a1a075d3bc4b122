// Reads of half and bfloat16 values through their own operators (real code
// keeps data in bf16 and computes in float: llm.c's `float xi = inp[i]`):
// the conversion operator and the arithmetic operators take the object in
// memory by reference, and each such use reads it whole.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-sdk-text %s 2>&1 | FileCheck %s
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void geluBf16(__nv_bfloat16 *out, const __nv_bfloat16 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = 0.5f * x * (1.0f + tanhf(0.79788456f * x));
  }
}
// CHECK-LABEL: kernel geluBf16
// CHECK: gmem=4
// CHECK: global load in[i] stride 1 score 1
// CHECK: global store out[i] stride 1 score 1

__global__ void residualHalf(__half *out, const __half *a, const __half *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}
// CHECK-LABEL: kernel residualHalf
// CHECK: gmem=6
// CHECK: global load a[i] stride 1 score 1
// CHECK: global load b[i] stride 1 score 1
// CHECK: global store out[i] stride 1 score 1

// A register copy is no memory read.
__global__ void scaleLocal(float *out, const __nv_bfloat16 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __nv_bfloat16 local = in[i];
  out[i] = float(local) * 2.0f;
}
// CHECK-LABEL: kernel scaleLocal
// CHECK: global load in[i] stride 1 score 1
// CHECK-NOT: global load
// CHECK: global store out[i] stride 1 score 1
