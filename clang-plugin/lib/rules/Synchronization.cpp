// sync: static count of barrier call sites (__syncthreads*, __syncwarp,
// cooperative-groups sync), with a warning for a block barrier that not every
// thread may reach (under a thread-dependent condition, or after a
// thread-dependent return).
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class SynchronizationRule : public KernelRule {
public:
  const char *name() const override { return "sync"; }

protected:
  void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) override {
    for (const SyncFact &fact : facts.syncs) {
      const bool divergent = fact.underThreadDependentCondition || fact.afterThreadDependentExit;
      kernel.syncs.push_back({context.location(fact.loc), fact.function, divergent, fact.loopDepth});
      kernel.extras.loopWeightedSync += fact.tripWeight;
      // __syncwarp with a mask is designed for divergent code; block barriers are not.
      if (divergent && fact.function != "__syncwarp")
        context.warn(fact.loc, name(),
                     fact.underThreadDependentCondition
                         ? "barrier " + fact.function +
                               " under a thread-dependent condition: threads that skip it deadlock or corrupt the block"
                         : "barrier " + fact.function +
                               " after a thread-dependent return: exited threads never reach it",
                     kernel.diagnostics, fact.causeLoc,
                     fact.underThreadDependentCondition
                         ? "the condition that differs between threads"
                         : "threads for which this condition differs return here, before the barrier");
    }
    kernel.features.sync = static_cast<double>(kernel.syncs.size());
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeSynchronizationRule() { return std::make_unique<SynchronizationRule>(); }
} // namespace cudaperf::analysis
