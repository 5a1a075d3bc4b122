// coal: CudaPerf's stride map per global access (StructuralScores.h), averaged
// over access sites with weight 8^loop_depth. Unknown strides score 0 and are
// counted, never taken as coalesced.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class CoalescingRule : public KernelRule {
public:
  const char *name() const override { return "coalescing"; }

protected:
  void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) override {
    double weighted = 0, weights = 0;
    for (std::size_t a = 0; a < kernel.accesses.size(); ++a) {
      MemoryAccess &access = kernel.accesses[a];
      if (access.space != MemorySpace::Global)
        continue;
      access.score = coalescingScore(access.strideClass, access.stride);
      weighted += access.score * access.weight;
      weights += access.weight;
      const bool uncoalesced =
          access.strideClass == StrideClass::Symbolic ||
          (access.strideClass == StrideClass::Constant && (access.stride > 4 || access.stride < -4));
      if (uncoalesced) {
        const std::string stride =
            access.strideClass == StrideClass::Symbolic ? access.strideExpr : std::to_string(access.stride);
        context.warn(facts.accesses[a].loc, name(),
                     std::string("global ") + toString(access.kind) +
                         (access.kind == AccessKind::Store ? " to '" : " from '") + access.variable + "' has stride " +
                         stride + " elements across threadIdx.x: uncoalesced",
                     kernel.diagnostics);
      }
    }
    kernel.features.coal = weights > 0 ? weighted / weights : 0.0;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeCoalescingRule() { return std::make_unique<CoalescingRule>(); }
} // namespace cudaperf::analysis
