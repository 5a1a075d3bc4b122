void heat_2d(const float *u, float *out, int rows, int cols) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      long at = (long)i * cols + j;
      if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
        out[at] = u[at];
      else
        out[at] = u[at] + 0.2f * (u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1] - 4.0f * u[at]);
    }
}
