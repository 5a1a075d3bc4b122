void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < width; ++j) {
      float sum = 0.0f;
      for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b)
          if (i + a >= 0 && i + a < h && j + b >= 0 && j + b < width)
            sum += w[(a + 1) * 3 + b + 1] * img[(long)(i + a) * width + j + b];
      out[(long)i * width + j] = sum;
    }
}
