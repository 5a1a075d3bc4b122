// The entry's buffers are never null (the harness allocates every one), so a
// null test is decided; a launch whose running the walk cannot decide (a loop
// here) leaves blocks and threads unknown, but every launch is sized: the
// report says so (entry_launches_complete), and one of the listed launches
// stands for the file (docs/features.md). A launch it cannot size is not
// complete: one not listed could be the largest.
// RUN: %cudaperf-text %s %cudaperf-arg-entry=checked %cudaperf-arg-entry-args=_,1048576 | FileCheck %s --check-prefix=CHECKED
// RUN: %cudaperf-json %s %cudaperf-arg-entry=looped %cudaperf-arg-entry-args=_,1048576 | FileCheck %s --check-prefix=LOOPED
// RUN: %cudaperf-json %s %cudaperf-arg-entry=unsized %cudaperf-arg-entry-args=_,1048576 | FileCheck %s --check-prefix=UNSIZED
#include "cuda.h"

__global__ void k(float *x, int n) {}

extern "C" void checked(float *x, int n) {
  if (x == nullptr || !x)
    return;
  if (x != 0) {
    k<<<n / 32, 32>>>(x, n);
    return;
  }
  k<<<n / 256, 256>>>(x, n);
}
// CHECKED: launches of checked at the task's size:
// CHECKED-NEXT: k  blocks=32768  tpb=32  threads=1048576
// CHECKED-NOT: blocks and threads unknown

extern "C" void looped(float *x, int n) {
  k<<<n / 32, 32>>>(x, n);
  for (int pass = 0; pass < (n & 0); ++pass)
    k<<<1, 32>>>(x, 0);
}
// LOOPED: "entry_launches": [
// LOOPED: "blocks": 32768,
// LOOPED: "blocks": 1,
// LOOPED: "loop_depth": 1
// LOOPED: "entry_launches_complete": true,
// LOOPED-NEXT: "entry_launches_problem": "the launch at {{.*}}which-run.cu:30:5 runs or not, or more than once

int widthFromTheDevice(int n); // defined elsewhere: its value is not known here

extern "C" void unsized(float *x, int n) {
  for (int pass = 0; pass < (n & 0); ++pass)
    k<<<1, 32>>>(x, 0);
  k<<<n / widthFromTheDevice(n), 32>>>(x, n);
}
// UNSIZED: "entry_launches": [
// UNSIZED: "blocks": 1,
// UNSIZED: "entry_launches_complete": false,
