// warp: warp-level primitive sites (__shfl*_sync, cooperative-groups
// shfl*, cg::reduce: the extras' warp_shuffles), per kernel; the file sums.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class WarpPrimitiveRule : public ExtendedFeatureRule {
public:
  WarpPrimitiveRule() : ExtendedFeatureRule("warp", true) {}
  const char *name() const override { return "warp"; }

protected:
  FeatureParts measure(const KernelReport &kernel) const override {
    return {static_cast<double>(kernel.extras.warpShuffles), 1};
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeWarpPrimitiveRule() { return std::make_unique<WarpPrimitiveRule>(); }
} // namespace cudaperf::analysis
