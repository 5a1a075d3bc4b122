// Through the launchers real code writes: a helper host function called
// with the size and a block size, a one-line ceil-div helper, a cap with
// min, a dim3 of two extents, and a branch whose condition is known at the
// size (the tail launch is not made when n is a multiple of 4).
// RUN: %cudaperf-text %s %cudaperf-arg-entry=op %cudaperf-arg-entry-args=_,_,4096,8192 | FileCheck %s
#include "cuda.h"
long min(long a, long b); // as CUDA declares it for host code

__global__ void body(const float *x, float *y, int rows, int cols) {}
__global__ void tail(float *y, int start, int n) {}
__global__ void flat(const float *x, float *y, long n) {}

static inline int cdiv(int a, int b) { return (a + b - 1) / b; }

template <int Block>
void launchRows(const float *x, float *y, int rows, int cols) {
  dim3 grid(cdiv(cols, Block), rows);
  body<<<grid, Block>>>(x, y, rows, cols);
}

void launchFlat(const float *x, float *y, long n, int threads) {
  long blocks = min((n + threads - 1) / threads, 65535L);
  flat<<<blocks, threads>>>(x, y, n);
}

extern "C" void op(const float *x, float *y, int rows, int cols) {
  launchRows<256>(x, y, rows, cols);
  launchFlat(x, y, static_cast<long>(rows) * cols, 512);
  if ((rows * cols) % 4 != 0)
    tail<<<1, 4>>>(y, 0, rows * cols);
}
// 8192 / 256 = 32 columns of blocks times 4096 rows; 4096 * 8192 / 512 = 65536 capped at 65535.
// CHECK: extended: {{.*}} blocks=131072 threads=3.35544e+07
// CHECK: launches of op at the task's size:
// CHECK-NEXT: body  blocks=131072  tpb=256  threads=33554432
// CHECK-NEXT: flat  blocks=65535  tpb=512  threads=33553920
// CHECK-NOT: tail
