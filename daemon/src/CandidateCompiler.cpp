#include "cudaperf/daemon/CandidateCompiler.h"

#include "cudaperf/contracts/Utf8Text.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace cudaperf {

namespace {
// Between nvcc's messages and ptxas's report on the compile's stderr.
constexpr const char *kPtxasSeparator = "@@cudaperf: ptxas -v of the kept PTX@@";
} // namespace

namespace fs = std::filesystem;

sandbox::Limits CompileOptions::defaultCompileLimits() {
  sandbox::Limits limits;
  limits.wallSeconds = 120;
  limits.cpuSeconds = 120;
  limits.fileSizeBytes = 512ull << 20;
  // RLIMIT_NPROC counts every process of the sandbox user, so parallel
  // compiles share it; nvcc runs no candidate code, so a high ceiling is safe.
  limits.processes = 4096;
  limits.outputBytes = 256 << 10;
  limits.niceness = 10; // second to the GPU's judge and worker
  return limits;
}

std::vector<std::string> forbiddenSymbols(const std::vector<std::string> &undefinedSymbols,
                                          const std::vector<std::string> &allowedLibraries) {
  // Symbol prefixes of each library a task may allow.
  static const std::vector<std::pair<std::string, std::vector<std::string>>> libraryPrefixes = {
      {"cublas", {"cublas"}}, {"cublasLt", {"cublasLt"}}, {"cudnn", {"cudnn"}},      {"cufft", {"cufft"}},
      {"curand", {"curand"}}, {"cusparse", {"cusparse"}}, {"cusolver", {"cusolver"}}};
  // Never allowed: loading or looking up code at run time, starting
  // processes, the network, the profiler and tracer the worker runs (CUPTI).
  static const std::vector<std::string> alwaysForbidden = {"dlopen",
                                                           "dlmopen",
                                                           "dlsym",
                                                           "dlvsym",
                                                           "__libc_dlopen_mode",
                                                           "__libc_dlsym",
                                                           "_dl_sym",
                                                           "dl_iterate_phdr",
                                                           "system",
                                                           "popen",
                                                           "fork",
                                                           "vfork",
                                                           "clone",
                                                           "execv",
                                                           "execve",
                                                           "execvp",
                                                           "execl",
                                                           "execlp",
                                                           "execle",
                                                           "posix_spawn",
                                                           "posix_spawnp",
                                                           "socket",
                                                           "connect",
                                                           "ptrace",
                                                           "cudaProfilerStart",
                                                           "cudaProfilerStop"};
  // ... and stream memory operations (a GPU-side wait the judge's own writes
  // would set off) and the driver entry points that would reach them.
  static const std::vector<std::string> alwaysForbiddenPrefixes = {"cupti",
                                                                   "cuProfiler",
                                                                   "cuStreamWaitValue",
                                                                   "cuStreamWriteValue",
                                                                   "cuStreamBatchMemOp",
                                                                   "cudaGetDriverEntryPoint",
                                                                   "cuGetProcAddress"};
  std::vector<std::string> found;
  for (const std::string &symbol : undefinedSymbols) {
    const std::string name = symbol.substr(0, symbol.find('@'));
    bool bad = std::find(alwaysForbidden.begin(), alwaysForbidden.end(), name) != alwaysForbidden.end();
    for (const auto &prefix : alwaysForbiddenPrefixes)
      bad |= name.rfind(prefix, 0) == 0;
    for (const auto &[library, prefixes] : libraryPrefixes) {
      if (std::find(allowedLibraries.begin(), allowedLibraries.end(), library) != allowedLibraries.end())
        continue;
      for (const auto &prefix : prefixes)
        bad |= name.rfind(prefix, 0) == 0 &&
               !(library == "cublas" && name.rfind("cublasLt", 0) == 0 &&
                 std::find(allowedLibraries.begin(), allowedLibraries.end(), "cublasLt") != allowedLibraries.end());
    }
    if (bad)
      found.push_back(name);
  }
  return found;
}

CandidateCompiler::CandidateCompiler(CompileOptions options) : options_(std::move(options)) {
  fs::create_directories(options_.cacheDirectory);
  slotsFree_ =
      options_.parallelCompiles ? options_.parallelCompiles : std::max(1u, std::thread::hardware_concurrency());
  // nvcc sees the system (toolchains, headers) and its toolkit, nothing else
  // of the host: no repository, no task folder, no other user's files that
  // an #include could pull into the compiler's errors.
  if (options_.limits.rootView.empty()) {
    options_.limits.rootView = sandbox::systemRootView();
    std::error_code error;
    const fs::path toolkit = fs::weakly_canonical(options_.nvcc, error).parent_path().parent_path();
    if (!error && !toolkit.empty())
      options_.limits.rootView.push_back(toolkit.string());
  }
  sandbox::Request request;
  request.argv = {options_.nvcc.string(), "--version"};
  sandbox::Limits limits = options_.limits;
  limits.wallSeconds = 30;
  const auto result = sandbox::run(request, limits);
  nvccVersion_ = result.succeeded() ? result.stdoutText : "unknown nvcc (" + result.note + result.stderrText + ")";
}

std::vector<std::string> CandidateCompiler::flags() const {
  // -cudart shared: the candidate uses the harness's CUDA runtime (one runtime
  // per process), and its own undefined symbols stay visible to the
  // forbidden-symbol check (the static runtime brings dlopen and sockets).
  std::vector<std::string> flags = {
      "-O3", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-arch=" + options_.arch};
  flags.insert(flags.end(), options_.extraFlags.begin(), options_.extraFlags.end());
  return flags;
}

CompileResult CandidateCompiler::compile(const std::string &source, const std::vector<std::string> &allowedLibraries) {
  CompileResult result = build(source);
  if (!result.ok)
    return result;
  std::vector<std::string> undefined;
  const std::string listing = undefinedSymbols(result);
  if (!result.ok)
    return result;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    const auto last = line.find_last_of(' ');
    if (last != std::string::npos)
      undefined.push_back(line.substr(last + 1));
  }
  result.forbidden = forbiddenSymbols(undefined, allowedLibraries);
  if (!result.forbidden.empty()) {
    result.ok = false;
    result.rejected = true;
    result.log += "\nrejected: uses forbidden symbols:";
    for (const auto &symbol : result.forbidden)
      result.log += " " + symbol;
  }
  return result;
}

// nm's listing of the library's undefined dynamic symbols, read inside the
// sandbox (the ELF is untrusted) once per artifact and cached beside it.
std::string CandidateCompiler::undefinedSymbols(CompileResult &result) {
  const fs::path cached = options_.cacheDirectory / (result.key + ".undefined");
  if (std::ifstream in(cached); in)
    return std::string(std::istreambuf_iterator<char>(in), {});
  sandbox::Request request;
  request.argv = {"/bin/sh", "-c", "cat > candidate.so && exec nm -D --undefined-only candidate.so"};
  std::ifstream library(result.library, std::ios::binary);
  request.stdinData.assign(std::istreambuf_iterator<char>(library), {});
  sandbox::Limits limits = options_.limits;
  limits.wallSeconds = 30;
  limits.outputBytes = 16 << 20;
  const auto listing = sandbox::run(request, limits);
  if (!listing.succeeded()) {
    result.ok = false;
    result.log += "\ncannot list the library's symbols: " + listing.stderrText + listing.note;
    return "";
  }
  std::lock_guard lock(cacheMutex_);
  const fs::path temporary = cached.string() + ".tmp" + std::to_string(::getpid());
  std::ofstream(temporary, std::ios::trunc) << listing.stdoutText;
  fs::rename(temporary, cached);
  return listing.stdoutText;
}

CompileResult CandidateCompiler::build(const std::string &source) {
  CompileResult result;
  const std::vector<std::string> compileFlags = flags();
  // The artifact, its log and ptxas's report of it (an artifact cached
  // without the report is not reused).
  std::vector<std::string> keyParts = {source, nvccVersion_, "with ptxas report"};
  keyParts.insert(keyParts.end(), compileFlags.begin(), compileFlags.end());
  result.key = contentKey(keyParts);
  result.library = options_.cacheDirectory / (result.key + ".so");
  const fs::path logFile = options_.cacheDirectory / (result.key + ".log");
  std::promise<CompileResult> mine;
  std::shared_future<CompileResult> other;
  {
    std::lock_guard lock(cacheMutex_);
    if (fs::exists(result.library)) {
      result.ok = true;
      result.cached = true;
      std::ifstream log(logFile);
      result.log.assign(std::istreambuf_iterator<char>(log), {});
      std::ifstream ptxas(options_.cacheDirectory / (result.key + ".ptxas"));
      result.kernels = parsePtxasLog(std::string(std::istreambuf_iterator<char>(ptxas), {}));
      return result;
    }
    if (auto running = building_.find(result.key); running != building_.end())
      other = running->second;
    else
      building_[result.key] = mine.get_future().share();
  }
  if (other.valid()) {
    CompileResult shared = other.get();
    shared.cached = true;
    shared.seconds = 0;
    return shared;
  }
  CompileResult built;
  try {
    built = runNvcc(source, result);
  } catch (...) {
    built = result;
    built.log = "the compile could not run";
  }
  {
    std::lock_guard lock(cacheMutex_);
    building_.erase(result.key);
  }
  mine.set_value(built);
  return built;
}

CompileResult CandidateCompiler::runNvcc(const std::string &source, CompileResult result) {
  const std::vector<std::string> compileFlags = flags();
  const fs::path logFile = options_.cacheDirectory / (result.key + ".log");
  // The sandbox's private directory holds the source and the output.
  sandbox::Request request;
  // The library comes back on stdout; nvcc's own messages go to stderr.
  // Then, after a separator, ptxas -v on the PTX nvcc kept (-keep changes no
  // code): its report of each kernel's resources. Everything a candidate can
  // make the compiler print (#warning, #pragma message, with newlines) is
  // printed before nvcc returns, so the text after the last separator is
  // ptxas's alone: forged "ptxas info" lines stay in the log, never in the facts.
  const fs::path ptxas = options_.nvcc.parent_path() / "ptxas";
  request.argv = {"/bin/sh", "-c",
                  "cat > candidate.cu && \"$0\" \"$@\" -keep candidate.cu -o candidate.so 1>&2 && "
                  "printf '\\n%s\\n' '" +
                      std::string(kPtxasSeparator) + "' 1>&2 && { '" + ptxas.string() + "' -v -arch=" + options_.arch +
                      " candidate.ptx -o /dev/null 1>&2 || true; } && cat candidate.so",
                  options_.nvcc.string()};
  request.argv.insert(request.argv.end(), compileFlags.begin(), compileFlags.end());
  request.stdinData = source;
  sandbox::Limits limits = options_.limits;
  limits.outputBytes = std::max<std::size_t>(limits.outputBytes, 64ull << 20); // the library itself
  sandbox::Result run;
  {
    std::unique_lock slots(slotsMutex_);
    slotFreed_.wait(slots, [&] { return slotsFree_ > 0; });
    --slotsFree_;
  }
  struct Release {
    CandidateCompiler &compiler;
    ~Release() {
      {
        std::lock_guard slots(compiler.slotsMutex_);
        ++compiler.slotsFree_;
      }
      compiler.slotFreed_.notify_one();
    }
  } release{*this};
  run = sandbox::run(request, limits);
  result.seconds = run.wallSeconds;
  result.outcome = run.outcome;
  std::string ptxasReport;
  if (const auto separator = run.stderrText.rfind(kPtxasSeparator); separator != std::string::npos) {
    ptxasReport = run.stderrText.substr(separator + std::string_view(kPtxasSeparator).size());
    run.stderrText.resize(separator > 0 ? separator - 1 : 0); // and the newline printed before it
  }
  result.kernels = parsePtxasLog(ptxasReport);
  result.log = contracts::utf8Head(run.stderrText, options_.limits.outputBytes);
  if (!run.succeeded()) {
    switch (run.outcome) {
    case sandbox::Outcome::WallTimeout:
      result.log += "\ncompilation stopped: wall-clock limit reached";
      break;
    case sandbox::Outcome::CpuLimit:
      result.log += "\ncompilation stopped: CPU time limit reached";
      break;
    case sandbox::Outcome::OutputLimit:
      result.log += "\ncompilation stopped: output too large";
      break;
    case sandbox::Outcome::FileSizeLimit:
      result.log += "\ncompilation stopped: file size limit reached";
      break;
    case sandbox::Outcome::StartFailed:
      result.log += "\ncompiler could not start: " + run.note;
      break;
    default:
      break;
    }
    return result;
  }
  if (run.stdoutText.size() < 4 || run.stdoutText.compare(0, 4,
                                                          "\x7f"
                                                          "ELF") != 0) {
    result.log += "\nnvcc produced no shared library";
    return result;
  }
  // Publish atomically: a concurrent reader sees the whole file or none.
  std::lock_guard lock(cacheMutex_);
  const fs::path temporary = result.library.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(run.stdoutText.data(), static_cast<std::streamsize>(run.stdoutText.size()));
    std::ofstream(logFile, std::ios::trunc) << result.log;
    std::ofstream(options_.cacheDirectory / (result.key + ".ptxas"), std::ios::trunc) << ptxasReport;
  }
  fs::rename(temporary, result.library);
  result.ok = true;
  return result;
}

} // namespace cudaperf
