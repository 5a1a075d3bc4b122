// atomics: static count of atomic call sites, each with its memory space
// (global or shared); a loop-weighted count goes to extras.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class AtomicsRule : public FeatureRule {
public:
  const char *name() const override { return "atomics"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    auto &facts = context.facts();
    for (std::size_t k = 0; k < report.kernels.size(); ++k) {
      KernelReport &kernel = report.kernels[k];
      for (const AtomicFact &fact : facts.kernels[k].atomics) {
        kernel.atomics.push_back({context.location(fact.loc), fact.function, fact.space, fact.loopDepth});
        kernel.extras.loopWeightedAtomics += fact.tripWeight;
      }
      kernel.features.atomics = static_cast<double>(kernel.atomics.size());
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeAtomicsRule() { return std::make_unique<AtomicsRule>(); }
} // namespace cudaperf::analysis
