/* kb_2_sum_over_dim: x 8 x 64 x 128, summed over dim 1 (keepdim): out 8 x 1 x 128. */
void kb_2_sum_over_dim(const float *x, float *out) {
  for (int b = 0; b < 8; ++b)
    for (int c = 0; c < 128; ++c) {
      double s = 0;
      for (int r = 0; r < 64; ++r)
        s += x[(b * 64 + r) * 128 + c];
      out[b * 128 + c] = (float)s;
    }
}
