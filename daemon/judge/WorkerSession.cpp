#include "WorkerSession.h"

#include "ProcessTree.h"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <random>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

namespace cudaperf::judge {

namespace json = boost::json;
using worker::Message;
using worker::Op;

namespace {
// A call's ring token: random, never 0 (the page's first value) nor what the
// page holds now, so that no earlier call's ring, nor one a candidate wrote
// ahead, matches it.
std::uint32_t freshRing(const std::uint32_t *page) {
  static std::random_device entropy;
  std::uint32_t ring;
  do
    ring = entropy();
  while (ring == 0 || (page && ring == __atomic_load_n(page, __ATOMIC_ACQUIRE)));
  return ring;
}
} // namespace

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::unique_ptr<WorkerSession> WorkerSession::start(const WorkerOptions &options, std::string &error) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return nullptr;
  }
  sandbox::Request request;
  request.argv = {std::filesystem::absolute(options.program).string(), "--device", options.cuda ? "cuda" : "none"};
  request.environment = options.environment;
  request.passDescriptors = {ends[1]};
  std::unique_ptr<WorkerSession> session(new WorkerSession());
  session->process_ = sandbox::spawn(request, options.limits, error);
  close(ends[1]);
  if (!session->process_) {
    close(ends[0]);
    return nullptr;
  }
  session->socket_ = ends[0];
  return session;
}

WorkerSession::~WorkerSession() {
  finish();
  if (socket_ >= 0)
    close(socket_);
  if (doorbellFd_ >= 0)
    close(doorbellFd_);
  if (doorbell_)
    munmap(doorbell_, worker::kDoorbellBytes);
}

int WorkerSession::doorbellDescriptor() {
  if (doorbellFd_ >= 0)
    return doorbellFd_;
  const int fd = memfd_create("cudaperf-doorbell", MFD_CLOEXEC);
  void *page = fd >= 0 && ftruncate(fd, worker::kDoorbellBytes) == 0
                   ? mmap(nullptr, worker::kDoorbellBytes, PROT_READ, MAP_SHARED, fd, 0)
                   : MAP_FAILED;
  if (page == MAP_FAILED) {
    if (fd >= 0)
      close(fd);
    return -1; // no doorbell: every call ends at the reply
  }
  doorbell_ = static_cast<std::uint32_t *>(page);
  doorbellFd_ = fd;
  return fd;
}

// Spins on the doorbell (a core of the judge's for the call's length: the
// wake-up it saves is the point), looking at the socket now and then: a
// reply (or the socket's end) before the ring means it will not ring. Past
// 100 ms it naps between looks, a call that long loses nothing by it; so it
// does from the start without a GPU (host memory: tests on small machines,
// where a spinning judge would take a core from the worker it accounts).
bool WorkerSession::awaitRing(std::uint32_t value, double deadline) {
  const double napAfter = steadySeconds() + (doorbellSpins_ ? 0.1 : 0.0);
  for (unsigned i = 0;; ++i) {
    if (__atomic_load_n(doorbell_, __ATOMIC_ACQUIRE) == value)
      return true;
    if (i % 32 == 0) {
      // The sandbox's poll drains the worker's output (a worker blocked on a
      // full pipe would never ring) and enforces its cap.
      if (!process_->poll({socket_}, 0).empty() || process_->ended() || process_->killed())
        return false;
      const double now = steadySeconds();
      if (now > deadline)
        return false;
      if (now > napAfter)
        usleep(50);
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

void WorkerSession::freeze() {
  frozenTree_ = freezeBelow(process_->treeRoot());
  frozen_ = true;
}

void WorkerSession::fail(WorkerFault fault, std::string message) {
  if (fault_ == WorkerFault::None) {
    fault_ = fault;
    message_ = std::move(message);
  }
}

pid_t WorkerSession::treeRoot() const { return process_ ? process_->treeRoot() : -1; }

double WorkerSession::cpuSeconds() const { return process_ ? processTreeCpuSeconds(process_->treeRoot()) : 0; }

bool WorkerSession::await(Op expect, std::uint64_t sequence, Message &reply, double deadline, bool faultOnTimeout) {
  for (;;) {
    if (fault_ != WorkerFault::None)
      return false;
    const double left = deadline - steadySeconds();
    if (left <= 0) {
      if (faultOnTimeout)
        fail(WorkerFault::Silent, "no answer within the time limit");
      return false;
    }
    const auto ready = process_->poll({socket_}, static_cast<int>(std::min(left * 1000 + 1, 100.0)));
    if (!ready.empty()) {
      // Descriptors a worker sends are closed unread: the judge keeps nothing of its.
      if (!worker::receiveMessage(socket_, reply, nullptr, MSG_DONTWAIT)) {
        // End of stream: the worker closed its socket or died; let the status say which.
        if (!process_->killed())
          process_->awaitEnd(0.5);
        const bool gone = process_->ended() || process_->killed();
        fail(gone ? WorkerFault::Died : WorkerFault::Violation,
             gone ? "the worker ended" : "the worker closed or garbled its socket");
        return false;
      }
      if (reply.op != expect || reply.sequence != sequence) {
        fail(WorkerFault::Violation,
             "the worker answered out of turn (message " + std::to_string(static_cast<unsigned>(reply.op)) + ")");
        return false;
      }
      return true;
    }
    if (process_->ended() || process_->killed()) {
      fail(WorkerFault::Died, "the worker ended");
      return false;
    }
  }
}

bool WorkerSession::pauseIfStarting() {
  if (paused_ || ready_ != 0 || !process_ || process_->ended())
    return false;
  // Ready waiting on the socket: started (a Ready sent from here on finds it stopped, idle: harmless).
  pollfd pending{socket_, POLLIN, 0};
  if (::poll(&pending, 1, 0) > 0)
    return false;
  pausedTree_ = freezeTree(process_->treeRoot());
  paused_ = true;
  return true;
}

void WorkerSession::resumeStart() {
  if (!paused_)
    return;
  signalEach(pausedTree_, SIGCONT);
  pausedTree_.clear();
  paused_ = false;
}

bool WorkerSession::awaitReady(double deadline, bool faultOnTimeout) {
  resumeStart();
  if (ready_ != 0)
    return ready_ > 0;
  Message reply;
  if (!await(Op::Ready, 0, reply, deadline, faultOnTimeout))
    return false; // may be asked again while the deadline was only the caller's patience
  ready_ = reply.status == 0 ? 1 : -1;
  readyText_ = reply.text;
  if (reply.status != 0)
    message_ = reply.text;
  return ready_ > 0;
}

bool WorkerSession::exchange(Message request, Op expect, Message &reply, double deadline,
                             const std::vector<int> &descriptors, const CallEnd *end) {
  if (fault_ != WorkerFault::None)
    return false;
  // Nothing may be waiting: the worker speaks only when spoken to.
  pollfd pending{socket_, POLLIN, 0};
  if (::poll(&pending, 1, 0) > 0 && (pending.revents & POLLIN)) {
    Message stray;
    const bool whole = worker::receiveMessage(socket_, stray, nullptr, MSG_DONTWAIT);
    fail(WorkerFault::Violation,
         whole ? "the worker sent a message it was not asked for" : "the worker closed or garbled its socket");
    return false;
  }
  request.sequence = ++sequence_;
  const bool ringing = end && doorbellEnabled_;
  request.ring = ringing ? freshRing(doorbell_) : 0;
  // The clock starts when the worker can act on the request: a stopped
  // worker gets it while stopped and is continued after, so that none of
  // its threads (a candidate's spinning on the socket, say) sees it sooner
  // than the others.
  auto start = std::chrono::steady_clock::now();
  const bool wasFrozen = frozen_;
  const bool sent = worker::sendMessage(socket_, request, descriptors);
  if (wasFrozen) {
    start = std::chrono::steady_clock::now();
    signalEach(frozenTree_, SIGCONT);
    frozen_ = false;
  }
  if (!sent) {
    process_->poll({}, 200);
    fail(process_->ended() ? WorkerFault::Died : WorkerFault::Violation, "the worker's socket is closed");
    return false;
  }
  const auto since = [&start] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  endedByDoorbell_ = false;
  if (ringing && awaitRing(request.ring, deadline)) {
    // Over at the ring: stopped at once (the processes continued above), so
    // that work a candidate sets off after ringing early can neither run
    // unseen nor finish the outputs the judge now reads.
    roundTripMs_ = since();
    endedByDoorbell_ = true;
    // The stop goes out first (no thread of the worker's launches much after
    // the ring), then the judge's probes run (timed without waiting for the
    // stop to be confirmed: work that ends meanwhile is theirs to wait for),
    // then the stop is confirmed for every process.
    if (freezeBetweenRequests_)
      signalEach(frozenTree_, SIGSTOP);
    if (end->atEnd)
      end->atEnd();
    if (freezeBetweenRequests_)
      freeze();
    if (end->whileStopped)
      end->whileStopped();
    if (frozen_) {
      signalEach(frozenTree_, SIGCONT);
      frozen_ = false;
    }
    const bool answered = await(expect, request.sequence, reply, deadline, true);
    if (answered && freezeBetweenRequests_)
      freeze();
    if (answered && end->afterReply)
      end->afterReply();
    return answered;
  }
  const bool answered = await(expect, request.sequence, reply, deadline, true);
  roundTripMs_ = since();
  // Between its reply and the next request the worker is stopped: a thread
  // that goes on computing, writing outputs or launching work after
  // "returned" cannot, while the judge checks the call.
  if (answered && freezeBetweenRequests_)
    freeze();
  if (answered && end) {
    if (end->atEnd)
      end->atEnd();
    if (end->whileStopped)
      end->whileStopped();
  }
  return answered;
}

const sandbox::Result &WorkerSession::finish() {
  retire();
  static const sandbox::Result none;
  return process_ ? process_->finish() : none; // waits until the whole tree is gone
}

void WorkerSession::retire() {
  // Killed, not asked: a worker whose candidate holds a lock the exit path
  // needs (stdio's, say) would otherwise stay, with the task's buffers mapped.
  if (process_ && !process_->ended())
    process_->kill(fault_ == WorkerFault::None ? sandbox::Outcome::Retired : sandbox::Outcome::WallTimeout);
}

json::object WorkerSession::account(bool waitForEnd) {
  // A retiring worker: as far as it is known now (it was ended by the judge
  // after its evaluation); otherwise once its whole tree is gone.
  const bool retiring = !waitForEnd && process_;
  const sandbox::Result &run = retiring ? process_->account() : finish();
  json::object account{{"outcome", retiring ? "retired" : sandbox::toString(run.outcome)}};
  if (!retiring) {
    account["exit_code"] = run.exitCode;
    account["signal"] = run.signal;
    account["wall_seconds"] = run.wallSeconds;
  }
  account["network_isolated"] = run.networkIsolated;
  account["processes_isolated"] = run.processesIsolated;
  account["filesystem_isolated"] = run.filesystemIsolated;
  account["privileges_dropped"] = run.privilegesDropped;
  account["note"] = run.note;
  account["stderr_tail"] = sandbox::printableTail(run.stderrText, 2000);
  return account;
}

} // namespace cudaperf::judge
