// cudaperf.so: the Clang plugin front end. Loaded with -fplugin=, it runs
// after the main action (AddAfterMainAction), so a plain compile or
// -fsyntax-only also produces the feature report. The registration lives
// only here: the libTooling binary must not run the consumer twice.
#include "../lib/FeatureConsumer.h"
#include "cudaperf/contracts/ReportJson.h"
#include "cudaperf/contracts/ReportText.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendPluginRegistry.h>
#include <llvm/Support/raw_ostream.h>

#include <fstream>

namespace {

using namespace clang;

class CudaPerfAction : public PluginASTAction {
public:
  bool ParseArgs(const CompilerInstance &compiler, const std::vector<std::string> &args) override {
    auto &diagnostics = compiler.getDiagnostics();
    for (const std::string &arg : args) {
      llvm::StringRef value(arg);
      if (value.consume_front("format=")) {
        if (value != "json" && value != "text")
          return error(diagnostics, "cudaperf: format must be json or text, not '" + value.str() + "'");
        format_ = value.str();
      } else if (value.consume_front("output=")) {
        output_ = value.str();
      } else if (value == "warn") {
        options_.emitWarnings = true;
      } else if (value.consume_front("arch=")) {
        options_.arch = value.str();
      } else if (value == "keep-missing-includes") {
        options_.skipMissingIncludes = false;
      } else if (value == "timing") {
        options_.printTiming = true;
      } else if (value.consume_front("entry=")) {
        options_.entry = value.str();
      } else if (value.consume_front("entry-args=")) {
        auto values = cudaperf::parseEntryArguments(value);
        if (!values)
          return error(diagnostics,
                       "cudaperf: entry-args must be integers or _ separated by commas, not '" + value.str() + "'");
        options_.entryArguments = std::move(*values);
      } else if (value == "device-pass") {
        reportDevicePass_ = true;
      } else if (value == "help") {
        llvm::errs() << "cudaperf plugin arguments (-fplugin-arg-cudaperf-<arg>):\n"
                        "  format=json|text   report format (default json)\n"
                        "  output=FILE        write the report to FILE (default stdout)\n"
                        "  warn               Clang warnings at uncoalesced accesses, divergent barriers,\n"
                        "                     bank conflicts and transfers in loops\n"
                        "  arch=sm_80|sm_90   target of the theoretical occupancy (default sm_90)\n"
                        "  keep-missing-includes  fail on missing includes instead of skipping them\n"
                        "  device-pass        report from the device pass (for --cuda-device-only)\n"
                        "  entry=NAME         the task's entry function: size the launches it makes\n"
                        "  entry-args=V,...   its parameters' values at the task's size (integers, _ for\n"
                        "                     pointers and the rest): the blocks and threads features\n"
                        "  timing             print the analysis time on stderr\n";
      } else {
        return error(diagnostics, "cudaperf: unknown plugin argument '" + arg + "' (try help)");
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddAfterMainAction; }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &compiler, llvm::StringRef) override {
    // clang -x cuda runs one host and one device compile per arch; the host
    // AST holds every kernel body and launch, so the report comes from it once.
    const bool devicePass = compiler.getLangOpts().CUDAIsDevice;
    if (devicePass != reportDevicePass_ && compiler.getLangOpts().CUDA) {
      cudaperf::analysis::installIncludeRecovery(compiler, options_, std::make_shared<std::vector<std::string>>());
      return std::make_unique<ASTConsumer>();
    }
    // Clang destroys this action right after it hands over the consumer:
    // the sink keeps its own copy of the settings.
    return cudaperf::analysis::createFeatureConsumer(
        compiler, options_, [format = format_, output = output_, &compiler](cudaperf::TranslationUnitReport &&report) {
          write(compiler, report, format, output);
        });
  }

private:
  static bool error(DiagnosticsEngine &diagnostics, const std::string &message) {
    diagnostics.Report(diagnostics.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << message;
    return false;
  }

  static void write(CompilerInstance &compiler, const cudaperf::TranslationUnitReport &report,
                    const std::string &format, const std::string &output) {
    const std::string text =
        format == "text" ? cudaperf::reportToText(report) : cudaperf::reportsToJsonText({report}, false);
    if (output.empty()) {
      llvm::outs() << text;
      llvm::outs().flush();
      return;
    }
    std::ofstream file(output, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file)
      error(compiler.getDiagnostics(), "cudaperf: cannot write report to '" + output + "'");
  }

  cudaperf::AnalysisOptions options_;
  std::string format_ = "json";
  std::string output_;
  bool reportDevicePass_ = false;
};

} // namespace

static FrontendPluginRegistry::Add<CudaPerfAction> registration("cudaperf", "CUDA kernel structural feature report");
