/* kb_8_argmax_indices: the index of each row's largest value, int64, the first one on ties. */
void kb_8_argmax_indices(const float *x, long long *out) {
  for (int r = 0; r < 16; ++r) {
    int best = 0;
    for (int c = 1; c < 256; ++c)
      if (x[r * 256 + c] > x[r * 256 + best])
        best = c;
    out[r] = best;
  }
}
