#include <math.h>

void cross_entropy(const float *logits, const int *labels, float *loss, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *row = logits + (long)r * cols;
    double best = row[0];
    for (int j = 1; j < cols; ++j)
      if (row[j] > best)
        best = row[j];
    double sum = 0;
    for (int j = 0; j < cols; ++j)
      sum += exp(row[j] - best);
    loss[r] = (float)(best + log(sum) - row[labels[r] % cols]);
  }
}
