/* kb_3_matmul: A 64 x 96 times B 96 x 48. */
void kb_3_matmul(const float *A, const float *B, float *out) {
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 48; ++j) {
      float s = 0;
      for (int k = 0; k < 96; ++k)
        s += A[i * 96 + k] * B[k * 48 + j];
      out[i * 48 + j] = s;
    }
}
