/* Wrong: a threshold of 0.05 instead of 0. */
void kb_1_relu(const float *x, float *out) {
  for (int i = 0; i < 16 * 1024; ++i)
    out[i] = x[i] > 0.05f ? x[i] : 0;
}
