#include "cudaperf/daemon/TaskData.h"

#include "cudaperf/daemon/ParallelDraw.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudaperf {

double elementAsDouble(const HostBuffer &buffer, std::size_t index) {
  return draw::loadElement(buffer.bytes.data() + index * elementBytes(buffer.type), storedTypeOf(buffer.type));
}

draw::StoredType storedTypeOf(ElementType type) {
  // ElementType and StoredType list the types in the same order.
  return static_cast<draw::StoredType>(static_cast<int>(type));
}

draw::DrawSpec drawSpecFor(const ArgumentSpec &spec, std::size_t trial) {
  const Distribution &d = spec.distributionForTrial(trial);
  draw::DrawSpec out;
  static const std::pair<const char *, draw::Kind> kinds[] = {
      {"uniform", draw::Kind::Uniform},   {"normal", draw::Kind::Normal}, {"randint", draw::Kind::RandInt},
      {"constant", draw::Kind::Constant}, {"arange", draw::Kind::Arange}, {"offsets", draw::Kind::Offsets}};
  for (const auto &[name, kind] : kinds)
    if (d.kind == name)
      out.kind = kind;
  out.type = storedTypeOf(spec.type);
  out.low = d.low;
  out.high = d.high;
  out.mean = d.mean;
  out.stddev = d.stddev;
  out.value = d.value;
  out.step = d.step;
  if (d.outliers) {
    out.outlierFraction = d.outliers->fraction;
    out.outlierLow = d.outliers->low;
    out.outlierHigh = d.outliers->high;
  }
  if (d.segments) {
    out.segmentLength = d.segments->length;
    out.segmentLow = d.segments->low;
    out.segmentHigh = d.segments->high;
  }
  return out;
}

// Stream numbers: correctness tests below 2^40, timed calls from 2^40, the
// CPU baseline's inputs at 2^41.
std::uint64_t testSeed(std::uint64_t seed, std::size_t trial, std::size_t sizeIndex) {
  return draw::streamKey(seed, (static_cast<std::uint64_t>(trial) << 20) + sizeIndex);
}

std::uint64_t benchmarkSeed(std::uint64_t seed) { return draw::streamKey(seed, 1ull << 41); }

std::size_t expectedOutputBytes(const TaskSpec &task, std::size_t sizeIndex) {
  std::size_t bytes = 0;
  for (const auto &spec : task.args)
    if (spec.pointer && spec.intent != Intent::In)
      bytes += static_cast<std::size_t>(evaluateSizeExpression(spec.size, task.correctnessSizes[sizeIndex])) *
               elementBytes(spec.type);
  return bytes;
}

std::size_t expectedBlobBytes(const TaskSpec &task, std::size_t trials) {
  std::size_t bytes = 0;
  for (std::size_t s = 0; s < task.correctnessSizes.size(); ++s)
    bytes += expectedOutputBytes(task, s);
  return bytes * trials;
}

std::vector<ArgumentData> generateArguments(const TaskSpec &task, const SizeBinding &sizes, std::uint64_t stream,
                                            std::size_t trial) {
  std::vector<ArgumentData> arguments;
  for (std::size_t a = 0; a < task.args.size(); ++a) {
    const ArgumentSpec &spec = task.args[a];
    ArgumentData data;
    data.pointer = spec.pointer;
    if (!spec.pointer) {
      data.scalar = evaluateSizeExpression(spec.value, sizes);
      arguments.push_back(std::move(data));
      continue;
    }
    HostBuffer &buffer = data.buffer;
    buffer.type = spec.type;
    buffer.count = static_cast<std::size_t>(evaluateSizeExpression(spec.size, sizes));
    const std::size_t width = elementBytes(spec.type);
    buffer.bytes.assign(buffer.count * width, 0xff);
    if (spec.intent != Intent::Out)
      draw::drawIntoHostInParallel(buffer.bytes.data(), buffer.count, drawSpecFor(spec, trial),
                                   draw::argumentKey(stream, a));
    arguments.push_back(std::move(data));
  }
  return arguments;
}

double rmsScale(const HostBuffer &expected) {
  double squares = 0;
  for (std::size_t i = 0; i < expected.count; ++i) {
    const double e = elementAsDouble(expected, i);
    if (e - e == 0) // finite
      squares += e * e;
  }
  const double rms = expected.count ? std::sqrt(squares / static_cast<double>(expected.count)) : 0;
  return rms > 0 ? rms : 1.0;
}

BufferComparison compareBuffers(const std::string &argument, const HostBuffer &expected, const HostBuffer &actual,
                                const Tolerance &tolerance) {
  BufferComparison result;
  result.argument = argument;
  result.count = expected.count;
  if (actual.count != expected.count || actual.type != expected.type) {
    result.mismatches = expected.count ? expected.count : 1;
    result.maxRatio = draw::infinity();
    return result;
  }
  const bool floating = isFloating(expected.type);
  result.scale = tolerance.absolute ? 1.0 : rmsScale(expected);
  for (std::size_t i = 0; i < expected.count; ++i) {
    const double e = elementAsDouble(expected, i);
    const double a = elementAsDouble(actual, i);
    double absError = 0, ratio = 0;
    const bool ok = draw::elementMatches(e, a, floating, tolerance.atol, tolerance.rtol, result.scale, absError, ratio);
    result.maxAbsError = std::max(result.maxAbsError, absError);
    result.maxRatio = std::max(result.maxRatio, ratio);
    if (e != 0 && absError / std::fabs(e) > result.maxRelError)
      result.maxRelError = absError / std::fabs(e);
    if (!ok) {
      ++result.mismatches;
      if (result.firstMismatches.size() < 5)
        result.firstMismatches.push_back({i, e, a});
    }
  }
  return result;
}

} // namespace cudaperf
