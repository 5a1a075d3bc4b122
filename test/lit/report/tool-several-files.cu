// cudaperf-features on several files prints one JSON array.
// RUN: %tool --format=json %s %S/json-contract.cu --extra-arg=-nocudainc --extra-arg=-nocudalib --extra-arg=-isystem%inputs | FileCheck %s
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 1; }
// CHECK: [
// CHECK-NEXT: {
// CHECK-NEXT: "schema": "cudaperf.features/1",
// CHECK-NEXT: "file": "{{.*}}tool-several-files.cu",
// CHECK: "schema": "cudaperf.features/1",
// CHECK-NEXT: "file": "{{.*}}json-contract.cu",
