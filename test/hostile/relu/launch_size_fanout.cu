// expect: ok
// class: 13 blinding the static analysis
// Host helpers of 64 parameters chained seven deep to compute the grid: each
// level evaluates every argument of the next, 64^7 evaluations for a sizing
// that tried them all, so that the analysis runs into its deadline and the
// evaluation has no features (an unscored structure). The kernel is honest.
__global__ void reluKernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] > 0 ? x[i] : 0;
}

#define A8(v) v, v, v, v, v, v, v, v
#define A64(v) A8(v), A8(v), A8(v), A8(v), A8(v), A8(v), A8(v), A8(v)
#define P8(p) int p##0, int p##1, int p##2, int p##3, int p##4, int p##5, int p##6, int p##7
static int pick(P8(a), P8(b), P8(c), P8(d), P8(e), P8(f), P8(g), P8(h)) { return a0; }

extern "C" void relu(const float *x, float *y, int n) {
  const int v1 = pick(A64((n + 255) / 256));
  const int v2 = pick(A64(v1));
  const int v3 = pick(A64(v2));
  const int v4 = pick(A64(v3));
  const int v5 = pick(A64(v4));
  const int v6 = pick(A64(v5));
  const int blocks = pick(A64(v6));
  reluKernel<<<blocks, 256>>>(x, y, n);
}
