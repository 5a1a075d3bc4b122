// div: branches whose condition depends on threadIdx through data flow, by
// class. A bounds guard (a global index against a problem size) and a
// warp-uniform condition (threadIdx.x / 32, threadIdx.y, blockIdx, params)
// are reported but do not count; div is the 8^depth-weighted fraction of
// lane-divergent branches among all branches.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

BranchClass classify(const BranchFact &fact) {
  if (fact.variance == Variance::Uniform)
    return BranchClass::Uniform;
  if (fact.boundsGuard)
    return BranchClass::Guard;
  if (fact.variance == Variance::WarpUniform)
    return BranchClass::WarpUniform;
  return BranchClass::LaneDivergent;
}

class DivergenceRule : public KernelRule {
public:
  const char *name() const override { return "divergence"; }

protected:
  void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) override {
    double divergent = 0, total = 0;
    for (const BranchFact &fact : facts.branches) {
      Branch branch;
      branch.location = context.location(fact.loc);
      branch.kind = fact.kind;
      branch.branchClass = classify(fact);
      branch.condition = fact.condition;
      branch.loopDepth = fact.loopDepth;
      branch.weight = loopSiteWeight(fact.loopDepth);
      total += branch.weight;
      if (branch.branchClass == BranchClass::LaneDivergent)
        divergent += branch.weight;
      kernel.branches.push_back(std::move(branch));
    }
    kernel.features.div = total > 0 ? divergent / total : 0.0;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeDivergenceRule() { return std::make_unique<DivergenceRule>(); }
} // namespace cudaperf::analysis
