// Compiles a candidate .cu into a shared library with nvcc, inside the
// sandbox, with a content-addressed artifact cache: the key hashes the
// source, the flags and the nvcc version, so a changed toolchain or flag
// never serves a stale library.
#pragma once

#include "cudaperf/contracts/ContentKey.h"

#include "cudaperf/daemon/PtxasFacts.h"
#include "cudaperf/daemon/Sandbox.h"

#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cudaperf {

struct CompileOptions {
  std::filesystem::path nvcc = "/usr/local/cuda/bin/nvcc";
  std::string arch = "sm_90";
  std::vector<std::string> extraFlags;
  std::filesystem::path cacheDirectory; // required
  // nvcc processes at once (0: one per core). More only slows each down: the
  // first libraries reach the GPU later and nothing finishes sooner.
  unsigned parallelCompiles = 0;
  sandbox::Limits limits = defaultCompileLimits();

  static sandbox::Limits defaultCompileLimits();
};

struct CompileResult {
  bool ok = false;
  bool rejected = false;              // compiled, but uses a forbidden symbol
  std::vector<std::string> forbidden; // the symbols that made it rejected
  bool cached = false;
  std::string log;    // compiler output (capped), or why the compile was stopped
  double seconds = 0; // wall time of nvcc (0 when cached)
  std::filesystem::path library;
  std::string key;                      // content hash
  std::vector<KernelResources> kernels; // ptxas's facts of each kernel it compiled
  sandbox::Outcome outcome = sandbox::Outcome::Exited;
};

class CandidateCompiler {
public:
  explicit CandidateCompiler(CompileOptions options);

  // nvcc -O3 -shared -Xcompiler -fPIC -arch=ARCH [extra flags] candidate.cu -o candidate.so,
  // then the library's undefined symbols are checked against the forbidden
  // list (libraries the task does not allow, dlopen, processes, sockets).
  CompileResult compile(const std::string &source, const std::vector<std::string> &allowedLibraries = {});

  const std::string &nvccVersion() const { return nvccVersion_; }
  std::vector<std::string> flags() const;

private:
  CompileResult build(const std::string &source);
  CompileResult runNvcc(const std::string &source, CompileResult result);
  std::string undefinedSymbols(CompileResult &result);
  CompileOptions options_;
  std::string nvccVersion_;
  std::mutex cacheMutex_;
  // Identical sources compiling at once (a GRPO group often repeats one)
  // share one nvcc run.
  std::map<std::string, std::shared_future<CompileResult>> building_;
  std::mutex slotsMutex_;
  std::condition_variable slotFreed_;
  unsigned slotsFree_ = 0;
};

// Undefined symbols of `library` that a candidate may not use, given the
// libraries its task allows (names as in task.json: cublas, cudnn, ...).
std::vector<std::string> forbiddenSymbols(const std::vector<std::string> &undefinedSymbols,
                                          const std::vector<std::string> &allowedLibraries);

} // namespace cudaperf
