void stencil_1d(const float *x, float *out, int n) {
  static const float w[7] = {1.0f / 16, 2.0f / 16, 3.0f / 16, 4.0f / 16, 3.0f / 16, 2.0f / 16, 1.0f / 16};
  for (int i = 0; i < n; ++i) {
    float sum = 0.0f;
    for (int k = -3; k <= 3; ++k)
      if (i + k >= 0 && i + k < n)
        sum += w[k + 3] * x[i + k];
    out[i] = sum;
  }
}
