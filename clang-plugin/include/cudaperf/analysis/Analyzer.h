// Public entry points of the cudaperf analysis library. No Clang type crosses
// this header: callers get plain report structures (cudaperf/contracts).
#pragma once

#include "cudaperf/contracts/FeatureReport.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf {

struct AnalysisOptions {
  std::string arch = "sm_90";      // target of the theoretical occupancy (sm_80, sm_90)
  bool emitWarnings = false;       // Clang warnings at the offending source locations
  bool skipMissingIncludes = true; // e.g. torch/extension.h: skip it, keep parsing the kernels
  bool printTiming = false;        // "cudaperf: analysis of FILE took X ms" on stderr (benchmarks)
  // A precompiled header of the CUDA runtime wrapper (buildAnalysisPreamble)
  // for in-memory analyses: the headers are parsed once, not per request.
  std::string precompiledHeader;
  // The same for the device pass that analyzeSource adds (built with deviceSide).
  std::string devicePrecompiledHeader;
  // The task's entry function and the values its parameters take at the
  // task's benchmark size, by position (nullopt: a pointer, a float, or not
  // given): the launches the entry reaches are then sized (the report's
  // entry_launches, the extended features blocks and threads).
  std::string entry;
  std::vector<std::optional<std::int64_t>> entryArguments;
};

// "_,_,67108864" (plugin argument entry-args=, --entry-args): one value per
// parameter of the entry, an integer or _ (or nothing) for one not bound.
// nullopt when an item is neither.
std::optional<std::vector<std::optional<std::int64_t>>> parseEntryArguments(std::string_view text);

struct SourceAnalysis {
  bool parsed = false; // false only when Clang could not run at all
  std::vector<TranslationUnitReport> reports;
  std::string compilerDiagnostics; // what Clang printed (errors in host code, ...)
};

// Compiler flags that make Clang 19 parse a CUDA 13 file for analysis: host pass
// only (the host AST holds every kernel body), the target arch, and the CUDA
// version warning silenced. `userArgs` come after and win.
std::vector<std::string> analysisCompilerArgs(const AnalysisOptions &options, const std::vector<std::string> &userArgs);

// Analyses one CUDA source held in memory (the daemon, the fuzzer).
// `extraFiles` are additional in-memory headers, as {path, contents}.
// Unless `compilerArgs` ask for the device side, the file is read twice:
// as Clang's host pass (the report) and as its device pass, whose features
// become the report's devicePassFeatures (docs/features.md "Compiler
// branches": the code that runs is nvcc's device pass).
SourceAnalysis analyzeSource(std::string_view source, std::string_view fileName, const AnalysisOptions &options,
                             const std::vector<std::string> &compilerArgs,
                             const std::vector<std::pair<std::string, std::string>> &extraFiles = {});

// Writes the precompiled header of everything Clang includes implicitly in
// CUDA mode (the runtime wrapper, the CUDA headers) for `options`; an
// analyzeSource with options.precompiledHeader set to `file` then skips that
// parse (with deviceSide, the device pass's: options.devicePrecompiledHeader).
// Returns an empty string on success, else Clang's diagnostics.
std::string buildAnalysisPreamble(const AnalysisOptions &options, const std::string &file, bool deviceSide = false);

} // namespace cudaperf
