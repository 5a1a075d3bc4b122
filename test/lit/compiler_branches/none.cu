// A file that tests only its own macros and __CUDACC__, and uses __LINE__,
// has no compiler branches.
// RUN: %cudaperf-json %s | FileCheck %s
#include "cuda.h"

#define FLT_LIKE 1.0f
#ifndef TILE
#define TILE 32
#endif
#ifdef __CUDACC__
__global__ void k(float *x) { x[threadIdx.x * TILE] = FLT_LIKE + __LINE__; }
#endif

// CHECK: "compiler_branches": []
