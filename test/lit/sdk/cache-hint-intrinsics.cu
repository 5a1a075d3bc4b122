// nvcc's cache-hint loads and stores on built-in and vector types (llm.c's
// Packed128 idiom): Clang 19 does not declare them, so the libTooling front
// end supplies the declarations and the accesses are read like any other.
// The plugin runs inside a real clang++ compile, which must declare them itself.
// REQUIRES: cuda-sdk, tool
// RUN: %cudaperf-sdk-text %s 2>&1 | FileCheck %s
#include <cuda_runtime.h>

__global__ void scaleStreaming(const float4 *in, float4 *out, const float *bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = __ldcs(in + i);
    float b = __ldcg(&bias[i]);
    v.x += b;
    __stcs(out + i, v);
    __stwt(out + i, v);
  }
}
// CHECK-NOT: error:
// CHECK: kernel scaleStreaming
// CHECK: global load __ldcs(in + i) stride 1 score 1 vector
// CHECK: global load __ldcg(&bias[i]) stride 1 score 1
// CHECK: global store __stcs(out + i, v) stride 1 score 1 vector
// CHECK: global store __stwt(out + i, v) stride 1 score 1 vector
