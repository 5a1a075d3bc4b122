// Seeded inputs and the output comparison of the harness (no GPU needed).
#include "cudaperf/daemon/TaskData.h"
#include "cudaperf/daemon/ParallelDraw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace cudaperf;

namespace {

TaskSpec vectorAdd() { return loadTask(std::filesystem::path(CUDAPERF_TASKS_DIR) / "vector_add"); }

HostBuffer floats(std::vector<float> values) {
  HostBuffer buffer;
  buffer.type = ElementType::Float32;
  buffer.count = values.size();
  buffer.bytes.resize(values.size() * 4);
  std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
  return buffer;
}

} // namespace

TEST(GenerateArguments, SeededSizedAndFreshPerSeed) {
  const TaskSpec task = vectorAdd();
  const auto a = generateArguments(task, {{"n", 1000}}, 7);
  const auto b = generateArguments(task, {{"n", 1000}}, 7);
  const auto c = generateArguments(task, {{"n", 1000}}, 8);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].buffer.count, 1000u);
  EXPECT_EQ(a[0].buffer.bytes, b[0].buffer.bytes) << "same seed, same inputs";
  EXPECT_NE(a[0].buffer.bytes, c[0].buffer.bytes) << "new seed, new inputs";
  EXPECT_NE(a[0].buffer.bytes, a[1].buffer.bytes) << "arguments draw from their own streams";
  EXPECT_EQ(a[3].scalar, 1000);
  for (std::size_t i = 0; i < 1000; ++i) {
    const double x = elementAsDouble(a[0].buffer, i);
    EXPECT_GE(x, -1.0);
    EXPECT_LT(x, 1.0);
  }
  // Outputs start as NaN: an element nobody writes cannot match.
  EXPECT_TRUE(std::isnan(elementAsDouble(a[2].buffer, 0)));
}

TEST(CompareBuffers, ToleranceIsRelativeToTheOutputScale) {
  const Tolerance tolerance{1e-5, 1e-5};
  auto same = compareBuffers("c", floats({1, 2, 3}), floats({1, 2, 3.00001f}), tolerance);
  EXPECT_TRUE(same.passed());
  auto wrong = compareBuffers("c", floats({1, 2, 3}), floats({1, 2.5f, 3}), tolerance);
  EXPECT_EQ(wrong.mismatches, 1u);
  ASSERT_EQ(wrong.firstMismatches.size(), 1u);
  EXPECT_EQ(wrong.firstMismatches[0].index, 1u);
  EXPECT_DOUBLE_EQ(wrong.maxAbsError, 0.5);
  // Tiny outputs: writing zeros must not pass an absolute 1e-5.
  auto zeros = compareBuffers("c", floats({1e-7f, -2e-7f, 3e-7f}), floats({0, 0, 0}), tolerance);
  EXPECT_FALSE(zeros.passed());
  auto nanOut = compareBuffers("c", floats({1, 2}), floats({1, NAN}), tolerance);
  EXPECT_FALSE(nanOut.passed());
  auto bothNan = compareBuffers("c", floats({NAN}), floats({NAN}), tolerance);
  EXPECT_TRUE(bothNan.passed());
  EXPECT_FALSE(compareBuffers("c", floats({1}), floats({1, 2}), tolerance).passed());
}

TEST(CompareBuffers, IntegersAreExact) {
  HostBuffer expected;
  expected.type = ElementType::Int32;
  expected.count = 2;
  expected.bytes.assign(8, 0);
  HostBuffer actual = expected;
  actual.bytes[4] = 1;
  EXPECT_FALSE(compareBuffers("bins", expected, actual, Tolerance{1, 1}).passed());
  EXPECT_TRUE(compareBuffers("bins", expected, expected, Tolerance{0, 0}).passed());
}

TEST(CompareBuffers, AnAbsoluteAtolAcceptsWhatFloatCannotReach) {
  // gelu(-9) is -1.8e-8 in double and 0 in float: with the RMS scale a
  // one-element test demands 1e-5 of -1.8e-8; with an absolute atol, 1e-5.
  Tolerance scaled{1e-4, 1e-5};
  Tolerance absolute{1e-4, 1e-5, true};
  EXPECT_FALSE(compareBuffers("y", floats({-1.8e-8f}), floats({0}), scaled).passed());
  EXPECT_TRUE(compareBuffers("y", floats({-1.8e-8f}), floats({0}), absolute).passed());
  EXPECT_FALSE(compareBuffers("y", floats({-1.8e-8f}), floats({2e-5f}), absolute).passed());
  const TaskSpec gelu = loadTask(std::filesystem::path(CUDAPERF_TASKS_DIR) / "gelu");
  EXPECT_TRUE(gelu.toleranceFor(ElementType::Float32).absolute);
  EXPECT_FALSE(vectorAdd().toleranceFor(ElementType::Float32).absolute);
}

// Every element is a function of its index: drawn in ranges on several
// threads the bytes must be the serial draw's, whatever the distribution.
TEST(ParallelDraw, EqualsTheSerialDrawByteForByte) {
  const std::uint64_t count = (std::uint64_t{1} << 23) + 12345; // three threads' worth, and a ragged end
  std::vector<draw::DrawSpec> specs(5);
  specs[0].kind = draw::Kind::Uniform;
  specs[1].kind = draw::Kind::Normal;
  specs[1].outlierFraction = 0.01, specs[1].outlierLow = -1e4, specs[1].outlierHigh = 1e4;
  specs[2].kind = draw::Kind::RandInt, specs[2].type = draw::StoredType::Int64, specs[2].low = -3, specs[2].high = 9;
  specs[3].kind = draw::Kind::Uniform, specs[3].type = draw::StoredType::Float16, specs[3].secret = 0x5eed;
  specs[4].kind = draw::Kind::Offsets, specs[4].type = draw::StoredType::Int32, specs[4].low = 0, specs[4].high = 4;
  for (const draw::DrawSpec &spec : specs) {
    const std::size_t bytes = count * draw::storedBytes(spec.type);
    std::vector<unsigned char> serial(bytes, 0xFF), parallel(bytes, 0xFF);
    draw::drawIntoHost(serial.data(), count, spec, 42);
    draw::drawIntoHostInParallel(parallel.data(), count, spec, 42, 3);
    EXPECT_TRUE(serial == parallel) << "kind " << static_cast<int>(spec.kind);
  }
}
