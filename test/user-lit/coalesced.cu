// The control: consecutive lanes, consecutive floats. Coalescing 1 and no warning.
// RUN: %plugin-json %s | FileCheck %s
// RUN: %plugin-warn %s 2>&1 | FileCheck %s --check-prefix=WARN --allow-empty
#include "cuda.h"

__global__ void copy(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

void launch(float *out, const float *in, int n) { copy<<<n / 128, 128>>>(out, in); }

// CHECK: "name": "copy"
// CHECK: "coal": 1
// CHECK: "tpb": 128
// WARN-NOT: warning:
