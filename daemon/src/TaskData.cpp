#include "cudaperf/daemon/TaskData.h"

#include <cmath>
#include <cstring>
#include <random>

namespace cudaperf {

namespace {

// float <-> IEEE half / bfloat16 bits, round to nearest even.
std::uint16_t toHalf(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  std::uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  if (exponent >= 31)
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exponent <= 0) {
    if (exponent < -10)
      return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    if (rest > (1u << (shift - 1)) || (rest == (1u << (shift - 1)) && (half & 1)))
      ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half;
  return static_cast<std::uint16_t>(half);
}

float fromHalf(std::uint16_t half) {
  const std::uint32_t sign = (half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1f;
  std::uint32_t mantissa = half & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while (!(mantissa & 0x400u));
      bits = sign | ((127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

std::uint16_t toBf16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

float fromBf16(std::uint16_t value) {
  const std::uint32_t bits = static_cast<std::uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

void store(HostBuffer &buffer, std::size_t index, double value) {
  unsigned char *at = buffer.bytes.data() + index * elementBytes(buffer.type);
  switch (buffer.type) {
  case ElementType::Float32: {
    const float v = static_cast<float>(value);
    std::memcpy(at, &v, 4);
    break;
  }
  case ElementType::Float64:
    std::memcpy(at, &value, 8);
    break;
  case ElementType::Float16: {
    const std::uint16_t v = toHalf(static_cast<float>(value));
    std::memcpy(at, &v, 2);
    break;
  }
  case ElementType::BFloat16: {
    const std::uint16_t v = toBf16(static_cast<float>(value));
    std::memcpy(at, &v, 2);
    break;
  }
  case ElementType::Int32: {
    const auto v = static_cast<std::int32_t>(value);
    std::memcpy(at, &v, 4);
    break;
  }
  case ElementType::Int64: {
    const auto v = static_cast<std::int64_t>(value);
    std::memcpy(at, &v, 8);
    break;
  }
  case ElementType::UInt8:
    *at = static_cast<unsigned char>(value);
    break;
  case ElementType::UInt32: {
    const auto v = static_cast<std::uint32_t>(value);
    std::memcpy(at, &v, 4);
    break;
  }
  }
}

} // namespace

double elementAsDouble(const HostBuffer &buffer, std::size_t index) {
  const unsigned char *at = buffer.bytes.data() + index * elementBytes(buffer.type);
  switch (buffer.type) {
  case ElementType::Float32: {
    float v;
    std::memcpy(&v, at, 4);
    return v;
  }
  case ElementType::Float64: {
    double v;
    std::memcpy(&v, at, 8);
    return v;
  }
  case ElementType::Float16: {
    std::uint16_t v;
    std::memcpy(&v, at, 2);
    return fromHalf(v);
  }
  case ElementType::BFloat16: {
    std::uint16_t v;
    std::memcpy(&v, at, 2);
    return fromBf16(v);
  }
  case ElementType::Int32: {
    std::int32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  case ElementType::Int64: {
    std::int64_t v;
    std::memcpy(&v, at, 8);
    return static_cast<double>(v);
  }
  case ElementType::UInt8:
    return *at;
  case ElementType::UInt32: {
    std::uint32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  }
  return 0;
}

std::uint64_t testSeed(std::uint64_t seed, std::size_t trial, std::size_t sizeIndex) {
  return seed * 1000003ull + trial * 101ull + sizeIndex;
}

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

std::vector<ArgumentData> generateArguments(const TaskSpec &task, const SizeBinding &sizes, std::uint64_t seed,
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
    buffer.bytes.assign(buffer.count * elementBytes(spec.type), 0xff);
    if (spec.intent != Intent::Out) {
      std::mt19937_64 random(seed * 0x9E3779B97F4A7C15ull + a + 1);
      const Distribution &d = spec.distributionForTrial(trial);
      std::uniform_real_distribution<double> uniform(d.low, d.high);
      std::normal_distribution<double> normal(d.mean, d.stddev);
      std::uniform_int_distribution<std::int64_t> integer(static_cast<std::int64_t>(std::ceil(d.low)),
                                                          static_cast<std::int64_t>(std::ceil(d.high)) - 1);
      double running = 0; // offsets: the running sum
      for (std::size_t i = 0; i < buffer.count; ++i) {
        double value = 0;
        if (d.kind == "uniform")
          value = isFloating(spec.type) ? uniform(random) : std::floor(uniform(random));
        else if (d.kind == "normal")
          value = isFloating(spec.type) ? normal(random) : std::round(normal(random));
        else if (d.kind == "randint")
          value = static_cast<double>(integer(random));
        else if (d.kind == "constant")
          value = d.value;
        else if (d.kind == "arange")
          value = static_cast<double>(i) * d.step;
        else if (d.kind == "offsets") {
          value = running;
          running += static_cast<double>(integer(random));
        }
        store(buffer, i, value);
      }
    }
    arguments.push_back(std::move(data));
  }
  return arguments;
}

BufferComparison compareBuffers(const std::string &argument, const HostBuffer &expected, const HostBuffer &actual,
                                const Tolerance &tolerance) {
  BufferComparison result;
  result.argument = argument;
  result.count = expected.count;
  if (actual.count != expected.count || actual.type != expected.type) {
    result.mismatches = expected.count ? expected.count : 1;
    return result;
  }
  const bool floating = isFloating(expected.type);
  double squares = 0;
  bool allEqual = true;
  const double first = expected.count ? elementAsDouble(expected, 0) : 0;
  for (std::size_t i = 0; i < expected.count; ++i) {
    const double e = elementAsDouble(expected, i);
    if (std::isfinite(e))
      squares += e * e;
    allEqual &= e == first;
  }
  result.degenerateExpected = expected.count > 1 && allEqual;
  const double rms = expected.count ? std::sqrt(squares / static_cast<double>(expected.count)) : 0;
  result.scale = rms > 0 ? rms : 1.0;
  for (std::size_t i = 0; i < expected.count; ++i) {
    const double e = elementAsDouble(expected, i);
    const double a = elementAsDouble(actual, i);
    bool ok;
    double absError = 0;
    if (!floating) {
      ok = e == a;
      absError = std::fabs(a - e);
    } else if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
      absError = ok ? 0 : INFINITY;
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
      absError = ok ? 0 : INFINITY;
    } else {
      absError = std::fabs(a - e);
      ok = absError <= tolerance.atol * result.scale + tolerance.rtol * std::fabs(e);
    }
    if (absError > result.maxAbsError)
      result.maxAbsError = absError;
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
