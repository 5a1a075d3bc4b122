// CPU time of a worker's whole process tree, read from the judge's side:
// the worker cannot hide or forge it.
#pragma once

#include <sys/types.h>

#include <vector>

namespace cudaperf::judge {

// User + system CPU seconds of `root` and every process below it (each
// process's CPU clock counts all its threads, ended ones included), as this
// process sees them. Processes that ended and were reaped are gone from the
// sum; the worker's system-call filter forbids creating them.
double processTreeCpuSeconds(pid_t root);

// `root` and every process below it.
std::vector<pid_t> processTree(pid_t root);

// Stops (SIGSTOP) or continues (SIGCONT) every process below `root` (not
// `root`, the sandbox's init). Stopping waits, briefly, until every thread is
// stopped: from then on no thread of the worker can run, launch or write.
void freezeBelow(pid_t root);
void thawBelow(pid_t root);

} // namespace cudaperf::judge
