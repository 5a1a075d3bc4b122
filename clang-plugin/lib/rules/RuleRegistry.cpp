#include "FeatureRule.h"

namespace cudaperf::analysis {

std::vector<std::unique_ptr<FeatureRule>> makeFeatureRules() {
  std::vector<std::unique_ptr<FeatureRule>> rules;
  rules.push_back(makeKernelInventoryRule());     // names, locations, kernels
  rules.push_back(makeAccessStrideRule());        // every access with its lane stride
  rules.push_back(makeCoalescingRule());          // coal
  rules.push_back(makeSharedMemoryRule());        // shared bytes, bank conflicts
  rules.push_back(makeDivergenceRule());          // branches, div
  rules.push_back(makeSynchronizationRule());     // sync, barrier warnings
  rules.push_back(makeAtomicsRule());             // atomics
  rules.push_back(makeLaunchConfigRule());        // launches, tpb
  rules.push_back(makeOccupancyRule());           // occ, theoretical occupancy
  rules.push_back(makeArithmeticIntensityRule()); // ops, gmem, ai
  rules.push_back(makeTransfersRule());           // xfer
  rules.push_back(makeExtrasRule());              // idioms beyond the paper
  rules.push_back(makeAggregationRule());         // the TU's 11-vector
  rules.push_back(makeBankConflictRule());        // bank (extended)
  rules.push_back(makeVectorWidthRule());         // vec (extended)
  rules.push_back(makeSharedReuseRule());         // reuse (extended)
  rules.push_back(makeWarpPrimitiveRule());       // warp (extended)
  rules.push_back(makeGridStrideRule());          // grid_stride (extended)
  rules.push_back(makeEntryLaunchSizeRule());     // entry launches; blocks, threads (extended)
  return rules;
}

} // namespace cudaperf::analysis
