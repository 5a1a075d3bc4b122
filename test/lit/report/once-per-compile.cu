// A plain CUDA compile runs a host and a device pass; the report is printed
// once (from the host pass), not once per pass.
// REQUIRES: plugin
// RUN: %clang -fsyntax-only -nocudainc -nocudalib -isystem %inputs --cuda-gpu-arch=sm_80 --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version -fplugin=%plugin -fplugin-arg-cudaperf-format=text %s | FileCheck %s
// RUN: %clang -fsyntax-only -nocudainc -nocudalib -isystem %inputs --cuda-device-only --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version -fplugin=%plugin -fplugin-arg-cudaperf-format=text -fplugin-arg-cudaperf-device-pass %s | FileCheck %s
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 1; }
// CHECK: == {{.*}}once-per-compile.cu
// CHECK-NOT: == {{.*}}once-per-compile.cu
