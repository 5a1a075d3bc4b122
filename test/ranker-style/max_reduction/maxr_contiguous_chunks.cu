/* Max reduction, "CPU-style" partitioning: thread t scans its own contiguous
 * chunk [t * chunk, (t + 1) * chunk), so neighbouring threads read addresses
 * chunk ints apart (no coalescing); one atomicMax per thread. */
#include <climits>

template <typename T>
struct MaxOp {
  __device__ static T identity() { return INT_MIN; }
  __device__ static T apply(T a, T b) { return a > b ? a : b; }
};

template <typename T, typename Op>
__global__ void chunk_max(const T *in, T *out, int n, int chunk) {
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  long lo = t * chunk, hi = lo + chunk;
  if (hi > n) hi = n;
  T best = Op::identity();
  for (long i = lo; i < hi; ++i)
    best = Op::apply(best, in[i]);
  if (lo < hi)
    atomicMax(out, best);
}

__global__ void set_lowest(int *out) { *out = INT_MIN; }

extern "C" void max_reduction(const int *x, int *out, int n) {
  const int threads = 256, total_threads = 132 * 2048;
  const int chunk = (n + total_threads - 1) / total_threads;
  const int workers = (n + chunk - 1) / chunk;
  set_lowest<<<1, 1>>>(out);
  chunk_max<int, MaxOp<int>><<<(workers + threads - 1) / threads, threads>>>(x, out, n, chunk);
}
