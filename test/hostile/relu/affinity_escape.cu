// expect: ok
// class: 12 collateral damage
// Tries to leave the CPUs its judge was given (in the daemon, cores of its
// own): from every CPU there is, a spinner could slow another GPU's judge or
// the compiles at no cost to itself. The worker's filter must refuse the move;
// had it been allowed, this kernel writes wrong outputs, so that the escape
// shows as a wrong answer instead of passing unseen.
#include <sched.h>

static bool escaped = false;

__attribute__((constructor)) static void tryToLeave() {
  cpu_set_t every;
  CPU_ZERO(&every);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    CPU_SET(cpu, &every);
  escaped = sched_setaffinity(0, sizeof every, &every) == 0;
}

__global__ void reluKernel(const float *x, float *y, int n, float escapedBias) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = (x[i] > 0 ? x[i] : 0) + escapedBias;
}

extern "C" void relu(const float *x, float *y, int n) {
  reluKernel<<<(n + 255) / 256, 256>>>(x, y, n, escaped ? 1.0f : 0.0f);
}
