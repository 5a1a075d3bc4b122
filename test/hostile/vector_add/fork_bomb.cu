// expect: timeout
// A fork bomb through the raw system call (no fork symbol for the compile
// check to see): the process limit stops the growth, the wall-clock limit
// ends the run and the PID namespace takes every process with it.
#include <sys/syscall.h>
#include <unistd.h>

extern "C" void vector_add(const float *, const float *, float *, int) {
  for (;;)
    syscall(SYS_fork);
}
