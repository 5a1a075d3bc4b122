// expect: runtime_error
// Writes 10 GB to stdout: the output cap stops the run long before.
#include <cstdio>
#include <cstring>

extern "C" void vector_add(const float *, const float *, float *, int) {
  static char block[1 << 20];
  std::memset(block, 'x', sizeof block);
  for (int i = 0; i < 10240; ++i)
    std::fwrite(block, 1, sizeof block, stdout);
}
