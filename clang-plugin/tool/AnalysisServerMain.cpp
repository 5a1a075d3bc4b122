// cudaperf-analysis-server: the analysis of untrusted sources, out of the
// daemon's process. The daemon keeps a few of these warm (the CUDA headers
// precompiled once, loaded per request) in the sandbox with a memory limit
// and kills one whose analysis runs past its deadline: a Clang crash or a
// runaway parse (a macro bomb) then costs that request an error, never the
// daemon.
//
//   cudaperf-analysis-server [--pch ARCH[:device]=FILE]... [--arg FLAG]...   serve on descriptor 3
//   cudaperf-analysis-server --build-pch FILE [--arch ARCH] [--side device]  write the precompiled headers
//
// ARCH:device names the precompiled headers of the device pass that every
// analysis adds (cudaperf/analysis/Analyzer.h).
//
// Requests on descriptor 3: a JSON line {"source_bytes": N, "file": NAME,
// "arch": ARCH}, then N bytes of source. Answers: one JSON line each, the
// feature report ({"report": {...}}) or {"error": "..."}.
#include "cudaperf/analysis/Analyzer.h"
#include "cudaperf/contracts/ReportJson.h"

#include <boost/json.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace json = boost::json;

namespace {

constexpr int kChannel = 3;

bool readLine(int fd, std::string &line) {
  line.clear();
  char c;
  while (true) {
    const ssize_t got = read(fd, &c, 1);
    if (got <= 0)
      return false;
    if (c == '\n')
      return true;
    line.push_back(c);
    if (line.size() > 4096)
      return false;
  }
}

bool readExactly(int fd, std::string &into, std::size_t bytes) {
  into.resize(bytes);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = read(fd, into.data() + done, bytes - done);
    if (got <= 0)
      return false;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

bool writeAll(int fd, const std::string &text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t put = write(fd, text.data() + done, text.size() - done);
    if (put <= 0)
      return false;
    done += static_cast<std::size_t>(put);
  }
  return true;
}

json::object analyze(const std::string &source, const std::string &file, const std::string &arch,
                     const json::object &request, const std::map<std::string, std::string> &headers,
                     const std::vector<std::string> &args) {
  cudaperf::AnalysisOptions options;
  options.arch = arch;
  // {"entry": NAME, "entry_args": [int|null, ...]}: the task's entry at its benchmark size.
  if (const auto *entry = request.if_contains("entry"); entry && entry->is_string())
    options.entry = std::string(entry->get_string());
  if (const auto *values = request.if_contains("entry_args"); values && values->is_array())
    for (const json::value &value : values->get_array())
      options.entryArguments.push_back(value.is_int64() ? std::optional<std::int64_t>(value.get_int64())
                                                        : std::nullopt);
  if (auto known = headers.find(arch); known != headers.end())
    options.precompiledHeader = known->second;
  if (auto known = headers.find(arch + ":device"); known != headers.end())
    options.devicePrecompiledHeader = known->second;
  const cudaperf::SourceAnalysis analysis =
      cudaperf::analyzeSource(source, file, options, cudaperf::analysisCompilerArgs(options, args));
  if (!analysis.parsed || analysis.reports.empty())
    return {{"error", "the analysis could not run: " + analysis.compilerDiagnostics}};
  return {{"report", cudaperf::reportToJson(analysis.reports.front())}};
}

int usage() {
  std::cerr << "usage: cudaperf-analysis-server [--pch ARCH[:device]=FILE]... [--arg FLAG]...   (requests on "
               "descriptor 3)\n"
               "       cudaperf-analysis-server --build-pch FILE [--arch ARCH] [--side device]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::map<std::string, std::string> headers;
  std::vector<std::string> args;
  std::string buildPch, arch = "sm_90";
  bool deviceSide = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc)
      return usage();
    const std::string value = argv[++i];
    if (arg == "--pch" && value.find('=') != std::string::npos)
      headers[value.substr(0, value.find('='))] = value.substr(value.find('=') + 1);
    else if (arg == "--arg")
      args.push_back(value);
    else if (arg == "--build-pch")
      buildPch = value;
    else if (arg == "--arch")
      arch = value;
    else if (arg == "--side" && (value == "device" || value == "host"))
      deviceSide = value == "device";
    else
      return usage();
  }
  if (!buildPch.empty()) {
    cudaperf::AnalysisOptions options;
    options.arch = arch;
    const std::string problem = cudaperf::buildAnalysisPreamble(options, buildPch, deviceSide);
    if (!problem.empty())
      std::cerr << problem;
    return problem.empty() ? 0 : 1;
  }
  // Nothing but the answers leaves this process: no stray output to cap.
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  std::string line, source;
  while (readLine(kChannel, line)) {
    boost::system::error_code error;
    const json::value request = json::parse(line, error);
    const json::object *object = error ? nullptr : request.if_object();
    const json::value *bytes = object ? object->if_contains("source_bytes") : nullptr;
    if (!bytes || !bytes->is_int64() || bytes->get_int64() < 0 || bytes->get_int64() > (64 << 20))
      return 2;
    if (!readExactly(kChannel, source, static_cast<std::size_t>(bytes->get_int64())))
      return 2;
    auto text = [&](const char *key, const char *fallback) {
      const json::value *value = object->if_contains(key);
      return value && value->is_string() ? std::string(value->get_string()) : std::string(fallback);
    };
    const json::object answer =
        analyze(source, text("file", "kernel.cu"), text("arch", "sm_90"), *object, headers, args);
    if (!writeAll(kChannel, json::serialize(answer) + "\n"))
      return 3;
  }
  return 0;
}
