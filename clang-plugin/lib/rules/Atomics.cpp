// atomics: static count of atomic call sites, each with its memory space
// (global or shared); a loop-weighted count goes to extras.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class AtomicsRule : public KernelRule {
public:
  const char *name() const override { return "atomics"; }

protected:
  void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) override {
    for (const AtomicFact &fact : facts.atomics) {
      kernel.atomics.push_back({context.location(fact.loc), fact.function, fact.space, fact.loopDepth});
      kernel.extras.loopWeightedAtomics += fact.tripWeight;
    }
    kernel.features.atomics = static_cast<double>(kernel.atomics.size());
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeAtomicsRule() { return std::make_unique<AtomicsRule>(); }
} // namespace cudaperf::analysis
