/* kb_10_cross_entropy: mean over the batch of logsumexp(row) - row[target]. */
#include <math.h>
void kb_10_cross_entropy(const float *predictions, const long long *targets, float *out) {
  double total = 0;
  for (int b = 0; b < 64; ++b) {
    const float *row = predictions + b * 10;
    double top = row[0], sum = 0;
    for (int c = 1; c < 10; ++c)
      top = row[c] > top ? row[c] : top;
    for (int c = 0; c < 10; ++c)
      sum += exp(row[c] - top);
    total += top + log(sum) - row[targets[b]];
  }
  out[0] = (float)(total / 64);
}
