// analyzeSource(): the library entry point for in-process callers (daemon,
// fuzzer). Parses a source held in memory with libTooling.
#include "cudaperf/analysis/Analyzer.h"

#include "CacheHintIntrinsics.h"
#include "FeatureAction.h"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/Stack.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/thread.h>

#include <algorithm>
#include <optional>

#ifndef CUDAPERF_CLANG_RESOURCE_DIR
#define CUDAPERF_CLANG_RESOURCE_DIR ""
#endif

namespace cudaperf {

namespace {
constexpr unsigned kParserStackBytes = 64u << 20;

// CUDA 13 no longer ships texture_fetch_functions.h, which Clang 19's
// runtime wrapper includes: an empty in-memory one, for the precompiled
// header and the analyses that use it alike (they must see the same paths).
constexpr const char *kCompatDirectory = "/cudaperf-compat";
// The (empty) main file of the precompiled header: a PCH names its input,
// so every analysis that uses it must see that file too.
constexpr const char *kPreambleSource = "/cudaperf-input/preamble.cu";

llvm::IntrusiveRefCntPtr<clang::FileManager>
inMemoryFiles(const std::vector<std::pair<std::string, std::string>> &files) {
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  overlay->pushOverlay(memory);
  memory->addFile(std::string(kCompatDirectory) + "/texture_fetch_functions.h", 0,
                  llvm::MemoryBuffer::getMemBufferCopy("", "texture_fetch_functions.h"));
  memory->addFile(kPreambleSource, 0, llvm::MemoryBuffer::getMemBufferCopy("", kPreambleSource));
  memory->addFile(kCacheHintIntrinsicsPath, 0,
                  llvm::MemoryBuffer::getMemBufferCopy(cacheHintIntrinsicsHeader(), kCacheHintIntrinsicsPath));
  for (const auto &[path, contents] : files)
    memory->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(contents, path));
  return llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
}

// Runs a Clang invocation on a thread with a large stack (Sema recurses
// deeply on some broken inputs; as the clang driver does, note where the
// stack starts so Sema moves to fresh stacks when it runs low).
// What Clang prints goes to `diagnostics`.
bool runOnLargeStack(clang::tooling::ToolInvocation &invocation, std::string &diagnostics) {
  llvm::raw_string_ostream stream(diagnostics);
  auto diagnosticOptions = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(stream, diagnosticOptions.get());
  invocation.setDiagnosticConsumer(&printer);
  bool ran = false;
  llvm::thread parser(std::optional<unsigned>(kParserStackBytes), [&] {
    clang::noteBottomOfStack();
    ran = invocation.run();
  });
  parser.join();
  stream.flush();
  return ran;
}

bool readsHostSide(const std::vector<std::string> &commandLine) {
  return std::find(commandLine.begin(), commandLine.end(), "--cuda-device-only") == commandLine.end();
}

// Every file is read a second time as Clang's device pass, which defines
// __CUDA_ARCH__ as nvcc's device pass does: the code that runs, also where
// a header decides by side (NV_IF_TARGET, _CCCL_DEVICE_COMPILATION) and the
// file itself names no side macro. Its features go beside the host pass's
// (the daemon scores the lower of the two), and the compiler branches only
// that pass reaches (inside an #ifdef __CUDA_ARCH__) join the report's.
void addDevicePass(TranslationUnitReport &report, const std::string &path, const AnalysisOptions &options,
                   const std::vector<std::string> &compilerArgs, clang::FileManager &files) {
  AnalysisOptions plain = options;
  plain.precompiledHeader = options.devicePrecompiledHeader;
  plain.emitWarnings = false;
  std::vector<std::string> deviceArgs;
  for (std::size_t i = 0; i < compilerArgs.size(); ++i) {
    if (compilerArgs[i] == "-include-pch") {
      ++i; // and its file
      continue;
    }
    if (compilerArgs[i] != "--cuda-host-only")
      deviceArgs.push_back(compilerArgs[i]);
  }
  deviceArgs.push_back("--cuda-device-only");
  std::vector<std::string> commandLine = {"clang++", "-fsyntax-only"};
  for (std::string &arg : analysisCompilerArgs(plain, deviceArgs))
    commandLine.push_back(std::move(arg));
  commandLine.push_back(path);
  std::optional<TranslationUnitReport> device;
  auto action = std::make_unique<analysis::FeatureAction>(
      plain, [&device](TranslationUnitReport &&deviceReport) { device = std::move(deviceReport); });
  clang::tooling::ToolInvocation invocation(commandLine, std::move(action), &files);
  std::string ignored;
  runOnLargeStack(invocation, ignored);
  if (!device)
    return; // unreadable as the device side: no device features, which the daemon scores as the floor
  report.devicePassFeatures = device->features;
  for (const CompilerBranch &branch : device->compilerBranches) {
    const bool known =
        std::any_of(report.compilerBranches.begin(), report.compilerBranches.end(),
                    [&](const CompilerBranch &seen) { return seen.macro == branch.macro && seen.line == branch.line; });
    if (!known)
      report.compilerBranches.push_back(branch);
  }
}

} // namespace

std::vector<std::string> analysisCompilerArgs(const AnalysisOptions &options,
                                              const std::vector<std::string> &userArgs) {
  std::vector<std::string> args;
  const std::string resourceDir = CUDAPERF_CLANG_RESOURCE_DIR;
  if (!resourceDir.empty())
    args.push_back("-resource-dir=" + resourceDir);
  bool hasArch = false, hasSide = false;
  for (const std::string &arg : userArgs) {
    hasArch |= arg.rfind("--cuda-gpu-arch=", 0) == 0 || arg.rfind("--offload-arch=", 0) == 0;
    hasSide |= arg == "--cuda-device-only" || arg == "--cuda-host-only";
  }
  // The host pass alone sees every kernel body and launch: half the parse time.
  if (!hasSide)
    args.push_back("--cuda-host-only");
  if (!hasArch)
    args.push_back("--cuda-gpu-arch=" + (isKnownArch(options.arch.c_str()) ? options.arch : std::string("sm_90")));
  args.push_back("-Wno-unknown-cuda-version");
  // CUDA 13 keeps libcu++ (cuda/std/...), CUB and Thrust under include/cccl,
  // which nvcc adds as a system directory and Clang 19 does not know of:
  // without it <cooperative_groups.h> and <cub/cub.cuh> fail to parse and
  // every cg:: call in real code becomes an error expression.
  std::string cudaPath = "/usr/local/cuda";
  for (const std::string &arg : userArgs)
    if (arg.rfind("--cuda-path=", 0) == 0)
      cudaPath = arg.substr(12);
  if (llvm::sys::fs::is_directory(cudaPath + "/include/cccl")) {
    args.push_back("-isystem");
    args.push_back(cudaPath + "/include/cccl");
  }
  // Typo correction is where Clang 19 recurses without bound on some broken
  // launches (k<<<blocks, kBLock>>> beside kBlock): an analysis needs no
  // "did you mean" suggestions, and broken code parses faster without them.
  args.push_back("-fno-spell-checking");
  args.push_back("-ferror-limit=0");
  if (!options.precompiledHeader.empty()) {
    args.push_back(std::string("-I") + kCompatDirectory);
    args.push_back("-include-pch");
    args.push_back(options.precompiledHeader);
  }
  // After the precompiled header, which has it already (then a no-op).
  args.push_back("-include");
  args.push_back(kCacheHintIntrinsicsPath);
  args.insert(args.end(), userArgs.begin(), userArgs.end());
  return args;
}

SourceAnalysis analyzeSource(std::string_view source, std::string_view fileName, const AnalysisOptions &options,
                             const std::vector<std::string> &compilerArgs,
                             const std::vector<std::pair<std::string, std::string>> &extraFiles) {
  std::string path(fileName);
  if (path.empty() || path.front() != '/')
    path = "/cudaperf-input/" + (path.empty() ? std::string("kernel.cu") : path);
  std::vector<std::pair<std::string, std::string>> files = extraFiles;
  files.emplace_back(path, std::string(source));
  auto fileManager = inMemoryFiles(files);

  std::vector<std::string> commandLine = {"clang++", "-fsyntax-only"};
  for (std::string &arg : analysisCompilerArgs(options, compilerArgs))
    commandLine.push_back(std::move(arg));
  commandLine.push_back(path);

  SourceAnalysis result;
  auto action = std::make_unique<analysis::FeatureAction>(
      options, [&result](TranslationUnitReport &&report) { result.reports.push_back(std::move(report)); });
  clang::tooling::ToolInvocation invocation(commandLine, std::move(action), fileManager.get());
  std::string diagnosticText;
  const bool ran = runOnLargeStack(invocation, diagnosticText);
  result.parsed = ran || !result.reports.empty();
  result.compilerDiagnostics = std::move(diagnosticText);
  if (!result.reports.empty() && readsHostSide(commandLine))
    addDevicePass(result.reports.front(), path, options, compilerArgs, *fileManager);
  else if (!result.reports.empty()) // the caller asked for the device side: the report is that pass
    result.reports.front().devicePassFeatures = result.reports.front().features;
  return result;
}

std::string buildAnalysisPreamble(const AnalysisOptions &options, const std::string &file, bool deviceSide) {
  AnalysisOptions plain = options;
  plain.precompiledHeader.clear();
  const std::string source = kPreambleSource;
  // -S for the device side: with -c its compile writes a temporary for ptxas, not `file`.
  std::vector<std::string> commandLine = {"clang++", deviceSide ? "-S" : "-c"};
  const std::vector<std::string> side =
      deviceSide ? std::vector<std::string>{"--cuda-device-only"} : std::vector<std::string>{};
  for (std::string &arg : analysisCompilerArgs(plain, side))
    commandLine.push_back(std::move(arg));
  // Templates instantiated while building the header, once: otherwise every
  // analysis instantiates <cmath>'s special functions again (90 ms of 110).
  commandLine.insert(commandLine.end(), {std::string("-I") + kCompatDirectory, "-Xclang", "-fpch-instantiate-templates",
                                         "-o", file, source});
  auto fileManager = inMemoryFiles({});
  clang::tooling::ToolInvocation invocation(commandLine, std::make_unique<clang::GeneratePCHAction>(),
                                            fileManager.get());
  std::string diagnosticText;
  const bool ran = runOnLargeStack(invocation, diagnosticText);
  if (!ran || !llvm::sys::fs::exists(file))
    return diagnosticText.empty() ? "the precompiled header was not written" : diagnosticText;
  return "";
}

} // namespace cudaperf
