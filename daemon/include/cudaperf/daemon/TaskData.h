// Host-side data of one evaluation: seeded inputs for a task at one size
// binding, and the comparison of a candidate's outputs with the reference's.
// No CUDA here, so all of it is tested on machines without a GPU.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/daemon/InputDraw.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf {

struct HostBuffer {
  ElementType type = ElementType::Float32;
  std::size_t count = 0;
  std::vector<unsigned char> bytes; // count * elementBytes(type)
  std::size_t sizeInBytes() const { return bytes.size(); }
};

// One value per argument, in call order: a buffer (pointers) or an integer (scalars).
struct ArgumentData {
  bool pointer = false;
  HostBuffer buffer;
  std::int64_t scalar = 0;
};

// Inputs drawn from each argument's distribution for `trial` (see
// ArgumentSpec::init) with the counter-based generator of InputDraw.h keyed
// by (stream, argument index): the judge draws the same bits on the GPU.
// Outputs are pre-filled with 0xFF bytes (NaN for floats), so an element the
// program never writes cannot match.
std::vector<ArgumentData> generateArguments(const TaskSpec &task, const SizeBinding &sizes, std::uint64_t stream,
                                            std::size_t trial = 0);

// The generator's description of argument `spec`'s distribution for `trial`.
draw::DrawSpec drawSpecFor(const ArgumentSpec &spec, std::size_t trial);
draw::StoredType storedTypeOf(ElementType type);

// The stream of one correctness test of an evaluation's seed: the trusted
// side that computes the expected outputs and the judge that gives the
// candidate its inputs draw the same values.
std::uint64_t testSeed(std::uint64_t seed, std::size_t trial, std::size_t sizeIndex);

// Bytes of the out and inout buffers at one correctness size: the expected
// outputs of one test, as the trusted side writes them and the harness reads them.
std::size_t expectedOutputBytes(const TaskSpec &task, std::size_t sizeIndex);
// Bytes the expected outputs of one evaluation take: every size, `trials` times.
std::size_t expectedBlobBytes(const TaskSpec &task, std::size_t trials);

// The stream of the CPU baseline's benchmark inputs.
std::uint64_t benchmarkSeed(std::uint64_t seed);

struct Mismatch {
  std::size_t index = 0;
  double expected = 0;
  double actual = 0;
};

struct BufferComparison {
  std::string argument;
  std::size_t count = 0;
  std::size_t mismatches = 0;
  double maxAbsError = 0;
  double maxRelError = 0;
  double scale = 1;                      // root mean square of the expected values (1 if all zero)
  double maxRatio = 0;                   // largest error over its allowance (<= 1 everywhere: passed)
  std::vector<Mismatch> firstMismatches; // up to 5
  bool passed() const { return mismatches == 0; }
};

// |actual - expected| <= atol * scale + rtol * |expected| per element, with
// scale the RMS of the expected output: an output that is tiny everywhere is
// not matched by writing zeros. Integers compare exactly; NaN matches NaN.
// The rule is draw::elementMatches, which the judge's GPU comparison runs too.
double rmsScale(const HostBuffer &expected);
BufferComparison compareBuffers(const std::string &argument, const HostBuffer &expected, const HostBuffer &actual,
                                const Tolerance &tolerance);

double elementAsDouble(const HostBuffer &buffer, std::size_t index);

} // namespace cudaperf
