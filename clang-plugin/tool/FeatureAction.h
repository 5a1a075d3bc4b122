// libTooling side: the frontend action that feeds the shared consumer.
#pragma once

#include "../lib/FeatureConsumer.h"
#include "HeaderDiagnosticsFilter.h"

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Sema/Sema.h>

namespace cudaperf::analysis {

class FeatureAction : public clang::ASTFrontendAction {
public:
  FeatureAction(AnalysisOptions options, ReportSink sink) : options_(std::move(options)), sink_(std::move(sink)) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &compiler, llvm::StringRef) override {
    return createFeatureConsumer(compiler, options_, sink_);
  }

  void ExecuteAction() override {
    clang::CompilerInstance &compiler = getCompilerInstance();
    if (!options_.precompiledHeader.empty()) {
      if (!compiler.hasSema())
        compiler.createSema(getTranslationUnitKind(), nullptr);
      installHeaderDiagnosticsFilter(compiler.getSema());
    }
    clang::ASTFrontendAction::ExecuteAction();
  }

private:
  AnalysisOptions options_;
  ReportSink sink_;
};

} // namespace cudaperf::analysis
