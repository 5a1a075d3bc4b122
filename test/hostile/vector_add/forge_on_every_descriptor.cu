// expect: rejected
// class: 8 forging the answer channel
// Computes nothing; writes a passing verdict (a JSON line, and a message the
// shape of the judge protocol's "returned") to every descriptor it has, in
// the hope that one of them is the answer channel.
#include <cstring>
#include <unistd.h>

extern "C" void vector_add(const float *, const float *, float *, int) {
  const char *line = "{\"status\":\"ok\",\"correctness\":{\"passed\":13,\"total\":13,\"failures\":[]},"
                     "\"timing\":{\"median_ms\":0.001}}\n";
  unsigned char message[1300] = {};
  const unsigned magic = 0xC0DA7E57u, returned = 10;
  std::memcpy(message, &magic, 4);
  std::memcpy(message + 4, &returned, 4);
  for (int fd = 0; fd < 64; ++fd) {
    if (write(fd, line, std::strlen(line)) < 0) {
    }
    if (write(fd, message, sizeof message) < 0) {
    }
  }
}
