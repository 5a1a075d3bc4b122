// A judge that outlives its batches: the daemon keeps one per GPU and feeds
// it one request at a time over a socket, so that the judge's CUDA context,
// its spare workers and each task's GPU baseline timing are made once and
// not once per batch (on the H200 those were 0.3 s of the 0.85 s the GPU was
// held per evaluation). Every candidate still runs in a fresh single-use
// worker; only the trusted judge lives on. It is started again after it
// failed, went silent or answered maxEvaluations requests.
#pragma once

#include "cudaperf/daemon/JudgeRun.h"
#include "cudaperf/daemon/Sandbox.h"

#include <boost/json/object.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cudaperf {

class JudgeSession {
public:
  explicit JudgeSession(JudgeOptions options, std::size_t maxEvaluations = 512);
  ~JudgeSession();
  JudgeSession(const JudgeSession &) = delete;
  JudgeSession &operator=(const JudgeSession &) = delete;

  // The contract of runJudge: one answer per candidate, in order, each with
  // the worker's "sandbox" account and the judge's "judge" account; an
  // evaluation the judge did not answer gets verdictWithoutAnswer (never the
  // candidate's) and a fresh judge takes the rest.
  std::vector<boost::json::object> run(const JudgeJob &job);
  // Judges that ended early or went silent (each then replaced by a fresh one).
  std::size_t failures() const { return failures_; }

private:
  bool start(std::string &error);
  void stop();
  bool send(const std::string &bytes);
  // The next line the judge sends, until `deadline` (steady seconds); false
  // when it ended, closed the channel or the deadline passed.
  bool readLine(std::string &line, double deadline);
  boost::json::object runningAccount() const; // the "judge" field of an answer it gave
  boost::json::object evaluate(const JudgeJob &job, const JudgeCandidate &candidate);

  JudgeOptions options_;
  std::size_t maxEvaluations_;
  std::unique_ptr<sandbox::Process> process_;
  int channel_ = -1;
  std::string received_; // bytes after the last line taken
  bool exiting_ = false; // its last answer said it exits (its GPU context failed)
  std::size_t evaluations_ = 0, started_ = 0, failures_ = 0;
  double startedAt_ = 0;
};

} // namespace cudaperf
