#include <math.h>
#include <stdlib.h>

void attention(const float *Q, const float *K, const float *V, float *out, int heads, int seq) {
  double *p = malloc(sizeof(double) * (size_t)seq);
  for (int h = 0; h < heads; ++h) {
    const float *q = Q + (long)h * seq * 64, *k = K + (long)h * seq * 64, *v = V + (long)h * seq * 64;
    for (int i = 0; i < seq; ++i) {
      double best = -INFINITY, sum = 0;
      for (int j = 0; j < seq; ++j) {
        double s = 0;
        for (int d = 0; d < 64; ++d)
          s += (double)q[i * 64 + d] * k[j * 64 + d];
        p[j] = s / 8.0;
        if (p[j] > best)
          best = p[j];
      }
      for (int j = 0; j < seq; ++j) {
        p[j] = exp(p[j] - best);
        sum += p[j];
      }
      for (int d = 0; d < 64; ++d) {
        double acc = 0;
        for (int j = 0; j < seq; ++j)
          acc += p[j] * v[j * 64 + d];
        out[((long)h * seq + i) * 64 + d] = (float)(acc / sum);
      }
    }
  }
  free(p);
}
