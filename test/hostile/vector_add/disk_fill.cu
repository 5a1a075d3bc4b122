// expect: ok
// Fills every writable place it finds (its directory, /tmp, /dev/shm) with
// 16 MB files until a write fails, then computes the right answer. It ends
// (and passes) only because those places are small private tmpfs: on the
// machine's disk it would write until the wall-clock limit.
#include <cstdio>
#include <string>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static void fill(const std::string &directory) {
  static char block[1 << 20];
  for (int file = 0;; ++file) {
    std::FILE *out = std::fopen((directory + "/fill" + std::to_string(file)).c_str(), "wb");
    if (!out)
      return;
    bool full = false;
    for (int mb = 0; mb < 16 && !full; ++mb)
      full = std::fwrite(block, 1, sizeof block, out) != sizeof block;
    full |= std::fclose(out) != 0;
    if (full)
      return;
  }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  static bool filled = false;
  if (!filled) {
    for (const char *place : {".", "/tmp", "/dev/shm"})
      fill(place);
    filled = true;
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
