// Sliding-window blur: a thread owns one column of a 32-row strip, keeps the
// last five horizontal 5-sums in registers and moves down one row per step
// (one new horizontal sum, i.e. 5 byte loads, per output pixel instead of
// 25).
#define STRIP 32

__device__ __forceinline__ int hsum5(const unsigned char *__restrict__ img, int r, int h, int width, int c0, int c1,
                                     int c2, int c3, int c4) {
  const unsigned char *row = img + (long)min(max(r, 0), h - 1) * width;
  return row[c0] + row[c1] + row[c2] + row[c3] + row[c4];
}

__global__ void blur_stream(const unsigned char *__restrict__ img, unsigned char *__restrict__ out, int h,
                            int width) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= width)
    return;
  const int c0 = max(j - 2, 0), c1 = max(j - 1, 0), c2 = j, c3 = min(j + 1, width - 1), c4 = min(j + 2, width - 1);
  const int r0 = blockIdx.y * STRIP, r1 = min(r0 + STRIP, h);
  int s0 = hsum5(img, r0 - 2, h, width, c0, c1, c2, c3, c4);
  int s1 = hsum5(img, r0 - 1, h, width, c0, c1, c2, c3, c4);
  int s2 = hsum5(img, r0, h, width, c0, c1, c2, c3, c4);
  int s3 = hsum5(img, r0 + 1, h, width, c0, c1, c2, c3, c4);
  for (int r = r0; r < r1; ++r) {
    const int s4 = hsum5(img, r + 2, h, width, c0, c1, c2, c3, c4);
    out[(long)r * width + j] = (s0 + s1 + s2 + s3 + s4) / 25;
    s0 = s1;
    s1 = s2;
    s2 = s3;
    s3 = s4;
  }
}

extern "C" void image_blur(const unsigned char *img, unsigned char *out, int h, int width) {
  dim3 grid((width + 127) / 128, (h + STRIP - 1) / STRIP);
  blur_stream<<<grid, 128>>>(img, out, h, width);
}
