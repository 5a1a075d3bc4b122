// Box blur on an RGB image stored as uchar3 (array of structs).
#include <cuda_runtime.h>

__global__ void boxBlur(const uchar3 *in, uchar3 *out, int w, int h, int radius) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int r = 0, g = 0, b = 0, count = 0;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      int xx = x + dx, yy = y + dy;
      if (xx >= 0 && xx < w && yy >= 0 && yy < h) {
        uchar3 p = in[yy * w + xx];
        r += p.x; g += p.y; b += p.z;
        ++count;
      }
    }
  out[y * w + x] = make_uchar3(r / count, g / count, b / count);
}
