static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < width; ++j) {
      int sum = 0;
      for (int a = -2; a <= 2; ++a)
        for (int b = -2; b <= 2; ++b)
          sum += img[(long)clampi(i + a, 0, h - 1) * width + clampi(j + b, 0, width - 1)];
      out[(long)i * width + j] = (unsigned char)(sum / 25);
    }
}
