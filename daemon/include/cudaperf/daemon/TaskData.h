// Host-side data of one evaluation: seeded inputs for a task at one size
// binding, and the comparison of a candidate's outputs with the reference's.
// No CUDA here, so all of it is tested on machines without a GPU.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"

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
// ArgumentSpec::init) with a generator seeded by (seed, argument index);
// outputs pre-filled with 0xFF bytes (NaN for floats), so an element the
// program never writes cannot match.
std::vector<ArgumentData> generateArguments(const TaskSpec &task, const SizeBinding &sizes, std::uint64_t seed,
                                            std::size_t trial = 0);

// The seed of one correctness test: the trusted side that computes the
// expected outputs and the harness that runs the candidate draw the same inputs.
std::uint64_t testSeed(std::uint64_t seed, std::size_t trial, std::size_t sizeIndex);
// Bytes of the out and inout buffers at one correctness size: the expected
// outputs of one test, as the trusted side writes them and the harness reads them.
std::size_t expectedOutputBytes(const TaskSpec &task, std::size_t sizeIndex);
// Bytes the expected outputs of one evaluation take: every size, `trials` times.
std::size_t expectedBlobBytes(const TaskSpec &task, std::size_t trials);

// The seed of the benchmark inputs (timing and the CPU baseline).
inline std::uint64_t benchmarkSeed(std::uint64_t seed) { return seed ^ 0xBE9C4ull; }

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
  bool degenerateExpected = false;       // every expected element equal: a task that cannot tell wrong from right
  std::vector<Mismatch> firstMismatches; // up to 5
  bool passed() const { return mismatches == 0; }
};

// |actual - expected| <= atol * scale + rtol * |expected| per element, with
// scale the RMS of the expected output: an output that is tiny everywhere is
// not matched by writing zeros. Integers compare exactly; NaN matches NaN.
BufferComparison compareBuffers(const std::string &argument, const HostBuffer &expected, const HostBuffer &actual,
                                const Tolerance &tolerance);

double elementAsDouble(const HostBuffer &buffer, std::size_t index);

} // namespace cudaperf
