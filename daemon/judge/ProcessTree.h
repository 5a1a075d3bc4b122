// CPU time of a worker's whole process tree, read from the judge's side:
// the worker cannot hide or forge it.
#pragma once

#include <sys/types.h>

namespace cudaperf::judge {

// User + system CPU seconds of `root` and every process below it (each
// process's CPU clock counts all its threads, ended ones included), as this
// process sees them. Processes that ended and were reaped are gone from the
// sum; the worker's system-call filter forbids creating them.
double processTreeCpuSeconds(pid_t root);

} // namespace cudaperf::judge
