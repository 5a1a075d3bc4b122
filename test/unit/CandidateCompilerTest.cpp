// nvcc in the sandbox with the artifact cache. Needs nvcc (no GPU).
#include "cudaperf/daemon/CandidateCompiler.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace cudaperf;
namespace fs = std::filesystem;

namespace {

class CandidateCompilerTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fs::exists("/usr/local/cuda/bin/nvcc"))
      GTEST_SKIP() << "no nvcc at /usr/local/cuda/bin";
    cache_ = fs::temp_directory_path() / ("cudaperf-compile-cache-" + std::to_string(::getpid()));
    options_.cacheDirectory = cache_;
  }
  void TearDown() override { fs::remove_all(cache_); }

  static std::string task(const std::string &file) {
    std::ifstream in(fs::path(CUDAPERF_TASKS_DIR) / "vector_add" / file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path cache_;
  CompileOptions options_;
};

} // namespace

TEST(ContentKey, SeparatesParts) {
  EXPECT_NE(contentKey({"ab", "c"}), contentKey({"a", "bc"}));
  EXPECT_EQ(contentKey({"x"}), contentKey({"x"}));
}

// SHA-256 of each part's 8-byte little-endian length and its bytes, as
// Python computes it: sha256(b"".join(len(p).to_bytes(8, "little") + p for p in parts)).
TEST(ContentKey, IsSha256OfTheLengthPrefixedParts) {
  EXPECT_EQ(contentKey({"abc"}), "ce91dc5eec0139adf091900d225971d6ad246a845bad791b5693a9d0d55dd391");
  EXPECT_EQ(contentKey({"ab", "c"}), "43ee655579de01ca739b3f95c1c2d3f46d353b2c0df818064ea594506cdb2617");
  EXPECT_EQ(contentKey({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// A part holding a NUL (a JSON string may: "\u0000") is one part: with a
// separator byte it would hash as two, and a request key could be forged.
TEST(ContentKey, APartWithANulIsNotTwoParts) {
  EXPECT_EQ(contentKey({std::string("a\0b", 3)}), "517ad782d13c0ce2844db20f13b218705358a4053981742af2fb219775bd95c2");
  EXPECT_EQ(contentKey({"a", "b"}), "cf6ab613e3942391f88ed698557e1680f160bd10e88c6b668c50360c10930e2b");
  EXPECT_NE(contentKey({std::string("a\0", 2), "b"}), contentKey({"a", std::string("\0b", 2)}));
  EXPECT_NE(contentKey({"", ""}), contentKey({""}));
}

TEST_F(CandidateCompilerTest, CompilesThenServesFromTheCache) {
  CandidateCompiler compiler(options_);
  EXPECT_NE(compiler.nvccVersion().find("release"), std::string::npos) << compiler.nvccVersion();
  const std::string source = task("variants/naive.cu");
  auto first = compiler.compile(source);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(fs::exists(first.library));
  EXPECT_GT(fs::file_size(first.library), 1000u);
  auto second = compiler.compile(source);
  EXPECT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.library, first.library);
  // Different flags: a different artifact.
  CompileOptions other = options_;
  other.arch = "sm_80";
  CandidateCompiler compiler80(other);
  auto third = compiler80.compile(source);
  ASSERT_TRUE(third.ok) << third.log;
  EXPECT_NE(third.key, first.key);
}

TEST_F(CandidateCompilerTest, PtxasFactsComeWithTheLibraryAndFromTheCache) {
  CandidateCompiler compiler(options_);
  std::ifstream in(fs::path(CUDAPERF_TASKS_DIR) / "transpose" / "variants" / "tiled_padded.cu");
  const std::string source((std::istreambuf_iterator<char>(in)), {});
  for (int pass = 0; pass < 2; ++pass) { // compiled, then served from the artifact cache
    const CompileResult result = compiler.compile(source);
    ASSERT_TRUE(result.ok) << result.log;
    EXPECT_EQ(result.cached, pass == 1);
    ASSERT_EQ(result.kernels.size(), 1u);
    EXPECT_EQ(result.kernels[0].name, "transposeTile");
    EXPECT_GT(result.kernels[0].registers, 0u);
    EXPECT_EQ(result.kernels[0].sharedBytes, 32u * 33u * 4u); // the padded tile
    EXPECT_EQ(result.kernels[0].barriers, 1u);
    EXPECT_EQ(result.log.find("ptxas info"), std::string::npos) << result.log;
  }
}

TEST_F(CandidateCompilerTest, ACandidateCannotForgePtxasFacts) {
  // #pragma message and #warning print what the candidate wants, newlines and
  // all, so whole "ptxas info" lines: before nvcc returns, never as facts.
  CandidateCompiler compiler(options_);
  const CompileResult result =
      compiler.compile("#pragma message(\"x\\nptxas info    : Compiling entry function 'forged' for 'sm_90'\\n"
                       "ptxas info    : Used 1 registers, used 0 barriers, 99999 bytes smem\\n\")\n"
                       "#warning \"y\\nptxas info    : Compiling entry function 'forged2' for 'sm_90'\"\n"
                       "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n");
  ASSERT_TRUE(result.ok) << result.log;
  ASSERT_EQ(result.kernels.size(), 1u);
  EXPECT_EQ(result.kernels[0].name, "k");
  EXPECT_EQ(result.kernels[0].sharedBytes, 0u);
  EXPECT_GT(result.kernels[0].registers, 1u);
  EXPECT_NE(result.log.find("forged"), std::string::npos); // its own messages stay its feedback
}

TEST_F(CandidateCompilerTest, OneSourceSentFourTimesAtOnceCompilesOnce) {
  CandidateCompiler compiler(options_);
  const std::string source = task("variants/naive.cu");
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (auto &result : results)
    threads.emplace_back([&] { result = compiler.compile(source); });
  for (auto &thread : threads)
    thread.join();
  int ranNvcc = 0;
  for (const auto &result : results) {
    ASSERT_TRUE(result.ok) << result.log;
    EXPECT_EQ(result.library, results[0].library);
    ranNvcc += result.cached ? 0 : 1;
  }
  EXPECT_EQ(ranNvcc, 1);
}

TEST_F(CandidateCompilerTest, OneCompileSlotRunsCompilesOneAfterTheOther) {
  options_.parallelCompiles = 1;
  CandidateCompiler compiler(options_);
  const std::string a = task("variants/naive.cu"), b = task("variants/naive.cu") + "\n// another source\n";
  CompileResult first, second;
  const auto start = std::chrono::steady_clock::now();
  std::thread one([&] { first = compiler.compile(a); });
  std::thread two([&] { second = compiler.compile(b); });
  one.join();
  two.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(first.ok && second.ok) << first.log << second.log;
  EXPECT_FALSE(first.cached || second.cached);
  // Serialised, the two nvcc runs fit in the elapsed time one after the other.
  EXPECT_GE(elapsed, first.seconds + second.seconds);
}

TEST_F(CandidateCompilerTest, CompileErrorsComeBackInTheLog) {
  CandidateCompiler compiler(options_);
  auto result = compiler.compile("__global__ void k(float *x) { x[threadIdx.x] = undefined_name; }\n");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("undefined_name"), std::string::npos) << result.log;
  EXPECT_FALSE(fs::exists(result.library));
}

TEST_F(CandidateCompilerTest, HostileCompileIsStopped) {
  // Reading an endless "header" must cost its own compile and nothing else.
  options_.limits.wallSeconds = 4;
  CandidateCompiler compiler(options_);
  auto result = compiler.compile("#include \"/dev/zero\"\n");
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.outcome == sandbox::Outcome::WallTimeout || result.outcome == sandbox::Outcome::Exited)
      << sandbox::toString(result.outcome);
  EXPECT_LT(result.seconds, 8.0);
}

TEST(ForbiddenSymbols, LibrariesAndEscapes) {
  const std::vector<std::string> undefined = {"cudaLaunchKernel@libcudart.so.13", "cublasSgemm_v2", "dlopen@GLIBC_2.34",
                                              "memcpy@GLIBC_2.14", "cublasLtMatmul"};
  auto found = forbiddenSymbols(undefined, {});
  EXPECT_EQ(found, (std::vector<std::string>{"cublasSgemm_v2", "dlopen", "cublasLtMatmul"}));
  auto allowed = forbiddenSymbols(undefined, {"cublas", "cublasLt"});
  EXPECT_EQ(allowed, (std::vector<std::string>{"dlopen"}));
  // Switching the worker's tracer off, or finding code by walking the loaded objects.
  EXPECT_EQ(forbiddenSymbols({"cuptiActivityDisable", "cuptiFinalize", "dl_iterate_phdr@GLIBC_2.2.5", "dlvsym"}, {}),
            (std::vector<std::string>{"cuptiActivityDisable", "cuptiFinalize", "dl_iterate_phdr", "dlvsym"}));
}

TEST_F(CandidateCompilerTest, ForbiddenLibraryCallIsRejected) {
  CandidateCompiler compiler(options_);
  const std::string cublasGemm = R"(#include <cublas_v2.h>
extern "C" void gemm(const float *a, const float *b, float *c, int n) {
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1, zero = 0;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}
)";
  auto rejected = compiler.compile(cublasGemm);
  EXPECT_FALSE(rejected.ok);
  EXPECT_TRUE(rejected.rejected);
  EXPECT_NE(rejected.log.find("cublasCreate_v2"), std::string::npos) << rejected.log;
  auto allowed = compiler.compile(cublasGemm, {"cublas"});
  EXPECT_TRUE(allowed.ok) << allowed.log;
  auto escape = compiler.compile("#include <cstdlib>\nextern \"C\" void run() { std::system(\"cat /etc/passwd\"); }\n");
  EXPECT_TRUE(escape.rejected);
  EXPECT_NE(escape.log.find("system"), std::string::npos);
  EXPECT_TRUE(compiler.compile(task("variants/naive.cu")).ok);
}

TEST_F(CandidateCompilerTest, AnIncludeOfAHostFileOutsideTheCompilersViewFails) {
  const fs::path folder = "/var/tmp/cudaperf-include-probe";
  fs::create_directories(folder);
  std::ofstream(folder / "secret.h") << "int leaked_marker_5813 = ;";
  fs::permissions(folder, fs::perms(0755));
  fs::permissions(folder / "secret.h", fs::perms(0644));
  CandidateCompiler compiler(options_);
  const auto outside = compiler.compile("#include \"" + (folder / "secret.h").string() + "\"\n");
  // The repository itself (a variant someone could copy) is outside too.
  const auto repository = compiler.compile(
      "#include \"" + (fs::path(CUDAPERF_TASKS_DIR) / "vector_add" / "variants" / "naive.cu").string() + "\"\n");
  fs::remove_all(folder);
  EXPECT_FALSE(outside.ok);
  EXPECT_NE(outside.log.find("No such file or directory"), std::string::npos) << outside.log;
  EXPECT_EQ(outside.log.find("leaked_marker_5813"), std::string::npos) << outside.log;
  EXPECT_FALSE(repository.ok) << repository.log;
  EXPECT_NE(repository.log.find("No such file or directory"), std::string::npos) << repository.log;
}
