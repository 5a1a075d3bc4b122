// One feature rule turns collected facts into its part of the report. Rules
// run in the order of the registry (RuleRegistry.cpp); later rules may read
// what earlier ones wrote (occupancy reads tpb and shared bytes).
#pragma once

#include "../AnalysisContext.h"

#include <memory>
#include <vector>

namespace cudaperf::analysis {

class FeatureRule {
public:
  virtual ~FeatureRule() = default;
  virtual const char *name() const = 0;
  // report.kernels[i] belongs to context.facts().kernels[i].
  virtual void apply(AnalysisContext &context, TranslationUnitReport &report) = 0;
};

// Most rules look at one kernel at a time: its collected facts and its part
// of the report (the loop over kernels is here, once).
class KernelRule : public FeatureRule {
public:
  void apply(AnalysisContext &context, TranslationUnitReport &report) final {
    for (std::size_t k = 0; k < report.kernels.size(); ++k)
      applyToKernel(context, context.facts().kernels[k], report.kernels[k]);
  }

protected:
  virtual void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) = 0;
};

// An extended feature measured per kernel as a sum over its sites, with a
// weight: the kernel's value is sum / weight (a weighted mean) or the sum
// itself (a count); the file's pools every kernel's sums and weights.
struct FeatureParts {
  double sum = 0, weight = 0;
  bool unknown = false; // some sites could not be measured
};

class ExtendedFeatureRule : public FeatureRule {
public:
  void apply(AnalysisContext &, TranslationUnitReport &report) final {
    FeatureParts file;
    for (KernelReport &kernel : report.kernels) {
      const FeatureParts parts = measure(kernel);
      record(kernel.features, parts);
      file.sum += parts.sum, file.weight += parts.weight, file.unknown |= parts.unknown;
    }
    record(report.features, file);
  }

protected:
  explicit ExtendedFeatureRule(const char *feature, bool isCount = false, double withoutSites = 0.0)
      : index_(*featureIndex(feature)), isCount_(isCount), withoutSites_(withoutSites) {}
  virtual FeatureParts measure(const KernelReport &kernel) const = 0;

private:
  // Unknown only when nothing could be measured: known sites decide otherwise.
  void record(FeatureVector &features, const FeatureParts &parts) const {
    const double value = isCount_ ? parts.sum : parts.weight > 0 ? parts.sum / parts.weight : withoutSites_;
    features.valueAt(index_) = value;
    if (parts.unknown && parts.weight == 0)
      features.markUnknown(index_);
  }
  std::size_t index_;
  bool isCount_;
  double withoutSites_;
};

std::vector<std::unique_ptr<FeatureRule>> makeFeatureRules();

// Each rule's factory, defined in its own file.
std::unique_ptr<FeatureRule> makeKernelInventoryRule();
std::unique_ptr<FeatureRule> makeAccessStrideRule();
std::unique_ptr<FeatureRule> makeCoalescingRule();
std::unique_ptr<FeatureRule> makeSharedMemoryRule();
std::unique_ptr<FeatureRule> makeDivergenceRule();
std::unique_ptr<FeatureRule> makeSynchronizationRule();
std::unique_ptr<FeatureRule> makeAtomicsRule();
std::unique_ptr<FeatureRule> makeLaunchConfigRule();
std::unique_ptr<FeatureRule> makeOccupancyRule();
std::unique_ptr<FeatureRule> makeArithmeticIntensityRule();
std::unique_ptr<FeatureRule> makeTransfersRule();
std::unique_ptr<FeatureRule> makeExtrasRule();
std::unique_ptr<FeatureRule> makeAggregationRule();
// The extended features (beyond CudaPerf's 11), one rule each.
std::unique_ptr<FeatureRule> makeBankConflictRule();
std::unique_ptr<FeatureRule> makeVectorWidthRule();
std::unique_ptr<FeatureRule> makeSharedReuseRule();
std::unique_ptr<FeatureRule> makeWarpPrimitiveRule();
std::unique_ptr<FeatureRule> makeGridStrideRule();
std::unique_ptr<FeatureRule> makeEntryLaunchSizeRule();

} // namespace cudaperf::analysis
