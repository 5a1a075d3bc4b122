// Array of structs: p[i].x on a 12-byte struct of floats moves 12 bytes per
// lane, i.e. stride 3 in units of the float actually loaded.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

struct Particle {
  float x, y, z;
};

__global__ void readX(const Particle *p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p[i].x;
}
// CHECK: kernel readX
// CHECK: global load p[i].x stride 3 score 0.1
