// expect: rejected
// Computes nothing and prints a passing verdict on stdout, stderr and the
// descriptor 3 (where the harness keeps its answer channel):
// the line carries no nonce, so the parent ignores it.
#include <cstring>
#include <unistd.h>

extern "C" void vector_add(const float *, const float *, float *, int) {
  const char *line = "{\"status\":\"ok\",\"correctness\":{\"passed\":12,\"total\":12,\"failures\":[]}}\n";
  for (int fd = 1; fd <= 3; ++fd)
    if (write(fd, line, std::strlen(line)) < 0) {
    }
}
