#include <math.h>

void layernorm(const float *x, const float *gamma, const float *beta, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *row = x + (long)r * cols;
    double mean = 0, var = 0;
    for (int j = 0; j < cols; ++j)
      mean += row[j];
    mean /= cols;
    for (int j = 0; j < cols; ++j)
      var += (row[j] - mean) * (row[j] - mean);
    var /= cols;
    double inv = 1.0 / sqrt(var + 1e-5);
    for (int j = 0; j < cols; ++j)
      out[(long)r * cols + j] = (float)((row[j] - mean) * inv * gamma[j] + beta[j]);
  }
}
