// grid_stride: grid-stride loops (the extras' grid_stride_loops: a loop
// whose step is the grid's size in threads), per kernel; the file sums.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class GridStrideRule : public ExtendedFeatureRule {
public:
  GridStrideRule() : ExtendedFeatureRule("grid_stride", true) {}
  const char *name() const override { return "grid_stride"; }

protected:
  FeatureParts measure(const KernelReport &kernel) const override {
    return {static_cast<double>(kernel.extras.gridStrideLoops), 1};
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeGridStrideRule() { return std::make_unique<GridStrideRule>(); }
} // namespace cudaperf::analysis
