// libFuzzer target: mutated kernel sources through the whole analysis
// (parse, index analysis, every rule, JSON writer). Any crash, hang past the
// libFuzzer timeout, or sanitizer report is a bug: the analysis must survive
// whatever an LLM writes. Seeds: the lit tests and the corpus (their real
// CUDA includes are missing here and get skipped, as for any missing header).
#include "cudaperf/analysis/Analyzer.h"
#include "cudaperf/contracts/ReportJson.h"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const std::string &mockCudaHeader() {
  static const std::string header = [] {
    std::ifstream file(CUDAPERF_MOCK_CUDA_HEADER);
    std::stringstream contents;
    contents << file.rdbuf();
    return contents.str();
  }();
  return header;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size > 32768)
    return 0; // long inputs only slow the search down
  const std::string source = "#include \"cuda.h\"\n" + std::string(reinterpret_cast<const char *>(data), size);
  cudaperf::AnalysisOptions options;
  const auto analysis =
      cudaperf::analyzeSource(source, "/fuzz/kernel.cu", options, {"-nocudainc", "-nocudalib", "-I/fuzz/include", "-w"},
                              {{"/fuzz/include/cuda.h", mockCudaHeader()}});
  for (const auto &report : analysis.reports)
    (void)cudaperf::reportsToJsonText({report}, false);
  return 0;
}
