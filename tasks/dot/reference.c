/* Accumulated in double so the reference itself is accurate. */
void dot(const float *x, const float *y, float *out, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += (double)x[i] * y[i];
  out[0] = (float)sum;
}
