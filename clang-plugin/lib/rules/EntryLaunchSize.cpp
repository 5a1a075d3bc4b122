// blocks and threads (extended): the launch shape at the task's benchmark
// size. Of the launches the entry makes there (EntryLaunches.h), the largest
// in threads stands for the file (the one that dominates its time in almost
// every multi-kernel file: the pass over the data, not the final reduction of
// partial sums); a kernel's own values come from its largest launch. Unknown
// without an entry, and wherever the walk had a doubt (EntryLaunches.cpp): a
// grid it cannot evaluate (an SM count asked of the device), a launch under
// a condition it cannot decide, a launch site it did not reach.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class EntryLaunchSizeRule : public FeatureRule {
public:
  const char *name() const override { return "entry_launches"; }
  void apply(AnalysisContext &context, TranslationUnitReport &report) override {
    const TranslationUnitFacts &facts = context.facts();
    report.entry = context.options().entry;
    report.entryLaunchesProblem = facts.entryLaunchesProblem;
    report.entryLaunchesComplete = facts.entryLaunchesComplete;
    const EntryLaunchFact *largest = nullptr;
    for (const EntryLaunchFact &fact : facts.entryLaunches) {
      report.entryLaunches.push_back({fact.kernelName, context.location(fact.loc), fact.blocks, fact.threadsPerBlock,
                                      fact.loopDepth, fact.certain});
      if (!largest || threads(fact) > threads(*largest))
        largest = &fact;
    }
    // A doubt (a launch that may not run, one not sized, one not reached) leaves both unknown: the
    // largest sized launch would stand for launches the walk could not see.
    const bool certain = facts.entryLaunchesProblem.empty();
    record(report.features, certain ? largest : nullptr);
    for (std::size_t k = 0; k < report.kernels.size(); ++k) {
      const clang::FunctionDecl *decl = facts.kernels[k].decl->getCanonicalDecl();
      const EntryLaunchFact *own = nullptr;
      for (const EntryLaunchFact &fact : facts.entryLaunches)
        if (fact.kernel == decl && (!own || threads(fact) > threads(*own)))
          own = &fact;
      record(report.kernels[k].features, certain ? own : nullptr);
    }
  }

private:
  static double threads(const EntryLaunchFact &fact) {
    return static_cast<double>(fact.blocks) * static_cast<double>(fact.threadsPerBlock);
  }
  static void record(FeatureVector &features, const EntryLaunchFact *launch) {
    const std::size_t blocks = *featureIndex("blocks"), total = *featureIndex("threads");
    if (!launch) {
      features.markUnknown(blocks);
      features.markUnknown(total);
      return;
    }
    features.valueAt(blocks) = static_cast<double>(launch->blocks);
    features.valueAt(total) = threads(*launch);
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeEntryLaunchSizeRule() { return std::make_unique<EntryLaunchSizeRule>(); }
} // namespace cudaperf::analysis
