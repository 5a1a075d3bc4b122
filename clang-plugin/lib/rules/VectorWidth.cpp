// vec: bytes one thread moves per global access (4 for a float, 16 for a
// float4), access-weighted over the global loads and stores; 0 without
// global accesses. The file pools every kernel's sites.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

const std::size_t kIndex = *featureIndex("vec");

class VectorWidthRule : public FeatureRule {
public:
  const char *name() const override { return "vec"; }
  void apply(AnalysisContext &, TranslationUnitReport &report) override {
    double fileSum = 0, fileWeight = 0;
    for (KernelReport &kernel : report.kernels) {
      double sum = 0, weight = 0;
      for (const MemoryAccess &access : kernel.accesses)
        if (access.space == MemorySpace::Global && access.kind != AccessKind::Atomic) {
          sum += access.accessBytes * access.weight;
          weight += access.weight;
        }
      setExtended(kernel.features, kIndex, weight > 0 ? sum / weight : 0.0, false);
      fileSum += sum, fileWeight += weight;
    }
    setExtended(report.features, kIndex, fileWeight > 0 ? fileSum / fileWeight : 0.0, false);
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeVectorWidthRule() { return std::make_unique<VectorWidthRule>(); }
} // namespace cudaperf::analysis
