/* Wrong: ignores the mask. */
#include <stdbool.h>
void kb_11_masked_cumsum(const float *x, const bool *mask, float *out) {
  (void)mask;
  for (int r = 0; r < 8; ++r) {
    float sum = 0;
    for (int c = 0; c < 300; ++c) {
      sum += x[r * 300 + c];
      out[r * 300 + c] = sum;
    }
  }
}
