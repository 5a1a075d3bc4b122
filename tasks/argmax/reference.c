void argmax(const float *x, int *out, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best])
      best = i;
  out[0] = best;
}
