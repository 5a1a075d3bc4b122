/* Unsigned arithmetic: wraps on overflow like the GPU's int additions. */
void prefix_scan(const int *x, int *out, int n) {
  unsigned int sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += (unsigned int)x[i];
    out[i] = (int)sum;
  }
}
