/* kb_11_masked_cumsum: running sum along each row of x where the byte mask is set. */
#include <stdbool.h>
void kb_11_masked_cumsum(const float *x, const bool *mask, float *out) {
  for (int r = 0; r < 8; ++r) {
    float sum = 0;
    for (int c = 0; c < 300; ++c) {
      sum += mask[r * 300 + c] ? x[r * 300 + c] : 0.0f;
      out[r * 300 + c] = sum;
    }
  }
}
