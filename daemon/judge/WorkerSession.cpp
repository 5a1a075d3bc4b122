#include "WorkerSession.h"

#include "ProcessTree.h"

#include <boost/json.hpp>

#include <chrono>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace cudaperf::judge {

namespace json = boost::json;
using worker::Message;
using worker::Op;

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

bool WorkerSession::awaitReady(double deadline, bool faultOnTimeout) {
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
                             const std::vector<int> &descriptors) {
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
  const auto start = std::chrono::steady_clock::now();
  if (frozen_) { // the worker ran nothing since its last reply; now it may
    thawBelow(process_->treeRoot());
    frozen_ = false;
  }
  if (!worker::sendMessage(socket_, request, descriptors)) {
    process_->poll({}, 200);
    fail(process_->ended() ? WorkerFault::Died : WorkerFault::Violation, "the worker's socket is closed");
    return false;
  }
  const bool answered = await(expect, request.sequence, reply, deadline, true);
  roundTripMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Between its reply and the next request the worker is stopped: a thread
  // that goes on computing, writing outputs or launching work after
  // "returned" cannot, while the judge checks the call.
  if (answered && freezeBetweenRequests_) {
    freezeBelow(process_->treeRoot());
    frozen_ = true;
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
