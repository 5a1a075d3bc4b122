// A load with stride 32 across the warp: coalescing 0.25 in the JSON report,
// the same access in the text report, and a warning where it is.
// RUN: %plugin-json %s | FileCheck %s --check-prefix=JSON
// RUN: %features-text %s | FileCheck %s --check-prefix=TEXT
// RUN: %plugin-warn %s 2>&1 | FileCheck %s --check-prefix=WARN
#include "cuda.h"

__global__ void gatherColumn(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * 32];
}

void launch(float *out, const float *in, int n) { gatherColumn<<<n / 256, 256>>>(out, in); }

// JSON: "name": "gatherColumn"
// JSON: "coal": 0.25
// JSON: "tpb": 256
// TEXT: kernel gatherColumn
// TEXT: global load in[i * 32] stride 32
// WARN: strided-load.cu:10:12: warning: global load from 'in' has stride 32 elements across threadIdx.x: uncoalesced [cudaperf-coalescing]
