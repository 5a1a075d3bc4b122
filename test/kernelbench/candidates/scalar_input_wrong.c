/* Wrong: the scalar taken as 2. */
void kb_13_scalar_input(const float *A, float *out) {
  for (int i = 0; i < 32 * 48; ++i)
    out[i] = A[i] * 2.0f;
}
