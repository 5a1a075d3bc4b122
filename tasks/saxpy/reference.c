void saxpy(const float *a, const float *x, float *y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = a[0] * x[i] + y[i];
}
