/* Wrong: reads the half buffers as float32 (a type confusion the half signature should prevent). */
void kb_12_half_precision(const float *x, float *out) {
  for (int i = 0; i < 64 * 64 / 2; ++i)
    out[i] = x[i] > 0 ? x[i] * 0.5f : 0;
}
