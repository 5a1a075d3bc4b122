// Seeded input values that the trusted side draws on the host (the C
// reference's inputs) and the judge draws on the GPU (the candidate's inputs),
// bit for bit alike. A counter-based generator (SplitMix64 over a stream key,
// the element index and a draw number) gives every element its own random
// numbers, so a GPU thread per element draws what the host loop draws; the
// distributions use only correctly rounded + - * / and sqrt (no library
// log/cos, no contraction into FMA), which IEEE 754 makes identical on both.
// No Boost, no STL containers: this header is compiled by nvcc for the device.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define CUDAPERF_HD __host__ __device__ inline
#else
#define CUDAPERF_HD inline
#endif

namespace cudaperf::draw {

// Element types as the generator stores them (the order of ElementType).
enum class StoredType : int { Float32, Float64, Float16, BFloat16, Int32, Int64, UInt8, UInt32 };

enum class Kind : int { Uniform, Normal, RandInt, Constant, Arange, Offsets };

// One distribution, plain data so a kernel can take it by value.
struct DrawSpec {
  Kind kind = Kind::Uniform;
  StoredType type = StoredType::Float32;
  double low = -1, high = 1; // uniform; randint and offsets' increments: [ceil(low), ceil(high))
  double mean = 0, stddev = 1, value = 0, step = 1;
  // Sparse outliers: with probability outlierFraction the element is drawn
  // from uniform(outlierLow, outlierHigh) instead (0: none).
  double outlierFraction = 0, outlierLow = 0, outlierHigh = 0;
  // Structure: elements [k * segmentLength, (k + 1) * segmentLength) are
  // scaled by one factor per segment, drawn from uniform(segmentLow, segmentHigh) (0: none).
  std::int64_t segmentLength = 0;
  double segmentLow = 1, segmentHigh = 1;
  // Not 0: the random bits come from SipHash-2-4 keyed by (key, secret), a
  // pseudo-random function whose key its outputs do not reveal. The judge
  // draws the timed calls' inputs so, with keys of its own entropy: seeing
  // some inputs tells a candidate nothing of the rest, nor of the next call's.
  // 0: SplitMix64 (fast, invertible), where host and GPU must draw alike.
  std::uint64_t secret = 0;
};

CUDAPERF_HD bool isFloatingType(StoredType type) {
  return type == StoredType::Float32 || type == StoredType::Float64 || type == StoredType::Float16 ||
         type == StoredType::BFloat16;
}

// Correctly rounded arithmetic that no compiler may fuse into an FMA.
CUDAPERF_HD double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
CUDAPERF_HD double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
CUDAPERF_HD double quotient(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
CUDAPERF_HD double squareRoot(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return __builtin_sqrt(a);
#endif
}
CUDAPERF_HD double floorOf(double a) {
#if defined(__CUDA_ARCH__)
  return ::floor(a);
#else
  return __builtin_floor(a);
#endif
}
CUDAPERF_HD double roundOf(double a) { // half away from zero, as C's round()
#if defined(__CUDA_ARCH__)
  return ::round(a);
#else
  return __builtin_round(a);
#endif
}

CUDAPERF_HD std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;

// The key of one stream of an evaluation's seed (a correctness test, a timed call).
CUDAPERF_HD std::uint64_t streamKey(std::uint64_t seed, std::uint64_t stream) {
  return mix64(mix64(seed ^ 0x5EEDC0DEull) + (stream + 1) * kGamma);
}
// The key of one argument within a stream.
CUDAPERF_HD std::uint64_t argumentKey(std::uint64_t stream, std::uint64_t argument) {
  return mix64(stream + (argument + 1) * 0xD1B54A32D192ED03ull);
}

CUDAPERF_HD std::uint64_t rotateLeft(std::uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

CUDAPERF_HD void sipRound(std::uint64_t &v0, std::uint64_t &v1, std::uint64_t &v2, std::uint64_t &v3) {
  v0 += v1;
  v1 = rotateLeft(v1, 13) ^ v0;
  v0 = rotateLeft(v0, 32);
  v2 += v3;
  v3 = rotateLeft(v3, 16) ^ v2;
  v0 += v3;
  v3 = rotateLeft(v3, 21) ^ v0;
  v2 += v1;
  v1 = rotateLeft(v1, 17) ^ v2;
  v2 = rotateLeft(v2, 32);
}

// SipHash-2-4 of one 64-bit word under the key (k0, k1).
CUDAPERF_HD std::uint64_t sipHash(std::uint64_t k0, std::uint64_t k1, std::uint64_t message) {
  std::uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
  std::uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
  const std::uint64_t length = 8ull << 56;
  v3 ^= message;
  sipRound(v0, v1, v2, v3);
  sipRound(v0, v1, v2, v3);
  v0 ^= message;
  v3 ^= length;
  sipRound(v0, v1, v2, v3);
  sipRound(v0, v1, v2, v3);
  v0 ^= length;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i)
    sipRound(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

// Uniform in [0, 1) with 53 random bits; `draw` < 128 picks one of the element's numbers.
CUDAPERF_HD double uniform01(std::uint64_t key, std::uint64_t index, unsigned draw) {
  const std::uint64_t z = mix64(key + ((index << 7) + draw + 1) * kGamma);
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// The same from the distribution's generator (keyed by its secret when it has one).
CUDAPERF_HD double uniform01(const DrawSpec &spec, std::uint64_t key, std::uint64_t index, unsigned draw) {
  if (spec.secret == 0)
    return uniform01(key, index, draw);
  return static_cast<double>(sipHash(key, spec.secret, (index << 7) + draw) >> 11) * 0x1.0p-53;
}

// ln(x) for finite x > 0: x = m * 2^e with m in [0.5, 1) read off the bits,
// then ln(m) = 2 atanh(t), t = (m - 1) / (m + 1), by its series
// 2t (1 + t^2/3 + t^4/5 + ...) in Horner form (|t| <= 1/3: 21 terms reach the
// last bit; the coefficients are constants the compilers fold exactly).
// Only + - * /, so host and device agree bit for bit.
CUDAPERF_HD double logPositive(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1022;
  bits = (bits & 0x800FFFFFFFFFFFFFull) | (1022ull << 52);
  double m;
  std::memcpy(&m, &bits, sizeof m);
  const double t = quotient(add(m, -1.0), add(m, 1.0));
  const double u = mul(t, t);
  double p = 1.0 / 41.0;
  p = add(1.0 / 39.0, mul(u, p));
  p = add(1.0 / 37.0, mul(u, p));
  p = add(1.0 / 35.0, mul(u, p));
  p = add(1.0 / 33.0, mul(u, p));
  p = add(1.0 / 31.0, mul(u, p));
  p = add(1.0 / 29.0, mul(u, p));
  p = add(1.0 / 27.0, mul(u, p));
  p = add(1.0 / 25.0, mul(u, p));
  p = add(1.0 / 23.0, mul(u, p));
  p = add(1.0 / 21.0, mul(u, p));
  p = add(1.0 / 19.0, mul(u, p));
  p = add(1.0 / 17.0, mul(u, p));
  p = add(1.0 / 15.0, mul(u, p));
  p = add(1.0 / 13.0, mul(u, p));
  p = add(1.0 / 11.0, mul(u, p));
  p = add(1.0 / 9.0, mul(u, p));
  p = add(1.0 / 7.0, mul(u, p));
  p = add(1.0 / 5.0, mul(u, p));
  p = add(1.0 / 3.0, mul(u, p));
  p = add(1.0, mul(u, p));
  return add(mul(mul(2.0, t), p), mul(static_cast<double>(exponent), 0.69314718055994530942));
}

// A standard normal by Marsaglia's polar method: pairs of draws until one
// lands inside the unit circle (the chance that 32 tries all miss is 1e-21).
CUDAPERF_HD double standardNormal(const DrawSpec &spec, std::uint64_t key, std::uint64_t index) {
  for (unsigned draw = 0; draw < 64; draw += 2) {
    const double u = add(mul(2.0, uniform01(spec, key, index, draw)), -1.0);
    const double v = add(mul(2.0, uniform01(spec, key, index, draw + 1)), -1.0);
    const double s = add(mul(u, u), mul(v, v));
    if (s > 0 && s < 1)
      return mul(u, squareRoot(quotient(mul(-2.0, logPositive(s)), s)));
  }
  return 0;
}

CUDAPERF_HD std::int64_t ceilToInt(double value) { return static_cast<std::int64_t>(-floorOf(-value)); }

// An integer in [ceil(low), ceil(high)), as randint draws it.
CUDAPERF_HD std::int64_t randomInteger(const DrawSpec &spec, std::uint64_t key, std::uint64_t index, unsigned draw) {
  const std::int64_t low = ceilToInt(spec.low), high = ceilToInt(spec.high);
  const double range = static_cast<double>(high > low ? high - low : 1);
  return low + static_cast<std::int64_t>(floorOf(mul(uniform01(spec, key, index, draw), range)));
}

// The value of element `index` of a buffer drawn from `spec` (every kind but
// offsets, whose values are running sums of randomInteger increments).
CUDAPERF_HD double drawValue(const DrawSpec &spec, std::uint64_t key, std::uint64_t index) {
  const bool floating = isFloatingType(spec.type);
  double value = 0;
  switch (spec.kind) {
  case Kind::Uniform:
    value = add(spec.low, mul(add(spec.high, -spec.low), uniform01(spec, key, index, 0)));
    if (!floating)
      value = floorOf(value);
    break;
  case Kind::Normal:
    value = add(spec.mean, mul(spec.stddev, standardNormal(spec, key, index)));
    if (!floating)
      value = roundOf(value);
    break;
  case Kind::RandInt:
  case Kind::Offsets:
    value = static_cast<double>(randomInteger(spec, key, index, 0));
    break;
  case Kind::Constant:
    value = spec.value;
    break;
  case Kind::Arange:
    value = mul(static_cast<double>(index), spec.step);
    break;
  }
  if (spec.segmentLength > 0) {
    const std::uint64_t segment = index / static_cast<std::uint64_t>(spec.segmentLength);
    const double scale = add(spec.segmentLow, mul(add(spec.segmentHigh, -spec.segmentLow),
                                                  uniform01(spec, mix64(key ^ 0x5E6E7Eull), segment, 0)));
    value = mul(value, scale);
    if (!floating)
      value = floorOf(value);
  }
  if (spec.outlierFraction > 0 && uniform01(spec, key, index, 126) < spec.outlierFraction) {
    value = add(spec.outlierLow, mul(add(spec.outlierHigh, -spec.outlierLow), uniform01(spec, key, index, 127)));
    if (!floating)
      value = floorOf(value);
  }
  return value;
}

// float <-> IEEE half and bfloat16 bits, round to nearest even.
CUDAPERF_HD std::uint16_t floatToHalfBits(float value) {
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

CUDAPERF_HD float halfBitsToFloat(std::uint16_t half) {
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

CUDAPERF_HD std::uint16_t floatToBf16Bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (value != value) // NaN
    return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}

CUDAPERF_HD float bf16BitsToFloat(std::uint16_t value) {
  const std::uint32_t bits = static_cast<std::uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

CUDAPERF_HD unsigned storedBytes(StoredType type) {
  switch (type) {
  case StoredType::Float64:
  case StoredType::Int64:
    return 8;
  case StoredType::Float16:
  case StoredType::BFloat16:
    return 2;
  case StoredType::UInt8:
    return 1;
  default:
    return 4;
  }
}

// Writes `value` as one element of `type` at `at`. Integers wrap as the
// two's-complement conversion from 64 bits does (no undefined casts).
CUDAPERF_HD void storeElement(unsigned char *at, StoredType type, double value) {
  switch (type) {
  case StoredType::Float32: {
    const float v = static_cast<float>(value);
    std::memcpy(at, &v, 4);
    break;
  }
  case StoredType::Float64:
    std::memcpy(at, &value, 8);
    break;
  case StoredType::Float16: {
    const std::uint16_t v = floatToHalfBits(static_cast<float>(value));
    std::memcpy(at, &v, 2);
    break;
  }
  case StoredType::BFloat16: {
    const std::uint16_t v = floatToBf16Bits(static_cast<float>(value));
    std::memcpy(at, &v, 2);
    break;
  }
  case StoredType::Int32:
  case StoredType::UInt32: {
    const auto v = static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
    std::memcpy(at, &v, 4);
    break;
  }
  case StoredType::Int64: {
    const auto v = static_cast<std::int64_t>(value);
    std::memcpy(at, &v, 8);
    break;
  }
  case StoredType::UInt8:
    *at = static_cast<unsigned char>(static_cast<std::int64_t>(value));
    break;
  }
}

// A buffer of `count` elements drawn on the host, as the judge's kernels
// draw it on the GPU: offsets are 0 and then the running sums of their
// increments (the GPU's exclusive scan).
inline void drawIntoHost(unsigned char *at, std::uint64_t count, const DrawSpec &spec, std::uint64_t key) {
  const unsigned width = storedBytes(spec.type);
  if (spec.kind == Kind::Offsets) {
    std::int64_t running = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      storeElement(at + i * width, spec.type, static_cast<double>(running));
      running += randomInteger(spec, key, i, 0);
    }
    return;
  }
  for (std::uint64_t i = 0; i < count; ++i)
    storeElement(at + i * width, spec.type, drawValue(spec, key, i));
}

CUDAPERF_HD double loadElement(const unsigned char *at, StoredType type) {
  switch (type) {
  case StoredType::Float32: {
    float v;
    std::memcpy(&v, at, 4);
    return v;
  }
  case StoredType::Float64: {
    double v;
    std::memcpy(&v, at, 8);
    return v;
  }
  case StoredType::Float16: {
    std::uint16_t v;
    std::memcpy(&v, at, 2);
    return halfBitsToFloat(v);
  }
  case StoredType::BFloat16: {
    std::uint16_t v;
    std::memcpy(&v, at, 2);
    return bf16BitsToFloat(v);
  }
  case StoredType::Int32: {
    std::int32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  case StoredType::Int64: {
    std::int64_t v;
    std::memcpy(&v, at, 8);
    return static_cast<double>(v);
  }
  case StoredType::UInt8:
    return *at;
  case StoredType::UInt32: {
    std::uint32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  }
  return 0;
}

CUDAPERF_HD double infinity() {
  const std::uint64_t bits = 0x7FF0000000000000ull;
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The comparison rule of every output element: |actual - expected| <=
// atol * scale + rtol * |expected| (scale: the RMS of the expected output);
// integers exactly; NaN matches only NaN, an infinity only itself. Sets the
// absolute error and the error over its allowance (infinite for a NaN or
// infinity mismatch, 0 for an exact match); returns whether the element passes.
CUDAPERF_HD bool elementMatches(double expected, double actual, bool floating, double atol, double rtol, double scale,
                                double &absError, double &ratio) {
  const double inf = infinity();
  absError = expected > actual ? add(expected, -actual) : add(actual, -expected);
  if (!floating) {
    ratio = expected == actual ? 0.0 : inf;
    return expected == actual;
  }
  const bool expectedNan = expected != expected, actualNan = actual != actual;
  if (expectedNan || actualNan) {
    absError = ratio = expectedNan && actualNan ? 0.0 : inf;
    return expectedNan && actualNan;
  }
  if (expected == inf || expected == -inf || actual == inf || actual == -inf) {
    absError = ratio = expected == actual ? 0.0 : inf;
    return expected == actual;
  }
  const double allowed = add(mul(atol, scale), mul(rtol, expected < 0 ? -expected : expected));
  ratio = absError == 0 ? 0.0 : allowed > 0 ? quotient(absError, allowed) : inf;
  return absError <= allowed;
}

} // namespace cudaperf::draw
