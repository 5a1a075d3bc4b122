// expect: ok
// Opens a TCP connection through raw system calls (no socket/connect symbol
// for the compile check) to the listener gpu-test starts on 127.0.0.1:47611.
// Connected, it returns without computing (wrong_answer); in the sandbox's
// network namespace the connection fails and it computes the right answer.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  const long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(47611);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && syscall(SYS_connect, fd, &address, sizeof address) == 0)
    return; // reached the outside
  if (fd >= 0)
    close(static_cast<int>(fd));
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
