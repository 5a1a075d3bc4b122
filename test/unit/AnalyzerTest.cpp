// analyzeSource(): the in-process entry point the daemon and the fuzzer use.
#include "cudaperf/analysis/Analyzer.h"
#include "cudaperf/contracts/ReportJson.h"

#include <gtest/gtest.h>

#include <cstdio>
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
  return analyzeSource("#include \"cuda.h\"\n" + source, "kernel.cu", options,
                       {"-nocudainc", "-nocudalib", "-isystem", "/mock"}, {{"/mock/cuda.h", mockHeader()}});
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

// The daemon's warm path: the real CUDA headers precompiled once, and Sema's
// end-of-file reads of the header's declarations for diagnostics skipped.
// The report must equal the one without a precompiled header, and the
// candidate's own deferred CUDA diagnostics must still be reported.
TEST(Analyzer, PrecompiledHeadersGiveTheSameReport) {
  if (!std::ifstream("/usr/local/cuda/include/cuda_runtime.h"))
    GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
  AnalysisOptions options;
  const std::string header = testing::TempDir() + "cudaperf-analyzer-test.pch";
  ASSERT_EQ(buildAnalysisPreamble(options, header), "");
  AnalysisOptions warm = options;
  warm.precompiledHeader = header;
  const std::string sources[] = {
      // A kernel template with two instantiations, shuffles and math functions.
      "template <int B> __global__ void reduce(const float *x, float *out, int n) {\n"
      "  __shared__ float s[B];\n"
      "  float v = 0;\n"
      "  for (int i = blockIdx.x * B + threadIdx.x; i < n; i += B * gridDim.x) v += expf(x[i]);\n"
      "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);\n"
      "  s[threadIdx.x] = v;\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) atomicAdd(out, s[0]);\n"
      "}\n"
      "void run(const float *x, float *out, int n) {\n"
      "  reduce<256><<<132, 256>>>(x, out, n);\n"
      "  reduce<128><<<132, 128>>>(x, out, n);\n"
      "}\n",
      // Host copies around a launch, a device helper, a tile in shared memory.
      "__device__ float square(float v) { return v * v; }\n"
      "__global__ void tile(const float *in, float *out, int w) {\n"
      "  __shared__ float t[32][33];\n"
      "  t[threadIdx.y][threadIdx.x] = square(in[(blockIdx.y * 32 + threadIdx.y) * w + blockIdx.x * 32 + "
      "threadIdx.x]);\n"
      "  __syncthreads();\n"
      "  out[(blockIdx.x * 32 + threadIdx.y) * w + blockIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];\n"
      "}\n"
      "void run(float *h, float *d_in, float *d_out, int w) {\n"
      "  cudaMemcpy(d_in, h, w * w * 4, cudaMemcpyHostToDevice);\n"
      "  tile<<<dim3(w / 32, w / 32), dim3(32, 32)>>>(d_in, d_out, w);\n"
      "}\n",
      // nvcc's cache-hint loads and stores, which Clang 19 does not declare (the analysis does).
      "__global__ void stream(const int4 *in, int4 *out, const float *b, float *c, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) { __stcs(out + i, __ldcs(in + i)); __stcg(c + i, __ldlu(b + i) + __ldcv(b + i)); }\n"
      "}\n"};
  for (const std::string &source : sources) {
    const SourceAnalysis cold = analyzeSource(source, "k.cu", options, {});
    const SourceAnalysis hot = analyzeSource(source, "k.cu", warm, {});
    ASSERT_TRUE(cold.parsed && hot.parsed) << cold.compilerDiagnostics << hot.compilerDiagnostics;
    ASSERT_EQ(cold.reports.size(), 1u);
    ASSERT_EQ(hot.reports.size(), 1u);
    EXPECT_EQ(cold.reports[0].errors, 0u) << cold.compilerDiagnostics;
    EXPECT_EQ(reportToJson(hot.reports[0]), reportToJson(cold.reports[0]));
    ASSERT_TRUE(hot.reports[0].devicePassFeatures.has_value()) << "the device pass read it too";
    EXPECT_EQ(hot.reports[0].devicePassFeatures->gmem, hot.reports[0].features.gmem);
  }
  const SourceAnalysis hints = analyzeSource(sources[2], "k.cu", warm, {});
  ASSERT_EQ(hints.reports.size(), 1u);
  ASSERT_EQ(hints.reports[0].kernels.size(), 1u);
  std::size_t loads = 0, stores = 0;
  for (const auto &access : hints.reports[0].kernels[0].accesses)
    (access.kind == AccessKind::Load ? loads : stores) += access.space == MemorySpace::Global;
  EXPECT_EQ(loads, 3u);
  EXPECT_EQ(stores, 2u);
  // A device function called from host code: a CUDA call-side diagnostic of
  // the candidate's own code, still reported with the header's skipped.
  const SourceAnalysis misuse = analyzeSource("__device__ float deviceOnly(float);\n"
                                              "__global__ void k(float *x) { x[threadIdx.x] = deviceOnly(1.f); }\n"
                                              "void run(float *x) { deviceOnly(2.f); k<<<1, 32>>>(x); }\n",
                                              "k.cu", warm, {});
  EXPECT_NE(misuse.compilerDiagnostics.find("deviceOnly"), std::string::npos) << misuse.compilerDiagnostics;
  ASSERT_EQ(misuse.reports.size(), 1u);
  EXPECT_EQ(misuse.reports[0].kernels.size(), 1u);
  std::remove(header.c_str());
}

// A kernel that shows the analysis a tiled body and runs a naive one: the
// host pass (what the report reads) takes the #else, the device pass (what
// nvcc builds) the #ifdef. The device pass's features must come back beside
// the host's, and differ from them the way the running code does.
TEST(AnalyzerCompilerBranches, ArchDecoyIsAlsoReadAsTheDeviceSide) {
  const std::string decoy = "__global__ void k(const float* in, float* out, int n) {\n"
                            "#ifdef __CUDA_ARCH__\n"
                            "  int i = threadIdx.x * 32;\n"
                            "  out[i] = in[i];\n"
                            "#else\n"
                            "  __shared__ float tile[256];\n"
                            "  tile[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];\n"
                            "  __syncthreads();\n"
                            "  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];\n"
                            "#endif\n"
                            "}\n"
                            "void run(const float* a, float* b) { k<<<8, 256>>>(a, b, 2048); }\n";
  const SourceAnalysis analysis = analyze(decoy);
  ASSERT_EQ(analysis.reports.size(), 1u);
  const TranslationUnitReport &report = analysis.reports[0];
  ASSERT_EQ(report.compilerBranches.size(), 1u);
  EXPECT_EQ(report.compilerBranches[0].macro, "__CUDA_ARCH__");
  EXPECT_EQ(report.compilerBranches[0].line, 3u); // the mock include is line 1
  EXPECT_TRUE(report.compilerBranches[0].side);
  ASSERT_TRUE(report.devicePassFeatures.has_value());
  EXPECT_DOUBLE_EQ(report.features.sync, 1.0);            // the decoy's barrier
  EXPECT_DOUBLE_EQ(report.devicePassFeatures->sync, 0.0); // none in the code that runs
  EXPECT_LT(report.devicePassFeatures->coal, report.features.coal);
  EXPECT_DOUBLE_EQ(report.devicePassFeatures->tpb, 256.0); // the launch is seen from the device side too
}

TEST(AnalyzerCompilerBranches, EveryFileIsAlsoReadAsTheDeviceSide) {
  const SourceAnalysis analysis = analyze("#define BLOCK 128\n#ifndef BLOCK\n#error no\n#endif\n"
                                          "__global__ void k(float* b) { b[threadIdx.x] = 0.f; }\n"
                                          "void run(float* b) { k<<<8, BLOCK>>>(b); }\n");
  ASSERT_EQ(analysis.reports.size(), 1u);
  const TranslationUnitReport &report = analysis.reports[0];
  EXPECT_TRUE(report.compilerBranches.empty());
  ASSERT_TRUE(report.devicePassFeatures.has_value());
  EXPECT_EQ(report.devicePassFeatures->toArray(), report.features.toArray()); // alike where nothing differs
  const boost::json::object json = reportToJson(report).as_object();
  EXPECT_TRUE(json.at("compiler_branches").as_array().empty());
  EXPECT_TRUE(json.contains("device_pass"));
}

// A header decides by side and the file names no side macro (as
// NV_IF_TARGET and _CCCL_DEVICE_COMPILATION() do): nothing to list, but the
// device pass reads the body that runs.
TEST(AnalyzerCompilerBranches, AHeaderThatDecidesBySideIsReadThroughTheDevicePass) {
  const std::string header = "#ifdef __CUDA_ARCH__\n#define PICK(device, host) device\n#else\n"
                             "#define PICK(device, host) host\n#endif\n";
  const SourceAnalysis analysis = analyzeSource("#include \"cuda.h\"\n#include \"side.h\"\n"
                                                "__global__ void k(const float* in, float* out) {\n"
                                                "  PICK(out[threadIdx.x * 32] = in[threadIdx.x * 32],\n"
                                                "       out[threadIdx.x] = in[threadIdx.x]);\n"
                                                "}\n",
                                                "kernel.cu", {}, {"-nocudainc", "-nocudalib", "-isystem", "/mock"},
                                                {{"/mock/cuda.h", mockHeader()}, {"/mock/side.h", header}});
  ASSERT_EQ(analysis.reports.size(), 1u);
  const TranslationUnitReport &report = analysis.reports[0];
  EXPECT_TRUE(report.compilerBranches.empty());
  ASSERT_TRUE(report.devicePassFeatures.has_value());
  EXPECT_DOUBLE_EQ(report.features.coal, 1.0);
  EXPECT_LT(report.devicePassFeatures->coal, 1.0);
}

// Names of the compiler's own, in every form the watcher reads: tested,
// expanded in code where the file spells them, through a header macro in a
// condition; the file's own reserved-looking macro is not one of them.
TEST(AnalyzerCompilerBranches, TheCompilersOwnNamesAreCompilerBranches) {
  struct Case {
    const char *source;
    const char *macro; // "" for none
  };
  const Case cases[] = {
      {"#if __GNUC__ >= 5\n#endif\n", "__GNUC__"},
      {"#ifdef _CCCL_SOMETHING\n#endif\n", "_CCCL_SOMETHING"},
      {"#ifndef CURAND_H_\n#endif\n", "CURAND_H_"},
      {"#if defined(CUDA_DOUBLE_MATH_FUNCTIONS)\n#endif\n", "CUDA_DOUBLE_MATH_FUNCTIONS"},
      {"constexpr int w = sizeof(__INT_FAST16_TYPE__);\n", "__INT_FAST16_TYPE__"},
      {"constexpr char c = __FILE__[0];\n", "__FILE__"},
      {"#line 40\nint x;\n", "#line"},
      {"#define __MINE 1\n#ifdef __MINE\n#endif\n", ""},
      {"#if __cplusplus >= 201703L && defined(__CUDACC__)\n#endif\n", ""},
      {"constexpr int line = __LINE__;\n", ""},
      {"#ifndef TILE\n#define TILE 32\n#endif\n", ""},
  };
  for (const Case &test : cases) {
    const SourceAnalysis analysis = analyze(std::string(test.source) + "__global__ void k(float* b) { b[0] = 1; }\n");
    ASSERT_EQ(analysis.reports.size(), 1u) << test.source;
    const auto &branches = analysis.reports[0].compilerBranches;
    if (*test.macro == 0) {
      EXPECT_TRUE(branches.empty()) << test.source << " gave " << branches.front().macro;
    } else {
      ASSERT_FALSE(branches.empty()) << test.source;
      EXPECT_EQ(branches.front().macro, test.macro) << test.source;
      EXPECT_FALSE(branches.front().side) << test.source;
    }
  }
}

// What only the device side reaches: a Clang-only test nested inside
// #ifdef __CUDA_ARCH__, which the host pass skips without looking.
TEST(AnalyzerCompilerBranches, TestsOnlyTheDevicePassReachesJoinTheReport) {
  const SourceAnalysis analysis = analyze("__global__ void k(float* b) {\n"
                                          "#ifdef __CUDA_ARCH__\n"
                                          "#if defined(__clang__)\n"
                                          "  b[threadIdx.x] = 1.f;\n"
                                          "#else\n"
                                          "  b[threadIdx.x * 64] = 1.f;\n"
                                          "#endif\n"
                                          "#endif\n"
                                          "}\n");
  ASSERT_EQ(analysis.reports.size(), 1u);
  std::vector<std::pair<std::string, unsigned>> found;
  for (const CompilerBranch &branch : analysis.reports[0].compilerBranches)
    found.emplace_back(branch.macro, branch.line);
  const std::vector<std::pair<std::string, unsigned>> expected = {{"__CUDA_ARCH__", 3}, {"__clang__", 4}};
  EXPECT_EQ(found, expected);
  const boost::json::object json = reportToJson(analysis.reports[0]).as_object();
  EXPECT_TRUE(json.contains("device_pass"));
  EXPECT_EQ(json.at("compiler_branches").as_array().size(), 2u);
}

// A caller that asks for the device side gets one pass, which is the device pass.
TEST(AnalyzerCompilerBranches, AReadOfTheDeviceSideIsItsOwnDevicePass) {
  const SourceAnalysis analysis = analyzeSource(
      "#include \"cuda.h\"\n__global__ void k(float* b) { b[threadIdx.x * 2] = 0.f; }\n", "kernel.cu", {},
      {"-nocudainc", "-nocudalib", "-isystem", "/mock", "--cuda-device-only"}, {{"/mock/cuda.h", mockHeader()}});
  ASSERT_EQ(analysis.reports.size(), 1u);
  ASSERT_TRUE(analysis.reports[0].devicePassFeatures.has_value());
  EXPECT_EQ(analysis.reports[0].devicePassFeatures->toArray(), analysis.reports[0].features.toArray());
  EXPECT_DOUBLE_EQ(analysis.reports[0].features.coal, 0.4);
}

// The entry run(float *x, int n) at n = 2^20, as the daemon would bind a task's benchmark size.
AnalysisOptions runAtMegaElements() {
  AnalysisOptions options;
  options.entry = "run";
  options.entryArguments = {std::nullopt, 1 << 20};
  return options;
}

TEST(AnalyzerEntryLaunches, ParsesTheArgumentList) {
  using Values = std::vector<std::optional<std::int64_t>>;
  EXPECT_EQ(parseEntryArguments("_,_,67108864"), std::optional<Values>(Values{std::nullopt, std::nullopt, 67108864}));
  EXPECT_EQ(parseEntryArguments(" 4 , ,-2"), std::optional<Values>(Values{4, std::nullopt, -2}));
  EXPECT_EQ(parseEntryArguments(""), std::optional<Values>(Values{}));
  EXPECT_FALSE(parseEntryArguments("4,n"));
  EXPECT_FALSE(parseEntryArguments("99999999999999999999"));
}

// Host code a policy could write to make the sizing loop, overflow or divide
// by zero: no crash, no guess; the walk says why blocks and threads are unknown.
TEST(AnalyzerEntryLaunches, HostileLaunchersAreLeftUnsized) {
  const AnalysisOptions options = runAtMegaElements();
  const auto analysis = analyze(R"cu(
__global__ void k(float *x) {}
void again(float *x, int n);
void again(float *x, int n) { again(x, n + 1); k<<<n, 32>>>(x); }
static int zero(int n) { return n - n; }
extern "C" void run(float *x, int n) {
  again(x, n);                                // a launcher that never returns
  k<<<n * n * n * n, 256>>>(x);               // wraps in int
  k<<<n / zero(n), 256>>>(x);                 // division by zero
  k<<<-n, 256>>>(x);                          // wraps to 2^32 - 2^20 blocks: CUDA refuses it
  k<<<4, n>>>(x);                             // 2^20 threads a block: refused too
  k<<<(n + 255) / 256, 256>>>(x);
}
)cu",
                                options);
  ASSERT_EQ(analysis.reports.size(), 1u);
  const auto &report = analysis.reports[0];
  EXPECT_TRUE(report.features.isUnknown(*featureIndex("blocks")));
  EXPECT_TRUE(report.features.isUnknown(*featureIndex("threads")));
  EXPECT_NE(report.entryLaunchesProblem.find("calls itself"), std::string::npos) << report.entryLaunchesProblem;
}

// Host code whose launch differs at run time from what its initialisers say:
// a value written through a reference, a mutable global another function
// writes. The analysis must not size such a launch from the initialiser.
TEST(AnalyzerEntryLaunches, ValuesWrittenElsewhereAreNotTrusted) {
  const AnalysisOptions options = runAtMegaElements();
  const auto analysis = analyze(R"cu(
__global__ void k(float *x) {}
int globalBlocks = 4096;
void shrink() { globalBlocks = 1; }
extern "C" void run(float *x, int n) {
  int blocks = (n + 255) / 256;
  int &alias = blocks;
  alias = 1;
  k<<<blocks, 256>>>(x);                      // 1 block at run time, not 4096
  shrink();
  k<<<globalBlocks, 256>>>(x);                // 1 block at run time, not 4096
  const int fixed = 128;
  k<<<fixed, 256>>>(x);                       // a constant: sized
}
)cu",
                                options);
  ASSERT_EQ(analysis.reports.size(), 1u);
  const auto &report = analysis.reports[0];
  ASSERT_EQ(report.entryLaunches.size(), 1u) << reportToJson(report);
  EXPECT_EQ(report.entryLaunches[0].blocks, 128);
}

// The walk follows the entry as it runs, and gives up (unknown) wherever it
// cannot be sure which launches run with which shape. Each case is a way a
// policy's host code could make a static reading differ from the launch; the
// expected value is the blocks that really run at n = 2^20, or unknown.
TEST(AnalyzerEntryLaunches, ReportsTheLaunchThatRunsOrNothing) {
  struct Case {
    const char *what;
    const char *body; // after `__global__ void k(float *x) {}`; the entry is run(float *x, int n)
    std::optional<std::int64_t> blocks;
  };
  const Case cases[] = {
      {"an int tested as a bool is 0 or 1, whatever its low bits",
       "extern \"C\" void run(float *x, int n) { int b = n ? (n + 127) / 128 : 1; k<<<b, 128>>>(x); }", 8192},
      {"a bool added to a count is 1",
       "extern \"C\" void run(float *x, int n) { k<<<n / 1000 + (bool)(n % 1000), 1000>>>(x); }", 1049},
      {"nothing after a return runs",
       "extern \"C\" void run(float *x, int n) { if (n % 2 == 0) { k<<<n / 512, 512>>>(x); return; }\n"
       "  k<<<n, 1>>>(x); }",
       2048},
      {"&& of two known conditions",
       "extern \"C\" void run(float *x, int n) {\n"
       "  if (n > 0 && n % 256 == 0) k<<<n / 256, 256>>>(x); else k<<<n, 1>>>(x); }",
       4096},
      {"a launcher called with the size and a block size",
       "static void go(float *x, int count, int block) { k<<<(count + block - 1) / block, block>>>(x); }\n"
       "extern \"C\" void run(float *x, int n) { go(x, n, 128); }",
       8192},
      {"a functor's operator(): its object is not its first argument",
       "struct Go { float *x; void operator()(int count, int blocks, int threads) const { k<<<blocks, threads>>>(x); } "
       "};\n"
       "extern \"C\" void run(float *x, int n) { Go go{x}; go(n, 64, 256); }",
       64},
      {"two ways the size does not decide, one shape",
       "extern \"C\" void run(float *x, int n) { dim3 g(n / 256), b(256);\n"
       "  if ((unsigned long)x % 16 == 0) k<<<g, b>>>(x); else k<<<g, b>>>(x + 1); }",
       4096},
      {"two ways the size does not decide, two shapes",
       "extern \"C\" void run(float *x, int n) { if ((unsigned long)x % 16 == 0) k<<<n / 1024, 256>>>(x);\n"
       "  else k<<<n / 256, 256>>>(x); }",
       std::nullopt},
      {"a pure virtual launcher, the override launching",
       "struct B { virtual void go(float *x, int n) = 0; };\n"
       "struct D : B { void go(float *x, int n) override { k<<<n / 1024, 1024>>>(x); } };\n"
       "extern \"C\" void run(float *x, int n) { D d; B &b = d; b.go(x, n); k<<<1, 32>>>(x); }",
       std::nullopt},
      {"a launcher behind a function pointer initialised at file scope",
       "static void wide(float *x, int n) { k<<<n / 1024, 1024>>>(x); }\n"
       "static void (*const go)(float *, int) = wide;\n"
       "extern \"C\" void run(float *x, int n) { go(x, n); k<<<1, 32>>>(x); }",
       std::nullopt},
      {"a launch after a return the size does not decide",
       "extern \"C\" void run(float *x, int n) { k<<<64, 128>>>(x); if ((unsigned long)x % 16) return;\n"
       "  k<<<n, 1024>>>(x); }",
       std::nullopt},
      {"the entry's buffers are never null: a null check decides",
       "extern \"C\" void run(float *x, int n) { if (x == nullptr || !x) return; if (x) k<<<n / 64, 64>>>(x);\n"
       "  else k<<<n, 1024>>>(x); }",
       16384},
      {"NULL, 0 and a test in a launcher the buffer is passed to",
       "#define NULL __null\n"
       "static void go(const float *p, int n) { if (p != NULL && 0 != p) { k<<<n / 128, 128>>>((float *)p); return; }\n"
       "  k<<<1, 32>>>((float *)p); }\n"
       "extern \"C\" void run(float *x, int n) { const float *alias = x; go(alias, n); }",
       8192},
      {"a buffer the entry changes may be null",
       "extern \"C\" void run(float *x, int n) { x = n > 0 ? nullptr : x; if (x) k<<<n / 64, 64>>>(x);\n"
       "  k<<<n / 256, 256>>>(x); }",
       std::nullopt},
      {"a class of the file's own named dim3, derived from CUDA's: its constructor is not CUDA's",
       "namespace shape { struct dim3 : ::dim3 { dim3(unsigned v) : ::dim3(v * 8) {} }; }\n"
       "extern \"C\" void run(float *x, int n) { k<<<shape::dim3((n + 255) / 256), 256>>>(x); }",
       std::nullopt},
      {"false && unknown is false, true || unknown is true (the right side is not evaluated)",
       "extern \"C\" void run(float *x, int n) { if (n < 0 && (unsigned long)x % 16 == 0) k<<<1, 32>>>(x);\n"
       "  if (n > 0 || (unsigned long)x % 16 == 0) k<<<n / 256, 256>>>(x); }",
       4096},
      {"a launch in a constructor's member initialiser, beside a larger decoy",
       "struct Runner { int l; Runner(float *x, int n) : l((k<<<n / 32, 32>>>(x), 1)) {} };\n"
       "extern \"C\" void run(float *x, int n) { k<<<4096, 256>>>(x); Runner r(x, n); }",
       std::nullopt},
      {"a launch in an in-class member initialiser a constructor runs",
       "struct Runner { float *x; int l = (k<<<1 << 15, 32>>>(x), 1); Runner(float *p) : x(p) {} };\n"
       "extern \"C\" void run(float *x, int n) { k<<<4096, 256>>>(x); Runner r(x); }",
       std::nullopt},
      {"two buffers compared: their addresses are not known",
       "extern \"C\" void run(float *x, int n) { float *y = x + 1; if (x == y - 1) k<<<n / 64, 64>>>(x);\n"
       "  else k<<<n / 32, 32>>>(x); }",
       std::nullopt},
      {"a C++ namesake beside the function exporting the symbol by an asm label",
       "void run(float *x, int n) { k<<<n / 32, 32>>>(x); }\n"
       "void impl(float *x, int n) __asm__(\"run\");\n"
       "void impl(float *x, int n) { k<<<n / 256, 256>>>(x); }",
       4096},
      {"a launcher called from a default argument",
       "static float *target;\n"
       "static int launchWide() { k<<<1024, 1024>>>(target); return 1; }\n"
       "static void go(int done = launchWide()) {}\n"
       "extern \"C\" void run(float *x, int n) { target = x; go(); k<<<1, 32>>>(x); }",
       1024},
      {"a file's own function named max is a helper, not max",
       "namespace m { int max(int a, int b) { return a + b; } }\n"
       "extern \"C\" void run(float *x, int n) { k<<<m::max(n / 1024, 1), 256>>>(x); }",
       1025},
      {"a class derived from dim3 with its own arithmetic",
       "struct D : dim3 { D(int a) : dim3(a * 2) {} };\n"
       "extern \"C\" void run(float *x, int n) { k<<<D(n / 1024), 256>>>(x); }",
       std::nullopt},
      {"a const reference written through const_cast",
       "static void tweak(const int &t) { const_cast<int &>(t) = 1024; }\n"
       "extern \"C\" void run(float *x, int n) { int t = 128; tweak(t); k<<<n / t, t>>>(x); }",
       std::nullopt},
      {"more threads than the kernel's __launch_bounds__",
       "__global__ void __launch_bounds__(256) bounded(float *x) {}\n"
       "extern \"C\" void run(float *x, int n) { bounded<<<n, 1024>>>(x); k<<<n / 256, 256>>>(x); }",
       std::nullopt},
      {"more than 48 KiB of dynamic shared memory without an opt-in",
       "extern \"C\" void run(float *x, int n) { k<<<n, 1024, 65536>>>(x); k<<<n / 256, 256>>>(x); }", std::nullopt},
      {"a library call that launches kernels of its own",
       "namespace thrust { void fill(float *first, int count); }\n"
       "extern \"C\" void run(float *x, int n) { thrust::fill(x, n); k<<<1, 32>>>(x); }",
       std::nullopt},
      {"a functor handed to code outside the file",
       "struct F { float *x; int n; void operator()() const { k<<<n / 1024, 1024>>>(x); } };\n"
       "template <class G> void later(G g);\n"
       "extern \"C\" void run(float *x, int n) { later(F{x, n}); k<<<1, 32>>>(x); }",
       std::nullopt},
      {"signed overflow (undefined: the compiler may fold it away)",
       "extern \"C\" void run(float *x, int n) { k<<<n * 4096 / 4096 / 256, 256>>>(x); }", std::nullopt},
      {"a launch under a condition the size does not decide",
       "extern \"C\" void run(float *x, int n) { if ((unsigned long)x & 1) { k<<<1, 1>>>(x); return; }\n"
       "  k<<<n / 256, 256>>>(x); }",
       std::nullopt},
      {"a switch",
       "extern \"C\" void run(float *x, int n) { switch (n & 3) { case 0: k<<<n / 1024, 256>>>(x); break;\n"
       "  default: k<<<n, 1>>>(x); } }",
       std::nullopt},
      {"a loop that may run any number of times",
       "extern \"C\" void run(float *x, int n) { for (int p = 0; p < n / (1 << 24); ++p) k<<<65535, 1024>>>(x);\n"
       "  k<<<n / 256, 256>>>(x); }",
       std::nullopt},
      {"a launch inside a lambda",
       "extern \"C\" void run(float *x, int n) { auto go = [&](int t) { k<<<(n + t - 1) / t, t>>>(x); }; go(256);\n"
       "  k<<<1, 32>>>(x); }",
       std::nullopt},
      {"a dim3 replaced by assignment",
       "extern \"C\" void run(float *x, int n) { dim3 g(n / 256), b(256); const dim3 wide(1024);\n"
       "  if (n > 4096) { g = dim3(n / 1024); b = wide; } k<<<g, b>>>(x); }",
       std::nullopt},
      {"a size written through a reference a struct holds",
       "struct Tune { int &threads; };\n"
       "extern \"C\" void run(float *x, int n) { int t = 128; Tune tune{t}; tune.threads = 1024;\n"
       "  k<<<n / t, t>>>(x); }",
       std::nullopt},
      {"a virtual launcher",
       "struct Base { virtual void go(float *x, int n) { k<<<n / 32, 32>>>(x); } };\n"
       "struct Tiled : Base { void go(float *x, int n) override { k<<<n / 1024, 1024>>>(x); } };\n"
       "extern \"C\" void run(float *x, int n) { Tiled t; Base &b = t; b.go(x, n); }",
       std::nullopt},
      {"a launcher called through a function pointer",
       "static void wide(float *x, int n) { k<<<n / 1024, 1024>>>(x); }\n"
       "extern \"C\" void run(float *x, int n) { void (*go)(float *, int) = wide; go(x, n); k<<<1, 32>>>(x); }",
       std::nullopt},
      {"a kernel launched through the runtime API",
       "int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *);\n"
       "extern \"C\" void run(float *x, int n) { void *args[] = {&x};\n"
       "  cudaLaunchKernel((const void *)k, dim3(n / 1024), dim3(1024), args, 0, 0); k<<<1, 32>>>(x); }",
       std::nullopt},
      {"a same-named decoy beside the extern \"C\" entry (the harness calls the latter)",
       "namespace decoy { void run(float *x, int n) { k<<<n / 32, 32>>>(x); } }\n"
       "extern \"C\" void run(float *x, int n) { k<<<n / 256, 256>>>(x); }",
       4096},
      {"a static local keeps its first call's value",
       "static void go(float *x, int m) { static int blocks = (m + 255) / 256; k<<<blocks, 256>>>(x); }\n"
       "extern \"C\" void run(float *x, int n) { go(x, 1024); go(x, n); }",
       std::nullopt},
      {"a block CUDA refuses (z past 64)",
       "extern \"C\" void run(float *x, int n) { k<<<n / 512, dim3(1, 1, 512)>>>(x); }", std::nullopt},
      {"a shift by the operand's width",
       "extern \"C\" void run(float *x, int n) { unsigned t = (512u << (n >> 15)) | 128; k<<<n / t, t>>>(x); }",
       std::nullopt},
      {"a signed value compared as unsigned 64-bit",
       "extern \"C\" void run(float *x, int n) { long long r = -1; unsigned long long m = n;\n"
       "  if (r < m) k<<<1, 1>>>(x); else k<<<n / 256, 256>>>(x); }",
       std::nullopt},
  };
  for (const Case &test : cases) {
    const AnalysisOptions options = runAtMegaElements();
    const auto analysis = analyze(std::string("__global__ void k(float *x) {}\n") + test.body, options);
    ASSERT_EQ(analysis.reports.size(), 1u) << test.what;
    const auto &report = analysis.reports[0];
    EXPECT_EQ(report.errors, 0u) << test.what << "\n" << analysis.compilerDiagnostics;
    const std::size_t blocks = *featureIndex("blocks");
    if (test.blocks) {
      EXPECT_FALSE(report.features.isUnknown(blocks)) << test.what << ": " << report.entryLaunchesProblem;
      EXPECT_EQ(report.features.valueAt(blocks), static_cast<double>(*test.blocks)) << test.what;
    } else {
      EXPECT_TRUE(report.features.isUnknown(blocks))
          << test.what << ": reported " << report.features.valueAt(blocks) << " blocks";
      EXPECT_FALSE(report.entryLaunchesProblem.empty()) << test.what;
    }
  }
}
