// bank: shared-memory bank-conflict ways, access-weighted over the shared
// loads and stores whose lane stride is known (1: conflict-free, 32: every
// lane of a warp in one bank). No shared access: 1. Shared accesses whose
// conflicts cannot be known: unknown. The file pools every kernel's sites.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class BankConflictRule : public ExtendedFeatureRule {
public:
  BankConflictRule() : ExtendedFeatureRule("bank", false, 1.0) {}
  const char *name() const override { return "bank"; }

protected:
  FeatureParts measure(const KernelReport &kernel) const override {
    FeatureParts parts;
    for (const MemoryAccess &access : kernel.accesses) {
      if (access.space != MemorySpace::Shared)
        continue;
      if (!access.bankConflictWays) {
        parts.unknown = true;
        continue;
      }
      parts.sum += *access.bankConflictWays * access.weight;
      parts.weight += access.weight;
    }
    return parts;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeBankConflictRule() { return std::make_unique<BankConflictRule>(); }
} // namespace cudaperf::analysis
