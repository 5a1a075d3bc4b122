/* kb_5_linear_gelu_scale: gelu(x W^T + b) * 0.5 + extra_bias; x 32 x 64, W 128 x 64 (exact GELU with erf). */
#include <math.h>
void kb_5_linear_gelu_scale(const float *x, const float *extra_bias, const float *w, const float *b, float *out) {
  for (int i = 0; i < 32; ++i)
    for (int o = 0; o < 128; ++o) {
      float s = b[o];
      for (int k = 0; k < 64; ++k)
        s += x[i * 64 + k] * w[o * 64 + k];
      out[i * 128 + o] = 0.5f * s * (1.0f + erff(s / sqrtf(2.0f))) * 0.5f + extra_bias[o];
    }
}
