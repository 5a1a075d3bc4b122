// The system-call filter a worker installs on itself after its trusted
// start (CUDA context, mapped buffers) and before it loads the candidate:
// the candidate may start threads, but not processes, programs, sockets,
// debuggers of other processes, new namespaces or io_uring (whose
// operations a filter cannot see). Denied calls fail with EPERM (clone3
// with ENOSYS, so the C library falls back to clone for its threads). It
// binds every thread of the process, those started before it too.
#pragma once

#include <string>

namespace cudaperf {

// "" once installed, otherwise why not (the worker then refuses the candidate).
std::string installCandidateFilter();

} // namespace cudaperf
