// -fplugin-arg-cudaperf-output=FILE writes the report there, not to stdout.
// REQUIRES: plugin
// RUN: rm -f %t.json
// RUN: %clang -fsyntax-only -nocudainc -nocudalib --cuda-host-only -isystem %inputs -Wno-unknown-cuda-version -fplugin=%plugin -fplugin-arg-cudaperf-output=%t.json %s | count 0
// RUN: FileCheck %s < %t.json
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 1; }
// CHECK: "schema": "cudaperf.features/1"
// CHECK: "name": "k"
