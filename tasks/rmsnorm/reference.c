#include <math.h>

void rmsnorm(const float *x, const float *w, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *row = x + (long)r * cols;
    double squares = 0;
    for (int j = 0; j < cols; ++j)
      squares += (double)row[j] * row[j];
    double inv = 1.0 / sqrt(squares / cols + 1e-6);
    for (int j = 0; j < cols; ++j)
      out[(long)r * cols + j] = (float)(row[j] * inv * w[j]);
  }
}
