#include "TaskBuffers.h"

#include "cudaperf/daemon/TaskData.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

namespace cudaperf::judge {

namespace json = boost::json;

static_assert(worker::kMaxBuffers == kMaxEntryArguments, "a Call message carries every argument of an entry");

namespace {

bool isOutput(const ArgumentSpec &spec) { return spec.pointer && spec.intent != Intent::In; }
bool isInput(const ArgumentSpec &spec) { return spec.pointer && spec.intent != Intent::Out; }

json::value finiteOrNull(double value) { return std::isfinite(value) ? json::value(value) : json::value(nullptr); }

} // namespace

TaskBuffers::TaskBuffers(const TaskSpec &task, Memory &memory) : task_(task), memory_(memory) {
  std::vector<SizeBinding> bindings = task.correctnessSizes;
  bindings.push_back(task.benchmarkSize);
  try {
    for (const ArgumentSpec &spec : task.args) {
      Argument &argument = arguments_.emplace_back();
      argument.pointer = spec.pointer;
      if (!spec.pointer)
        continue;
      std::uint64_t largest = 0;
      for (const auto &binding : bindings)
        largest = std::max<std::uint64_t>(
            largest, static_cast<std::uint64_t>(evaluateSizeExpression(spec.size, binding)) * elementBytes(spec.type));
      argument.shared = memory.share(largest);
      if (isInput(spec))
        argument.input = memory.allocate(largest);
      if (isOutput(spec))
        argument.expected = memory.allocate(largest);
    }
  } catch (...) {
    releaseAll();
    throw;
  }
}

TaskBuffers::~TaskBuffers() { releaseAll(); }

void TaskBuffers::releaseAll() {
  for (Argument &argument : arguments_) {
    if (argument.shared.base)
      memory_.release(argument.shared);
    if (argument.input)
      memory_.free(argument.input);
    if (argument.expected)
      memory_.free(argument.expected);
    argument = {};
  }
  arguments_.clear();
}

std::uint64_t TaskBuffers::bytesOf(std::size_t argument, const SizeBinding &sizes) const {
  const ArgumentSpec &spec = task_.args[argument];
  return static_cast<std::uint64_t>(evaluateSizeExpression(spec.size, sizes)) * elementBytes(spec.type);
}

std::vector<int> TaskBuffers::descriptors() const {
  std::vector<int> fds;
  for (const Argument &argument : arguments_)
    if (argument.pointer)
      fds.push_back(argument.shared.fd);
  return fds;
}

worker::Message TaskBuffers::mapMessage() const {
  worker::Message message;
  message.op = worker::Op::Map;
  message.flags = memory_.device() ? worker::kDeviceMemory : worker::kHostMemory;
  for (const Argument &argument : arguments_)
    if (argument.pointer)
      message.bytes[message.count++] = argument.shared.totalBytes;
  return message;
}

void TaskBuffers::resetCanaries() {
  for (Argument &argument : arguments_)
    if (argument.pointer) {
      memory_.fill(argument.shared.base, kCanary, argument.shared.totalBytes);
      argument.dirtyEnd = argument.shared.dataOffset;
    }
  memory_.synchronize();
}

void TaskBuffers::drawInputs(const SizeBinding &sizes, std::uint64_t stream, std::size_t trial, std::uint64_t secret) {
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    const ArgumentSpec &spec = task_.args[a];
    if (!isInput(spec))
      continue;
    const auto count = static_cast<std::uint64_t>(evaluateSizeExpression(spec.size, sizes));
    draw::DrawSpec d = drawSpecFor(spec, trial);
    d.secret = secret;
    memory_.generate(arguments_[a].input, count, d, draw::argumentKey(stream, a));
  }
}

void TaskBuffers::loadExpected(const std::string &blob, std::size_t &offset, const SizeBinding &sizes) {
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    if (!isOutput(task_.args[a]))
      continue;
    const std::uint64_t bytes = bytesOf(a, sizes);
    if (offset + bytes > blob.size())
      throw JudgeFailure("the expected outputs are shorter than the task's tests");
    memory_.upload(arguments_[a].expected, blob.data() + offset, bytes);
    offset += bytes;
  }
}

namespace {

// A trusted oracle that could not compute (an imported task's PyTorch server
// that died writes NaN to float outputs and 0xFF to every byte of integer
// ones) is the task's fault: never a candidate's wrong answer.
void rejectPoisonedOutput(const TaskSpec &task, const ArgumentSpec &spec, const void *data, std::size_t bytes) {
  bool poisoned = false;
  if (spec.type == ElementType::Float32 && bytes >= sizeof(float)) {
    const auto *values = static_cast<const float *>(data);
    poisoned = std::all_of(values, values + bytes / sizeof(float), [](float v) { return std::isnan(v); });
  } else if ((spec.type == ElementType::Int64 || spec.type == ElementType::Int32 || spec.type == ElementType::UInt8 ||
              spec.type == ElementType::Float16 || spec.type == ElementType::BFloat16) &&
             bytes > 0) {
    const auto *raw = static_cast<const unsigned char *>(data);
    poisoned = std::all_of(raw, raw + bytes, [](unsigned char b) { return b == 0xFF; });
  }
  if (poisoned)
    throw TaskError("task '" + task.name +
                    "': the reference wrote its failure pattern (NaN, or every byte 0xFF) to "
                    "every element of '" +
                    spec.name +
                    "' for a timed call (a broken reference, not the candidate's "
                    "doing)");
}

} // namespace

void TaskBuffers::runOracle(EntryFunction entry, const SizeBinding &sizes) {
  std::vector<std::intptr_t> registers;
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    const ArgumentSpec &spec = task_.args[a];
    Argument &argument = arguments_[a];
    if (!spec.pointer) {
      registers.push_back(static_cast<std::intptr_t>(evaluateSizeExpression(spec.value, sizes)));
      continue;
    }
    const std::uint64_t bytes = bytesOf(a, sizes);
    if (spec.intent == Intent::In) {
      registers.push_back(reinterpret_cast<std::intptr_t>(argument.input));
      continue;
    }
    if (spec.intent == Intent::InOut)
      memory_.copy(argument.expected, argument.input, bytes);
    else
      memory_.fill(argument.expected, kUnwritten, bytes);
    registers.push_back(reinterpret_cast<std::intptr_t>(argument.expected));
  }
  memory_.synchronize();
  callEntry(entry, registers);
  memory_.synchronize();
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    if (!task_.args[a].pointer || task_.args[a].intent == Intent::In)
      continue;
    if (!memory_.device()) { // the host reference, where its outputs can be read for free
      rejectPoisonedOutput(task_, task_.args[a], arguments_[a].expected, bytesOf(a, sizes));
      continue;
    }
    // A GPU oracle that failed (PyTorch eager's runtime writes every byte
    // 0xFF: NaN in any float type, -1 in integers) must not become the
    // expected output of the call: counted on the device, one pass.
    const std::uint64_t bytes = bytesOf(a, sizes);
    if (bytes > 0 && memory_.countUnlike(arguments_[a].expected, bytes, nullptr, 0xFF) == 0)
      throw TaskError("task '" + task_.name + "': the GPU baseline wrote its failure pattern (every byte 0xFF) to '" +
                      task_.args[a].name + "' (a broken oracle)");
  }
}

void TaskBuffers::runHostReference(EntryFunction entry, const SizeBinding &sizes) {
  std::vector<std::vector<unsigned char>> host(task_.args.size());
  std::vector<std::intptr_t> registers;
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    const ArgumentSpec &spec = task_.args[a];
    if (!spec.pointer) {
      registers.push_back(static_cast<std::intptr_t>(evaluateSizeExpression(spec.value, sizes)));
      continue;
    }
    host[a].assign(bytesOf(a, sizes), kUnwritten);
    if (isInput(spec))
      memory_.download(host[a].data(), arguments_[a].input, host[a].size());
    registers.push_back(reinterpret_cast<std::intptr_t>(host[a].data()));
  }
  callEntry(entry, registers);
  for (std::size_t a = 0; a < task_.args.size(); ++a)
    if (isOutput(task_.args[a])) {
      rejectPoisonedOutput(task_, task_.args[a], host[a].data(), host[a].size());
      memory_.upload(arguments_[a].expected, host[a].data(), host[a].size());
    }
}

void TaskBuffers::prepareCall(const SizeBinding &sizes) {
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    const ArgumentSpec &spec = task_.args[a];
    Argument &argument = arguments_[a];
    if (!spec.pointer)
      continue;
    const std::uint64_t bytes = bytesOf(a, sizes);
    const std::uint64_t end = argument.shared.dataOffset + bytes;
    // A larger call before left data where this one's canary must be.
    if (argument.dirtyEnd > end)
      memory_.fill(argument.shared.base + end, kCanary, argument.dirtyEnd - end);
    if (isInput(spec))
      memory_.copy(argument.shared.data(), argument.input, bytes);
    else
      memory_.fill(argument.shared.data(), kUnwritten, bytes);
    argument.dirtyEnd = end;
  }
  memory_.synchronize();
}

bool TaskBuffers::outputsUnwritten(const SizeBinding &sizes) {
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    const ArgumentSpec &spec = task_.args[a];
    if (spec.pointer && spec.intent == Intent::Out &&
        memory_.countUnlike(arguments_[a].shared.data(), bytesOf(a, sizes), nullptr, kUnwritten) != 0)
      return false;
  }
  return true;
}

worker::Message TaskBuffers::callMessage(const SizeBinding &sizes, std::uint32_t flags) const {
  worker::Message message;
  message.op = worker::Op::Call;
  message.flags = flags;
  int shared = 0;
  for (std::size_t a = 0; a < task_.args.size() && a < worker::kMaxBuffers; ++a) {
    const ArgumentSpec &spec = task_.args[a];
    if (spec.pointer) {
      message.argBuffer[message.count] = shared++;
      message.argValue[message.count] = static_cast<std::int64_t>(arguments_[a].shared.dataOffset);
    } else {
      message.argBuffer[message.count] = -1;
      message.argValue[message.count] = evaluateSizeExpression(spec.value, sizes);
    }
    ++message.count;
  }
  return message;
}

CallCheck TaskBuffers::verify(const SizeBinding &sizes, bool benchmarkTolerance) {
  CallCheck check;
  memory_.synchronize();
  for (std::size_t a = 0; a < task_.args.size(); ++a) {
    const ArgumentSpec &spec = task_.args[a];
    Argument &argument = arguments_[a];
    if (!spec.pointer)
      continue;
    const std::uint64_t bytes = bytesOf(a, sizes);
    const SharedBuffer &shared = argument.shared;
    const std::uint64_t outside =
        memory_.countUnlike(shared.base, shared.dataOffset, nullptr, kCanary) +
        memory_.countUnlike(shared.data() + bytes, shared.totalBytes - shared.dataOffset - bytes, nullptr, kCanary);
    if (outside) {
      if (check.passed())
        check.reason = "wrote outside the bounds of '" + spec.name + "' (" + std::to_string(outside) +
                       " bytes of its canary bands changed)";
      argument.dirtyEnd = shared.totalBytes; // canary everywhere again before the next call
      memory_.fill(shared.base, kCanary, shared.dataOffset);
      continue;
    }
    if (spec.intent == Intent::In) {
      if (check.passed() && memory_.countUnlike(shared.data(), bytes, argument.input, 0))
        check.reason = "modified the input '" + spec.name + "'";
      continue;
    }
    const Tolerance tolerance =
        benchmarkTolerance ? task_.benchmarkToleranceFor(spec.type) : task_.toleranceFor(spec.type);
    const auto count = static_cast<std::uint64_t>(evaluateSizeExpression(spec.size, sizes));
    const CompareSummary summary = memory_.compare(argument.expected, shared.data(), count, storedTypeOf(spec.type),
                                                   tolerance.atol, tolerance.rtol, tolerance.absolute);
    check.maxAbsError = std::max(check.maxAbsError, summary.maxAbsError);
    check.maxRatio = std::max(check.maxRatio, summary.maxRatio);
    if (summary.mismatches == 0 || !check.passed())
      continue;
    // The details come from the host comparison of the same rule.
    HostBuffer expected, actual;
    expected.type = actual.type = spec.type;
    expected.count = actual.count = count;
    expected.bytes.resize(bytes);
    actual.bytes.resize(bytes);
    memory_.download(expected.bytes.data(), argument.expected, bytes);
    memory_.download(actual.bytes.data(), shared.data(), bytes);
    const BufferComparison comparison = compareBuffers(spec.name, expected, actual, tolerance);
    check.reason =
        std::to_string(summary.mismatches) + " of " + std::to_string(count) + " elements of '" + spec.name + "' differ";
    json::array first;
    for (const auto &m : comparison.firstMismatches)
      first.push_back(
          json::object{{"index", m.index}, {"expected", finiteOrNull(m.expected)}, {"actual", finiteOrNull(m.actual)}});
    check.failure["max_abs_err"] = std::isfinite(summary.maxAbsError) ? summary.maxAbsError : -1.0;
    check.failure["max_rel_err"] = std::isfinite(comparison.maxRelError) ? comparison.maxRelError : -1.0;
    check.failure["first_mismatches"] = std::move(first);
  }
  return check;
}

} // namespace cudaperf::judge
