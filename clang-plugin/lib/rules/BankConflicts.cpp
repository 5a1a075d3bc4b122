// bank: shared-memory bank-conflict ways, access-weighted over the shared
// loads and stores whose lane stride is known (1: conflict-free, 32: every
// lane of a warp in one bank). No shared access: 1. Shared accesses whose
// conflicts cannot be known: unknown. The file pools every kernel's sites.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

const std::size_t kIndex = *featureIndex("bank");

class BankConflictRule : public FeatureRule {
public:
  const char *name() const override { return "bank"; }
  void apply(AnalysisContext &, TranslationUnitReport &report) override {
    double fileSum = 0, fileWeight = 0;
    bool fileUnknown = false;
    for (KernelReport &kernel : report.kernels) {
      double sum = 0, weight = 0;
      bool unknown = false;
      for (const MemoryAccess &access : kernel.accesses) {
        if (access.space != MemorySpace::Shared)
          continue;
        if (!access.bankConflictWays) {
          unknown = true;
          continue;
        }
        sum += *access.bankConflictWays * access.weight;
        weight += access.weight;
      }
      setExtended(kernel.features, kIndex, weight > 0 ? sum / weight : 1.0, unknown && weight == 0);
      fileSum += sum, fileWeight += weight, fileUnknown |= unknown && weight == 0;
    }
    setExtended(report.features, kIndex, fileWeight > 0 ? fileSum / fileWeight : 1.0, fileUnknown && fileWeight == 0);
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeBankConflictRule() { return std::make_unique<BankConflictRule>(); }
} // namespace cudaperf::analysis
