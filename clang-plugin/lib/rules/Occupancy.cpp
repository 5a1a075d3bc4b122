// occ: CudaPerf's proxy from threads per block (StructuralScores.h); beside
// it, the theoretical occupancy on the target arch from tpb and shared bytes
// per block (static + constant dynamic size), registers unknown.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class OccupancyRule : public FeatureRule {
public:
  const char *name() const override { return "occupancy"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    const ArchLimits &limits = archLimits(context.options().arch.c_str());
    for (KernelReport &kernel : report.kernels) {
      Occupancy &occupancy = kernel.occupancy;
      occupancy.arch = limits.name;
      const std::int64_t tpb = occupancy.threadsPerBlock.value_or(0);
      occupancy.proxy = occupancyProxy(tpb);
      kernel.features.occ = occupancy.proxy;
      if (tpb <= 0) {
        occupancy.limiter = "unknown";
        kernel.features.markUnknown(*featureIndex("occ"));
        continue;
      }
      const std::int64_t sharedBytes = kernel.shared.staticBytes + kernel.shared.dynamicBytes.value_or(0);
      const OccupancyEstimate estimate = theoreticalOccupancy(limits, tpb, sharedBytes);
      occupancy.theoretical = estimate.theoretical;
      occupancy.activeBlocksPerSM = estimate.activeBlocks;
      occupancy.limiter = estimate.limiter;
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeOccupancyRule() { return std::make_unique<OccupancyRule>(); }
} // namespace cudaperf::analysis
