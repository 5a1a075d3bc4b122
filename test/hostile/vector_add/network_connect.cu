// expect: rejected
// Opens a socket through the C library: socket/connect are forbidden symbols.
#include <netinet/in.h>
#include <sys/socket.h>

extern "C" void vector_add(const float *, const float *, float *, int) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address);
}
