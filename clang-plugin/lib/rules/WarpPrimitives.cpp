// warp: warp-level primitive sites (__shfl*_sync, cooperative-groups
// shfl*, cg::reduce: the extras' warp_shuffles), per kernel; the file sums.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

const std::size_t kIndex = *featureIndex("warp");

class WarpPrimitiveRule : public FeatureRule {
public:
  const char *name() const override { return "warp"; }
  void apply(AnalysisContext &, TranslationUnitReport &report) override {
    double total = 0;
    for (KernelReport &kernel : report.kernels) {
      setExtended(kernel.features, kIndex, kernel.extras.warpShuffles, false);
      total += kernel.extras.warpShuffles;
    }
    setExtended(report.features, kIndex, total, false);
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeWarpPrimitiveRule() { return std::make_unique<WarpPrimitiveRule>(); }
} // namespace cudaperf::analysis
