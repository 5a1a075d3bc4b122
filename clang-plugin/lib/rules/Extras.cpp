// Idioms beyond the paper's eleven features: vectorized accesses, __ldg and
// const __restrict__ pointers, warp shuffles, tensor cores (wmma, mma asm),
// grid-stride loops, #pragma unroll, half/bf16 arithmetic, constant loads.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class ExtrasRule : public KernelRule {
public:
  const char *name() const override { return "extras"; }

protected:
  void applyToKernel(AnalysisContext &, const KernelFacts &facts, KernelReport &kernel) override {
    Extras &extras = kernel.extras;
    for (const MemoryAccess &access : kernel.accesses) {
      extras.vectorizedAccesses += access.vectorized ? 1 : 0;
      extras.ldg += access.readOnlyCache ? 1 : 0;
    }
    extras.restrictPointers = facts.restrictPointers;
    extras.warpShuffles = facts.warpShuffles;
    extras.tensorCoreOps = facts.tensorCoreOps;
    extras.gridStrideLoops = facts.gridStrideLoops;
    extras.unrollPragmas = facts.unrollPragmas;
    extras.halfArithmetic = facts.halfOps;
    extras.bf16Arithmetic = facts.bf16Ops;
    extras.constantLoads = facts.constantLoads;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeExtrasRule() { return std::make_unique<ExtrasRule>(); }
} // namespace cudaperf::analysis
