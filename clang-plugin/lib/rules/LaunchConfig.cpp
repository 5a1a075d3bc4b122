// Launches and tpb: every <<<grid, block, shared, stream>>> with the
// dimensions that evaluate to constants (literals, dim3 locals, constexpr,
// macros, locals written once). A kernel's tpb comes from its first launch
// with a known block, else from __launch_bounds__, else it is unknown (0).
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class LaunchConfigRule : public FeatureRule {
public:
  const char *name() const override { return "launch"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    auto &facts = context.facts();
    for (const LaunchFact &fact : facts.launches) {
      LaunchSite launch;
      launch.kernel = fact.kernelName;
      launch.location = context.location(fact.loc);
      launch.hostFunction = fact.hostFunction;
      launch.grid = fact.grid;
      launch.block = fact.block;
      launch.dynamicSharedBytes = fact.dynamicSharedBytes;
      launch.usesStream = fact.usesStream;
      launch.loopDepth = fact.loopDepth;
      report.launches.push_back(std::move(launch));
    }
    for (std::size_t k = 0; k < report.kernels.size(); ++k) {
      KernelReport &kernel = report.kernels[k];
      const clang::FunctionDecl *decl = facts.kernels[k].decl->getCanonicalDecl();
      std::optional<std::int64_t> tpb;
      for (const LaunchFact &fact : facts.launches) {
        if (fact.kernel != decl)
          continue;
        ++kernel.launchCount;
        if (!tpb && fact.block.product())
          tpb = fact.block.product();
        if (!kernel.shared.dynamicBytes && fact.dynamicSharedBytes && *fact.dynamicSharedBytes > 0)
          kernel.shared.dynamicBytes = fact.dynamicSharedBytes;
      }
      kernel.occupancy.tpbSource = "launch";
      if (!tpb && kernel.launchBounds.maxThreadsPerBlock) {
        tpb = kernel.launchBounds.maxThreadsPerBlock;
        kernel.occupancy.tpbSource = "launch_bounds";
      }
      if (!tpb)
        kernel.occupancy.tpbSource = "unknown";
      kernel.occupancy.threadsPerBlock = tpb;
      kernel.features.tpb = tpb ? static_cast<double>(*tpb) : 0.0;
      if (!tpb)
        kernel.features.markUnknown(*featureIndex("tpb"));
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeLaunchConfigRule() { return std::make_unique<LaunchConfigRule>(); }
} // namespace cudaperf::analysis
