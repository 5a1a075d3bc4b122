/* Sequential sum, accumulated in double so the reference itself is accurate. */
void sum_reduction(const float *x, float *out, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += x[i];
  out[0] = (float)sum;
}
