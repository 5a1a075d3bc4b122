#include <math.h>

void l2_norm(const float *x, float *out, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += (double)x[i] * x[i];
  out[0] = (float)sqrt(sum);
}
