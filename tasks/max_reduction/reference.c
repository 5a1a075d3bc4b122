void max_reduction(const int *x, int *out, int n) {
  int best = x[0];
  for (int i = 1; i < n; ++i)
    if (x[i] > best)
      best = x[i];
  out[0] = best;
}
