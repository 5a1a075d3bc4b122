// grid_stride: grid-stride loops (the extras' grid_stride_loops: a loop
// whose step is the grid's size in threads), per kernel; the file sums.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

const std::size_t kIndex = *featureIndex("grid_stride");

class GridStrideRule : public FeatureRule {
public:
  const char *name() const override { return "grid_stride"; }
  void apply(AnalysisContext &, TranslationUnitReport &report) override {
    double total = 0;
    for (KernelReport &kernel : report.kernels) {
      setExtended(kernel.features, kIndex, kernel.extras.gridStrideLoops, false);
      total += kernel.extras.gridStrideLoops;
    }
    setExtended(report.features, kIndex, total, false);
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeGridStrideRule() { return std::make_unique<GridStrideRule>(); }
} // namespace cudaperf::analysis
