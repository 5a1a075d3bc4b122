// cudaperf-features: the libTooling front end. Same analysis and report as the
// plugin, for files given on the command line or a compile_commands.json.
//
//   cudaperf-features kernel.cu                    one JSON document
//   cudaperf-features a.cu b.cu                    a JSON array, one report per file
//   cudaperf-features -p build/ src/k.cu           flags from the compilation database
//   cudaperf-features k.cu -- -I include -DN=4     explicit flags
//   cudaperf-features --entry relu --entry-args _,_,67108864 k.cu   launches sized at a task's benchmark size
#include "CacheHintIntrinsics.h"
#include "FeatureAction.h"
#include "cudaperf/contracts/ReportJson.h"
#include "cudaperf/contracts/ReportText.h"

#include <clang/Basic/Stack.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CommonOptionsParser.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>

#include <fstream>
#include <iostream>

namespace {

llvm::cl::OptionCategory category("cudaperf-features options");
llvm::cl::opt<std::string> format("format", llvm::cl::desc("Report format: json (default) or text"),
                                  llvm::cl::init("json"), llvm::cl::cat(category));
llvm::cl::opt<std::string> output("output", llvm::cl::desc("Write the report to this file (default stdout)"),
                                  llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<bool> warn("warn", llvm::cl::desc("Emit Clang warnings at the offending source locations"),
                         llvm::cl::cat(category));
llvm::cl::opt<std::string> arch("arch", llvm::cl::desc("Target of the theoretical occupancy: sm_80 or sm_90"),
                                llvm::cl::init("sm_90"), llvm::cl::cat(category));
llvm::cl::opt<bool> keepMissingIncludes("keep-missing-includes",
                                        llvm::cl::desc("Fail on missing includes instead of skipping them"),
                                        llvm::cl::cat(category));

llvm::cl::opt<std::string> entry("entry", llvm::cl::desc("The task's entry function: size the launches it makes"),
                                 llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<std::string> entryArgs("entry-args",
                                     llvm::cl::desc("Its parameters' values at the task's size, by position "
                                                    "(integers, _ for pointers and the rest): 8388608,_,_"),
                                     llvm::cl::init(""), llvm::cl::cat(category));

class FeatureActionFactory : public clang::tooling::FrontendActionFactory {
public:
  FeatureActionFactory(cudaperf::AnalysisOptions options, std::vector<cudaperf::TranslationUnitReport> &reports)
      : options_(std::move(options)), reports_(reports) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<cudaperf::analysis::FeatureAction>(
        options_, [this](cudaperf::TranslationUnitReport &&report) { reports_.push_back(std::move(report)); });
  }

private:
  cudaperf::AnalysisOptions options_;
  std::vector<cudaperf::TranslationUnitReport> &reports_;
};

} // namespace

int main(int argc, const char **argv) {
  // Lets Sema grow the stack on deeply recursive input, as the clang driver does.
  clang::noteBottomOfStack();
  // Without -p or "--", CommonOptionsParser hunts for a compilation database
  // and complains; plain files should just work.
  std::vector<const char *> args(argv, argv + argc);
  bool hasDatabase = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    hasDatabase |= arg == "--" || arg == "-p" || arg.rfind("-p=", 0) == 0 || arg.rfind("--p=", 0) == 0;
  }
  if (!hasDatabase)
    args.push_back("--");
  int count = static_cast<int>(args.size());
  auto parser = clang::tooling::CommonOptionsParser::create(count, args.data(), category, llvm::cl::OneOrMore,
                                                            "CUDA kernel structural feature report");
  if (!parser) {
    llvm::errs() << parser.takeError();
    return 2;
  }
  if (format != "json" && format != "text") {
    llvm::errs() << "cudaperf-features: --format must be json or text\n";
    return 2;
  }

  cudaperf::AnalysisOptions options;
  options.arch = arch;
  options.emitWarnings = warn;
  options.skipMissingIncludes = !keepMissingIncludes;
  options.entry = entry;
  if (auto values = cudaperf::parseEntryArguments(entryArgs)) {
    options.entryArguments = std::move(*values);
  } else {
    llvm::errs() << "cudaperf-features: --entry-args must be integers or _ separated by commas, not '" << entryArgs
                 << "'\n";
    return 2;
  }

  clang::tooling::ClangTool tool(parser->getCompilations(), parser->getSourcePathList());
  const std::vector<std::string> analysisArgs = cudaperf::analysisCompilerArgs(options, {});
  tool.appendArgumentsAdjuster(
      clang::tooling::getInsertArgumentAdjuster(analysisArgs, clang::tooling::ArgumentInsertPosition::BEGIN));
  // mapVirtualFile keeps a reference: the header is a static that outlives the tool.
  tool.mapVirtualFile(cudaperf::kCacheHintIntrinsicsPath, cudaperf::cacheHintIntrinsicsHeader());

  std::vector<cudaperf::TranslationUnitReport> reports;
  FeatureActionFactory factory(options, reports);
  tool.run(&factory);

  std::string text;
  if (format == "text") {
    for (const auto &report : reports)
      text += cudaperf::reportToText(report);
  } else {
    text = cudaperf::reportsToJsonText(reports, parser->getSourcePathList().size() > 1);
  }
  if (output.empty()) {
    std::cout << text;
  } else {
    std::ofstream file(output, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file) {
      llvm::errs() << "cudaperf-features: cannot write '" << output << "'\n";
      return 2;
    }
  }
  // Errors in host code are fine as long as every file produced a report.
  return reports.size() == parser->getSourcePathList().size() ? 0 : 1;
}
