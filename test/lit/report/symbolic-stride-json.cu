// A symbolic stride has no number (null) but names its coefficient.
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

__global__ void column(const float *m, float *out, int ld) { out[threadIdx.x] = m[threadIdx.x * ld]; }
// CHECK: "expression": "m[threadIdx.x * ld]",
// CHECK-NEXT: "bytes": 4,
// CHECK-NEXT: "stride_class": "symbolic",
// CHECK-NEXT: "stride": null,
// CHECK-NEXT: "stride_bytes": null,
// CHECK-NEXT: "stride_expr": "ld",
// CHECK-NEXT: "score": -0.5,
