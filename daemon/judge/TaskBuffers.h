// Every buffer of one task the judge works with: per pointer argument a
// shared buffer the worker maps (canary bands around the data, as large as
// the argument's largest size), the pristine inputs the judge drew, and the
// expected outputs. Buffers live across the candidates of a task; each
// worker maps them afresh and each call starts from a known state.
#pragma once

#include "JudgeMemory.h"
#include "WorkerProtocol.h"
#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/EntryCall.h"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace cudaperf::judge {

// What the judge found after a call: nothing (passed), or the first reason.
struct CallCheck {
  std::string reason;
  boost::json::object failure; // mismatch details for the feedback
  double maxAbsError = 0;
  double maxRatio = 0; // of the outputs: largest error over its allowance
  bool passed() const { return reason.empty(); }
};

class TaskBuffers {
public:
  TaskBuffers(const TaskSpec &task, Memory &memory);
  ~TaskBuffers();
  TaskBuffers(const TaskBuffers &) = delete;

  Memory &memory() { return memory_; }
  // The shared buffers, in argument order: what the worker maps.
  std::vector<int> descriptors() const;
  worker::Message mapMessage() const;

  // Every byte of every shared buffer back to canary (a new worker's start).
  void resetCanaries();
  // Fresh inputs for one call: stream and trial as the trusted side draws them;
  // with a `secret`, from the keyed generator (the timed calls: InputDraw.h).
  void drawInputs(const SizeBinding &sizes, std::uint64_t stream, std::size_t trial, std::uint64_t secret = 0);
  // Expected outputs of one correctness test, from the reference's blob.
  void loadExpected(const std::string &blob, std::size_t &offset, const SizeBinding &sizes);
  // Expected outputs from a trusted library run by the judge on its own copy
  // of the inputs: the GPU baseline (pointers in the task's memory), or, in
  // device memory mode without a baseline, the C reference on host copies.
  void runOracle(EntryFunction entry, const SizeBinding &sizes);
  void runHostReference(EntryFunction entry, const SizeBinding &sizes);
  // The shared buffers for a call: inputs copied in, outputs unwritten,
  // everything after the data canary again.
  void prepareCall(const SizeBinding &sizes);
  worker::Message callMessage(const SizeBinding &sizes, std::uint32_t flags) const;
  // Right before a call: every out buffer still holds the judge's 0xFF (no
  // work of the worker's, set off by the judge's own writes, ran ahead).
  bool outputsUnwritten(const SizeBinding &sizes);
  // After the call: canaries, unchanged inputs, outputs within tolerance.
  CallCheck verify(const SizeBinding &sizes, bool benchmarkTolerance);

private:
  struct Argument {
    bool pointer = false;
    SharedBuffer shared;
    unsigned char *input = nullptr;    // in, inout: the pristine draw
    unsigned char *expected = nullptr; // out, inout
    std::uint64_t dirtyEnd = 0;        // shared bytes past the band that may not be canary
  };
  std::uint64_t bytesOf(std::size_t argument, const SizeBinding &sizes) const;
  void releaseAll();
  const TaskSpec &task_;
  Memory &memory_;
  std::vector<Argument> arguments_;
};

} // namespace cudaperf::judge
