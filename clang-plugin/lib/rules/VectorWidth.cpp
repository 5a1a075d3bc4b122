// vec: bytes one thread moves per global access (4 for a float, 16 for a
// float4), access-weighted over the global loads and stores; 0 without
// global accesses. The file pools every kernel's sites.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class VectorWidthRule : public ExtendedFeatureRule {
public:
  VectorWidthRule() : ExtendedFeatureRule("vec") {}
  const char *name() const override { return "vec"; }

protected:
  FeatureParts measure(const KernelReport &kernel) const override {
    FeatureParts parts;
    for (const MemoryAccess &access : kernel.accesses)
      if (access.space == MemorySpace::Global && access.kind != AccessKind::Atomic) {
        parts.sum += access.accessBytes * access.weight;
        parts.weight += access.weight;
      }
    return parts;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeVectorWidthRule() { return std::make_unique<VectorWidthRule>(); }
} // namespace cudaperf::analysis
