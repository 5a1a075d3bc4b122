// Unknown plugin arguments and formats are clear errors.
// REQUIRES: plugin
// RUN: not %clang -fsyntax-only -nocudainc -nocudalib --cuda-host-only -isystem %inputs -fplugin=%plugin -fplugin-arg-cudaperf-colour=red %s 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not %clang -fsyntax-only -nocudainc -nocudalib --cuda-host-only -isystem %inputs -fplugin=%plugin -fplugin-arg-cudaperf-format=xml %s 2>&1 | FileCheck %s --check-prefix=FORMAT
#include "cuda.h"

__global__ void k(float *x) { x[threadIdx.x] = 1; }
// ARG: error: cudaperf: unknown plugin argument 'colour=red' (try help)
// FORMAT: error: cudaperf: format must be json or text, not 'xml'
