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

// An extended feature's value (index from featureIndex), or unknown.
inline void setExtended(FeatureVector &features, std::size_t index, double value, bool unknown) {
  features.valueAt(index) = value;
  if (unknown)
    features.markUnknown(index);
}

} // namespace cudaperf::analysis
