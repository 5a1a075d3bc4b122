/* kb_4_conv2d: x 2 x 3 x 16 x 16, weight 8 x 3 x 3 x 3, bias 8, padding 1: out 2 x 8 x 16 x 16. */
void kb_4_conv2d(const float *x, const float *w, const float *bias, float *out) {
  for (int n = 0; n < 2; ++n)
    for (int o = 0; o < 8; ++o)
      for (int y = 0; y < 16; ++y)
        for (int xx = 0; xx < 16; ++xx) {
          float s = 0; /* wrong: the bias is left out */ (void)bias;
          for (int c = 0; c < 3; ++c)
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 3; ++kx) {
                const int iy = y + ky - 1, ix = xx + kx - 1;
                if (iy >= 0 && iy < 16 && ix >= 0 && ix < 16)
                  s += x[((n * 3 + c) * 16 + iy) * 16 + ix] * w[((o * 3 + c) * 3 + ky) * 3 + kx];
              }
          out[((n * 8 + o) * 16 + y) * 16 + xx] = s;
        }
}
