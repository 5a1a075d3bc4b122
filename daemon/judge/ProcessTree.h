// CPU time of a worker's whole process tree, read from the judge's side:
// the worker cannot hide or forge it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cudaperf::judge {

// User + system CPU seconds of `root` and every process below it (each
// process's CPU clock counts all its threads, ended ones included), as this
// process sees them. Processes that ended and were reaped are gone from the
// sum; the worker's system-call filter forbids creating them.
double processTreeCpuSeconds(pid_t root);

// `root` and every process below it.
std::vector<pid_t> processTree(pid_t root);

// The CPU time of every thread of `root` and the processes below it, by
// thread id, with its name (comm): where a worker's CPU went (the driver's
// threads, CUPTI's, the candidate's), read from the scheduler's own
// nanosecond account (schedstat). Threads that ended are not in it.
struct ThreadCpu {
  pid_t tid = 0;
  std::string name;
  double ms = 0;
};
std::vector<ThreadCpu> threadCpuTimes(pid_t root);

// A process's or thread's name as an answer may carry it: every byte outside
// printable ASCII replaced by '?' (the worker chooses its names, and the
// judge's answer line must stay one valid JSON line).
std::string printableName(std::string name);

// Stops (SIGSTOP) every process below `root` (not `root`, the sandbox's
// init) and waits, briefly, until every thread is stopped: from then on no
// thread of the worker can run, launch or write. Returns the processes it
// stopped (signalEach continues them).
std::vector<pid_t> freezeBelow(pid_t root);
// Stops `root` (the sandbox's init of a worker still starting) and every
// process below it: each one seen is stopped and confirmed stopped (briefly
// waited for) before the tree is looked at again, since a process may fork
// between its signal and its stop; until a look finds no new one. Returns the
// processes it stopped, root first.
std::vector<pid_t> freezeTree(pid_t root);
// `signal` to each of `processes`, without looking for new ones or waiting:
// the judge continues a frozen tree and stops it again at the doorbell with
// the list it froze (the worker's system-call filter forbids new processes;
// freezeBelow after it finds any that came before the filter).
void signalEach(const std::vector<pid_t> &processes, int signal);

} // namespace cudaperf::judge
