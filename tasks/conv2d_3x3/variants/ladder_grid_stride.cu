// A flat 1-D grid-stride loop over the pixels (fixed grid of 1056 x 256):
// consecutive threads take consecutive pixels of a row; the filter in
// registers.
__global__ void convGridStride(const float *__restrict__ img, const float *__restrict__ w, float *__restrict__ out,
                               int h, int width) {
  float k[9];
#pragma unroll
  for (int t = 0; t < 9; ++t)
    k[t] = w[t];
  const int total = h * width;
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < total; p += blockDim.x * gridDim.x) {
    const int i = p / width, j = p % width;
    float sum = 0.0f;
#pragma unroll
    for (int a = -1; a <= 1; ++a)
#pragma unroll
      for (int b = -1; b <= 1; ++b)
        if (i + a >= 0 && i + a < h && j + b >= 0 && j + b < width)
          sum += k[(a + 1) * 3 + b + 1] * img[(long)(i + a) * width + j + b];
    out[p] = sum;
  }
}

extern "C" void conv2d_3x3(const float *img, const float *w, float *out, int h, int width) {
  convGridStride<<<1056, 256>>>(img, w, out, h, width);
}
