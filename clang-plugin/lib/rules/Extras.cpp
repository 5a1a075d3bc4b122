// Idioms beyond the paper's eleven features: vectorized accesses, __ldg and
// const __restrict__ pointers, warp shuffles, tensor cores (wmma, mma asm),
// grid-stride loops, #pragma unroll, half/bf16 arithmetic, constant loads.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class ExtrasRule : public FeatureRule {
public:
  const char *name() const override { return "extras"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    auto &facts = context.facts();
    for (std::size_t k = 0; k < report.kernels.size(); ++k) {
      const KernelFacts &kernelFacts = facts.kernels[k];
      Extras &extras = report.kernels[k].extras;
      for (const MemoryAccess &access : report.kernels[k].accesses) {
        extras.vectorizedAccesses += access.vectorized ? 1 : 0;
        extras.ldg += access.readOnlyCache ? 1 : 0;
      }
      extras.restrictPointers = kernelFacts.restrictPointers;
      extras.warpShuffles = kernelFacts.warpShuffles;
      extras.tensorCoreOps = kernelFacts.tensorCoreOps;
      extras.gridStrideLoops = kernelFacts.gridStrideLoops;
      extras.unrollPragmas = kernelFacts.unrollPragmas;
      extras.halfArithmetic = kernelFacts.halfOps;
      extras.bf16Arithmetic = kernelFacts.bf16Ops;
      extras.constantLoads = kernelFacts.constantLoads;
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeExtrasRule() { return std::make_unique<ExtrasRule>(); }
} // namespace cudaperf::analysis
