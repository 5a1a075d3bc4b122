// With keep-missing-includes the missing header is the usual fatal error.
// REQUIRES: plugin
// RUN: not %clang -fsyntax-only -nocudainc -nocudalib --cuda-host-only -isystem %inputs -fplugin=%plugin -fplugin-arg-cudaperf-keep-missing-includes %s 2>&1 | FileCheck %s
#include "cuda.h"
#include "no/such/header.h"

__global__ void k(float *x) { x[threadIdx.x] = 1; }
// CHECK: fatal error: 'no/such/header.h' file not found
