// kernels: one entry per analysed __global__ definition (template
// instantiations separately), with location, launch bounds and kernels = 1.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class KernelInventoryRule : public FeatureRule {
public:
  const char *name() const override { return "kernels"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    for (const KernelFacts &facts : context.facts().kernels) {
      KernelReport kernel;
      kernel.name = facts.name;
      kernel.mangledName = facts.mangledName;
      kernel.location = context.location(facts.loc);
      kernel.templatePattern = facts.templatePattern;
      kernel.launchBounds = facts.launchBounds;
      kernel.features.kernels = 1;
      if (facts.budgetExhausted)
        kernel.diagnostics.push_back(
            {kernel.location, Severity::Note, name(), "analysis budget exhausted; features cover the part walked"});
      report.kernels.push_back(std::move(kernel));
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeKernelInventoryRule() { return std::make_unique<KernelInventoryRule>(); }
} // namespace cudaperf::analysis
