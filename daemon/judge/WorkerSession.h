// The judge's handle on one worker: starts it in the sandbox with its end of
// the socket, exchanges the protocol's messages with a deadline on each, and
// tells how the worker let it down when it did (died, went silent, said
// something it was not asked). Knows nothing of tasks or verdicts.
#pragma once

#include "WorkerProtocol.h"
#include "cudaperf/daemon/Sandbox.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf::judge {

struct WorkerOptions {
  std::filesystem::path program; // cudaperf-worker
  bool cuda = true;              // --device cuda (or none: host memory only, no GPU)
  sandbox::Limits limits;        // isolation and resource limits; the wall clock is the judge's
  std::vector<std::pair<std::string, std::string>> environment;
};

enum class WorkerFault { None, Died, Silent, Violation };

// What the judge does when a call's work is over: `atEnd` at once (its probe
// kernels, once the stop is sent and before it is confirmed), `whileStopped`
// with every process of the worker stopped (the rest of the probes, the
// output check), before the worker may run again to send its reply; then
// `afterReply`, with the worker stopped again.
struct CallEnd {
  std::function<void()> atEnd, whileStopped, afterReply;
};

class WorkerSession {
public:
  // Started, not yet Ready; null with `error` set when the sandbox refused.
  static std::unique_ptr<WorkerSession> start(const WorkerOptions &options, std::string &error);
  ~WorkerSession();

  // Waits for Ready (the worker's trusted start); once answered, returns the
  // same at once. False: fault() and message() say why, or the worker
  // reported a problem (a machine without a usable GPU).
  bool awaitReady(double deadline, bool faultOnTimeout = true);
  // A worker still starting (making its CUDA context; no candidate code in
  // it yet) is stopped while another worker's calls are timed, so that its
  // start-up neither runs beside them nor holds them up until it is done;
  // resumeStart() continues it (awaitReady does too). True: it was stopped.
  bool pauseIfStarting();
  void resumeStart();

  // Sends `request` (numbered here) and waits for the reply of op `expect`
  // with the same number until `deadline` (steady-clock seconds). Anything
  // waiting on the socket before the request is a violation: a reply the
  // judge did not ask for. The round trip is lastRoundTripMs().
  // With `end` (a call: Empty or Call), the call is over at the doorbell when
  // it rings (the round trip ends there; `end` runs with the worker stopped,
  // then it sends its reply), else at the reply (`end` runs after it).
  bool exchange(worker::Message request, worker::Op expect, worker::Message &reply, double deadline,
                const std::vector<int> &descriptors = {}, const CallEnd *end = nullptr);
  double lastRoundTripMs() const { return roundTripMs_; }
  bool lastEndedByDoorbell() const { return endedByDoorbell_; }

  // The doorbell page for the Preflight (the session keeps it mapped; -1
  // where no memfd can be made), and the worker's word that its GPU can ring
  // it (before any candidate code).
  int doorbellDescriptor();
  void enableDoorbell(bool spin) {
    doorbellEnabled_ = doorbell_ != nullptr;
    doorbellSpins_ = spin;
  }
  bool doorbellEnabled() const { return doorbellEnabled_; }
  // From now on the worker is stopped between its replies and the judge's
  // requests (after its trusted start: the CUDA driver's start-up threads
  // need not be).
  void freezeBetweenRequests() { freezeBetweenRequests_ = true; }

  // CPU seconds of the worker's whole process tree so far.
  double cpuSeconds() const;
  pid_t treeRoot() const;

  WorkerFault fault() const { return fault_; }
  // What the worker said in Ready (before any candidate): its GPU's UUID.
  const std::string &readyText() const { return readyText_; }
  const std::string &message() const { return message_; }

  // Kills the worker (if it still runs) and waits until its whole tree is gone.
  const sandbox::Result &finish();
  // Kills a worker that did its work, without waiting for its tree (a CUDA
  // context takes a while to tear down): finish() later reaps it.
  void retire();
  bool faulted() const { return fault_ != WorkerFault::None || (process_ && process_->ended()); }
  // How it ran: isolation, how it ended, the tail of what it printed. With
  // `waitForEnd` false, as far as it is known now (a retiring worker).
  boost::json::object account(bool waitForEnd = true);

private:
  WorkerSession() = default;
  bool await(worker::Op expect, std::uint64_t sequence, worker::Message &reply, double deadline, bool faultOnTimeout);
  bool awaitRing(std::uint32_t value, double deadline);
  void freeze();
  void fail(WorkerFault fault, std::string message);

  std::unique_ptr<sandbox::Process> process_;
  int socket_ = -1;
  std::uint64_t sequence_ = 0;
  double roundTripMs_ = 0;
  bool endedByDoorbell_ = false, doorbellEnabled_ = false, doorbellSpins_ = false;
  int doorbellFd_ = -1;
  std::uint32_t *doorbell_ = nullptr;
  std::vector<pid_t> frozenTree_, pausedTree_;
  int ready_ = 0; // 1: Ready received; -1: the worker reported a problem
  bool freezeBetweenRequests_ = false, frozen_ = false, paused_ = false;
  WorkerFault fault_ = WorkerFault::None;
  std::string message_, readyText_;
};

double steadySeconds();

} // namespace cudaperf::judge
