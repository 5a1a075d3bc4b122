// reuse: shared-memory loads per global load, both loop-weighted: how many
// times an element fetched from global memory is read again from shared
// memory (a tiled GEMM reads each staged element TILE times; a kernel that
// reads global memory directly, 0). 0 without global loads.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class SharedReuseRule : public ExtendedFeatureRule {
public:
  SharedReuseRule() : ExtendedFeatureRule("reuse") {}
  const char *name() const override { return "reuse"; }

protected:
  FeatureParts measure(const KernelReport &kernel) const override {
    FeatureParts parts; // sum: shared loads, weight: global loads
    for (const MemoryAccess &access : kernel.accesses) {
      if (access.kind != AccessKind::Load)
        continue;
      if (access.space == MemorySpace::Shared)
        parts.sum += access.weight;
      else if (access.space == MemorySpace::Global)
        parts.weight += access.weight;
    }
    return parts;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeSharedReuseRule() { return std::make_unique<SharedReuseRule>(); }
} // namespace cudaperf::analysis
