// Recursive device functions and deep loop nests end (bounded inlining and
// walking) and still give a report.
// RUN: %cudaperf-text %s | FileCheck %s
#include "cuda.h"

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__global__ void deep(float *x, int n) {
  float acc = 0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c)
        for (int d = 0; d < n; ++d)
          for (int e = 0; e < n; ++e)
            for (int f = 0; f < n; ++f)
              acc += x[((((a * n + b) * n + c) * n + d) * n + e) * n + f + fib(threadIdx.x)];
  x[threadIdx.x] = acc;
}
// CHECK: kernel deep
// CHECK: global load x[{{.*}}] stride unknown
