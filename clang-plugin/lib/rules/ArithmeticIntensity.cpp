// ops, gmem, ai per thread. ops: floating-point (and half/bf16) arithmetic,
// math calls (fma = 2), integer arithmetic on loaded data, 256 per wmma
// mma_sync; integer index arithmetic is address computation and not counted.
// gmem: bytes of global loads, stores and atomics. Both are weighted by the
// trip counts of enclosing loops (constant when known, else 8).
// ai = ops / gmem (0 when the kernel touches no global memory).
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class ArithmeticIntensityRule : public KernelRule {
public:
  const char *name() const override { return "arithmetic-intensity"; }

protected:
  void applyToKernel(AnalysisContext &, const KernelFacts &facts, KernelReport &kernel) override {
    double bytes = 0;
    for (const AccessFact &access : facts.accesses)
      if (access.space == MemorySpace::Global)
        bytes += static_cast<double>(access.bytes) * access.tripWeight;
    FeatureVector &features = kernel.features;
    features.ops = facts.weightedOps;
    features.gmem = bytes;
    features.ai = bytes > 0 ? features.ops / bytes : 0.0;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeArithmeticIntensityRule() { return std::make_unique<ArithmeticIntensityRule>(); }
} // namespace cudaperf::analysis
