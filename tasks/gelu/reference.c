#include <math.h>

void gelu(const float *x, float *y, int n) {
  const double c = 0.7978845608028654; /* sqrt(2 / pi) */
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    y[i] = (float)(0.5 * v * (1.0 + tanh(c * (v + 0.044715 * v * v * v))));
  }
}
