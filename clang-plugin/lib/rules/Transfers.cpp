// xfer: host<->device transfers (cudaMemcpy*, cudaMemPrefetchAsync) and
// managed allocations, each weighted 8^loop_depth. The TU's xfer is their sum;
// a kernel's xfer sums the transfers that come before one of its launches in
// the same host function. A transfer inside a loop gets a warning.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class TransfersRule : public FeatureRule {
public:
  const char *name() const override { return "transfers"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    auto &facts = context.facts();
    HostSummary &host = report.host;
    host.skippedIncludes = facts.skippedIncludes;
    double total = 0;
    for (const TransferFact &fact : facts.transfers) {
      const double weight = loopSiteWeight(fact.loopDepth);
      host.transfers.push_back({context.location(fact.loc), fact.function, fact.hostFunction, fact.loopDepth, weight});
      total += weight;
      if (fact.managed)
        ++host.managedAllocations;
      if (fact.loopDepth > 0 && !fact.managed)
        context.warn(fact.loc, name(), fact.function + " inside a loop: a host<->device transfer on every iteration",
                     report.diagnostics);
    }
    for (const DeviceSyncFact &sync : facts.deviceSyncs) {
      ++host.deviceSyncs;
      if (sync.loopDepth > 0)
        ++host.deviceSyncsInLoops;
    }
    report.features.xfer = total;

    for (std::size_t k = 0; k < report.kernels.size(); ++k) {
      const clang::FunctionDecl *decl = facts.kernels[k].decl->getCanonicalDecl();
      double xfer = 0;
      for (const TransferFact &transfer : facts.transfers) {
        bool before = false;
        for (const LaunchFact &launch : facts.launches)
          before |=
              launch.kernel == decl && launch.hostFunction == transfer.hostFunction && transfer.order < launch.order;
        if (before)
          xfer += loopSiteWeight(transfer.loopDepth);
      }
      unsigned syncsInLoops = 0;
      for (const DeviceSyncFact &sync : facts.deviceSyncs) {
        bool launches = false;
        for (const LaunchFact &launch : facts.launches)
          launches |= launch.kernel == decl && launch.hostFunction == sync.hostFunction;
        if (launches && sync.loopDepth > 0)
          ++syncsInLoops;
      }
      report.kernels[k].features.xfer = xfer;
      report.kernels[k].extras.deviceSyncInLoops = syncsInLoops;
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeTransfersRule() { return std::make_unique<TransfersRule>(); }
} // namespace cudaperf::analysis
