// analyzeSource(): the in-process entry point the daemon and the fuzzer use.
#include "cudaperf/analysis/Analyzer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace cudaperf;

namespace {

std::string mockHeader() {
  std::ifstream file(CUDAPERF_MOCK_CUDA_HEADER);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

SourceAnalysis analyze(const std::string &source, AnalysisOptions options = {}) {
  return analyzeSource("#include \"cuda.h\"\n" + source, "kernel.cu", options, {"-nocudainc", "-nocudalib", "-I/mock"},
                       {{"/mock/cuda.h", mockHeader()}});
}

} // namespace

TEST(Analyzer, InMemorySourceGivesOneReport) {
  auto analysis = analyze("__global__ void k(const float* a, float* b) { b[threadIdx.x] = a[threadIdx.x]; }\n"
                          "void run(float* a, float* b) { k<<<8, 128>>>(a, b); }\n");
  ASSERT_TRUE(analysis.parsed);
  ASSERT_EQ(analysis.reports.size(), 1u);
  const auto &report = analysis.reports[0];
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_EQ(report.kernels[0].name, "k");
  EXPECT_DOUBLE_EQ(report.kernels[0].features.coal, 1.0);
  EXPECT_DOUBLE_EQ(report.kernels[0].features.tpb, 128.0);
  EXPECT_DOUBLE_EQ(report.kernels[0].features.occ, 1.0);
  EXPECT_EQ(report.file, "/cudaperf-input/kernel.cu");
}

TEST(Analyzer, HostErrorsKeepKernels) {
  auto analysis = analyze("__global__ void k(float* b) { b[threadIdx.x * 2] = 0.f; }\n"
                          "void run() { undefined_call(); }\n");
  ASSERT_EQ(analysis.reports.size(), 1u);
  EXPECT_EQ(analysis.reports[0].errors, 1u);
  ASSERT_EQ(analysis.reports[0].kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(analysis.reports[0].kernels[0].features.coal, 0.4);
  EXPECT_NE(analysis.compilerDiagnostics.find("undefined_call"), std::string::npos);
}

TEST(Analyzer, CompilerArgsAddHostOnlyAndArch) {
  AnalysisOptions options;
  options.arch = "sm_80";
  auto args = analysisCompilerArgs(options, {"-DX=1"});
  auto has = [&](const std::string &arg) { return std::find(args.begin(), args.end(), arg) != args.end(); };
  EXPECT_TRUE(has("--cuda-host-only"));
  EXPECT_TRUE(has("--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(has("-Wno-unknown-cuda-version"));
  EXPECT_TRUE(has("-fno-spell-checking"));
  EXPECT_EQ(args.back(), "-DX=1");
  auto userArch = analysisCompilerArgs(options, {"--cuda-gpu-arch=sm_70", "--cuda-device-only"});
  EXPECT_EQ(std::count(userArch.begin(), userArch.end(), "--cuda-host-only"), 0);
  EXPECT_EQ(std::count(userArch.begin(), userArch.end(), "--cuda-gpu-arch=sm_80"), 0);
}

TEST(Analyzer, TypoInALaunchDoesNotSendClangIntoEndlessRecursion) {
  // Found by the fuzzer: with typo correction, Clang 19 crashes on this.
  auto analysis = analyze("constexpr int kBlock = 128;\n"
                          "void k(float *x) {}\n"
                          "void run(float *x) { const int blocks = 8; k<<<blocks, kBLock>>>(x); }\n"
                          "__global__ void real(float *x) { x[threadIdx.x] = 0; }\n");
  ASSERT_EQ(analysis.reports.size(), 1u);
  EXPECT_GT(analysis.reports[0].errors, 0u);
  ASSERT_EQ(analysis.reports[0].kernels.size(), 1u);
}

TEST(Analyzer, GarbageDoesNotCrash) {
  auto analysis = analyze("__global__ void k(float* p) { for (;;) { p[p[threadIdx.x]] += ; } ) } }}}");
  EXPECT_TRUE(analysis.parsed);
  ASSERT_EQ(analysis.reports.size(), 1u);
  EXPECT_GT(analysis.reports[0].errors, 0u);
}
