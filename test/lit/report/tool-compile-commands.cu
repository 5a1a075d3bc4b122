// cudaperf-features -p DIR takes the flags from compile_commands.json.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '[{"directory": "%S", "file": "%s", "arguments": ["clang++", "-nocudainc", "-nocudalib", "-isystem", "%inputs", "-DBLOCK=64", "-c", "%s"]}]' > %t/compile_commands.json
// RUN: %tool -p %t --format=text %s | FileCheck %s
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 1; }
void run(float *x) { k<<<1, BLOCK>>>(x); }
// CHECK: kernel k
// CHECK: tpb=64
