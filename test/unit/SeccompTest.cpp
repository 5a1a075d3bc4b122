// The worker's system-call filter, tried from a throwaway child process (a
// filter cannot be taken off again): what a candidate could do from the
// worker's main thread, from a thread it starts, and from a thread that
// existed before the filter (the CUDA driver's), which it might divert.
#include "Seccomp.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// Exit codes of the child: which probe let it down.
enum Verdict : int {
  kAllRefused = 0,
  kNoFilter = 10,
  kSocketAllowed = 11,
  kForkAllowed = 12,
  kThreadFailed = 13,
  kAffinityAllowed = 14,
};

// Every CPU there is: the widest mask a candidate could ask for.
cpu_set_t everyCpu() {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    CPU_SET(cpu, &all);
  return all;
}

// A network socket, a new process and a move to other CPUs (out of the ones
// the daemon set apart for this worker's judge, onto another judge's or the
// compiles'): all must fail with EPERM.
int probe() {
  errno = 0;
  const long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
  if (fd >= 0 || errno != EPERM)
    return kSocketAllowed;
  errno = 0;
  const long child = syscall(SYS_fork);
  if (child == 0)
    _exit(0); // a fork got through: the parent reports it
  if (child > 0 || errno != EPERM) {
    if (child > 0)
      waitpid(static_cast<pid_t>(child), nullptr, 0);
    return kForkAllowed;
  }
  const cpu_set_t all = everyCpu();
  errno = 0;
  if (sched_setaffinity(0, sizeof all, &all) == 0 || errno != EPERM)
    return kAffinityAllowed;
  return kAllRefused;
}

struct Gate {
  int go[2] = {-1, -1};
  int result = -1;
};

void *waitThenProbe(void *argument) {
  auto *gate = static_cast<Gate *>(argument);
  char byte;
  if (read(gate->go[0], &byte, 1) != 1)
    gate->result = kThreadFailed;
  else
    gate->result = probe();
  return nullptr;
}

void *probeNow(void *argument) {
  static_cast<Gate *>(argument)->result = probe();
  return nullptr;
}

// Runs `body` in a forked child and returns its exit code.
template <typename Body> int inChild(Body body) {
  const pid_t child = fork();
  if (child == 0)
    _exit(body());
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(WorkerFilter, RefusesSocketsAndProcessesOnTheThreadThatInstalledIt) {
  EXPECT_EQ(inChild([] {
              if (!cudaperf::installCandidateFilter().empty())
                return static_cast<int>(kNoFilter);
              return probe();
            }),
            kAllRefused);
}

TEST(WorkerFilter, BindsAThreadStartedBeforeIt) {
  EXPECT_EQ(inChild([] {
              Gate gate;
              pthread_t early;
              if (pipe(gate.go) != 0 || pthread_create(&early, nullptr, waitThenProbe, &gate) != 0)
                return static_cast<int>(kThreadFailed);
              const bool installed = cudaperf::installCandidateFilter().empty();
              if (write(gate.go[1], "x", 1) != 1)
                return static_cast<int>(kThreadFailed);
              pthread_join(early, nullptr);
              return installed ? gate.result : static_cast<int>(kNoFilter);
            }),
            kAllRefused);
}

TEST(WorkerFilter, LetsTheCandidateStartThreadsThatAreBoundToo) {
  EXPECT_EQ(inChild([] {
              if (!cudaperf::installCandidateFilter().empty())
                return static_cast<int>(kNoFilter);
              Gate gate;
              pthread_t late;
              if (pthread_create(&late, nullptr, probeNow, &gate) != 0)
                return static_cast<int>(kThreadFailed);
              pthread_join(late, nullptr);
              return gate.result;
            }),
            kAllRefused);
}

TEST(WorkerFilter, LeavesTheProcessWithoutItUntouched) {
  // The probe itself must see the difference: without the filter a socket
  // opens and the CPUs can be changed.
  EXPECT_EQ(inChild([] {
              const int fd = socket(AF_INET, SOCK_STREAM, 0);
              if (fd < 0)
                return 1;
              close(fd);
              const cpu_set_t all = everyCpu();
              return sched_setaffinity(0, sizeof all, &all) == 0 ? 0 : 2;
            }),
            0);
}

} // namespace
