// reuse: shared-memory loads per global load, both loop-weighted: how many
// times an element fetched from global memory is read again from shared
// memory (a tiled GEMM reads each staged element TILE times; a kernel that
// reads global memory directly, 0). 0 without global loads.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

const std::size_t kIndex = *featureIndex("reuse");

class SharedReuseRule : public FeatureRule {
public:
  const char *name() const override { return "reuse"; }
  void apply(AnalysisContext &, TranslationUnitReport &report) override {
    double fileShared = 0, fileGlobal = 0;
    for (KernelReport &kernel : report.kernels) {
      double shared = 0, global = 0;
      for (const MemoryAccess &access : kernel.accesses) {
        if (access.kind != AccessKind::Load)
          continue;
        if (access.space == MemorySpace::Shared)
          shared += access.weight;
        else if (access.space == MemorySpace::Global)
          global += access.weight;
      }
      setExtended(kernel.features, kIndex, global > 0 ? shared / global : 0.0, false);
      fileShared += shared, fileGlobal += global;
    }
    setExtended(report.features, kIndex, fileGlobal > 0 ? fileShared / fileGlobal : 0.0, false);
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeSharedReuseRule() { return std::make_unique<SharedReuseRule>(); }
} // namespace cudaperf::analysis
