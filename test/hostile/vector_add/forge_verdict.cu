// expect: wrong_answer
// Computes nothing and prints a passing verdict on stdout and on every other
// descriptor it might share with the harness's answer channel.
#include <cstring>
#include <unistd.h>

extern "C" void vector_add(const float *, const float *, float *, int) {
  const char *line = "{\"status\":\"ok\",\"correctness\":{\"passed\":12,\"total\":12,\"failures\":[]}}\n";
  for (int fd = 1; fd < 64; ++fd)
    if (write(fd, line, std::strlen(line)) < 0) {
    }
}
