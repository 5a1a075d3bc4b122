#include <math.h>

void softmax_rows(const float *in, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *x = in + (long)r * cols;
    float *y = out + (long)r * cols;
    float m = x[0];
    for (int c = 1; c < cols; ++c)
      m = x[c] > m ? x[c] : m;
    double sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += exp((double)x[c] - m);
    for (int c = 0; c < cols; ++c)
      y[c] = (float)(exp((double)x[c] - m) / sum);
  }
}
