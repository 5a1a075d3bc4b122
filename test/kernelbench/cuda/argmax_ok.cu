// kb_8_argmax_indices: 16 rows of 256, the first index of each row's maximum as int64.
__global__ void argmaxRows(const float *x, long long *out) {
  int r = threadIdx.x;
  if (r >= 16)
    return;
  int best = 0;
  for (int c = 1; c < 256; ++c)
    if (x[r * 256 + c] > x[r * 256 + best])
      best = c;
  out[r] = best;
}

extern "C" void kb_8_argmax_indices(const float *x, long long *out) { argmaxRows<<<1, 32>>>(x, out); }
