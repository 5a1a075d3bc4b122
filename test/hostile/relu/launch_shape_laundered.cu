// expect: ok
// class: 13 blinding the static analysis
// Laundering a poor launch shape through a doubt. The launch that runs makes
// 2 M blocks of 32 threads, a shape the ranker scores well below its training
// mean at 2^26 elements. A second launch, of no work, sits in a loop whose trip
// count the entry walk does not decide (n & 0 is 0, but a loop is a doubt), so
// blocks and threads become unknown: scored as unknown (the mean), the file
// would gain from the doubt it added. The walk still lists the launch it sized,
// and R_str takes the lowest of the unknown's score and each sized launch's.
__global__ void rectify(const float *in, float *out, int count) {
  const int at = blockIdx.x * 32 + threadIdx.x;
  if (at < count)
    out[at] = fmaxf(in[at], 0.0f);
}

extern "C" void relu(const float *x, float *y, int n) {
  rectify<<<(n + 31) / 32, 32>>>(x, y, n);
  for (int pass = 0; pass < (n & 0); ++pass)
    rectify<<<1, 32>>>(x, y, 0);
}
