// The TU's 11-vector: coal and div pooled over every site of every kernel
// (same weights as per kernel); occ and tpb averaged over the kernels with a
// known tpb (unknown when none has one); ops, gmem, sync, atomics summed; ai = total ops /
// total gmem; kernels = number of kernel definitions; xfer from Transfers.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class AggregationRule : public FeatureRule {
public:
  const char *name() const override { return "aggregate"; }
  void apply(AnalysisContext &, TranslationUnitReport &report) override {
    FeatureVector &total = report.features;
    double coalSum = 0, coalWeight = 0, divSum = 0, divWeight = 0, tpbSum = 0, occSum = 0, occKnownSum = 0;
    unsigned tpbKnown = 0;
    for (const KernelReport &kernel : report.kernels) {
      for (const MemoryAccess &access : kernel.accesses)
        if (access.space == MemorySpace::Global) {
          coalSum += access.score * access.weight;
          coalWeight += access.weight;
        }
      for (const Branch &branch : kernel.branches) {
        divWeight += branch.weight;
        if (branch.branchClass == BranchClass::LaneDivergent)
          divSum += branch.weight;
      }
      if (kernel.occupancy.threadsPerBlock) {
        tpbSum += static_cast<double>(*kernel.occupancy.threadsPerBlock);
        occKnownSum += kernel.features.occ;
        ++tpbKnown;
      }
      occSum += kernel.features.occ;
      total.ops += kernel.features.ops;
      total.gmem += kernel.features.gmem;
      total.sync += kernel.features.sync;
      total.atomics += kernel.features.atomics;
    }
    const auto kernels = static_cast<double>(report.kernels.size());
    total.kernels = kernels;
    total.coal = coalWeight > 0 ? coalSum / coalWeight : 0.0;
    total.div = divWeight > 0 ? divSum / divWeight : 0.0;
    total.tpb = tpbKnown ? tpbSum / tpbKnown : 0.0;
    // A kernel whose block size is chosen at run time says nothing about the
    // file's occupancy: occ over the kernels with a known tpb; with none,
    // CudaPerf's value, marked unknown with tpb.
    total.occ = tpbKnown ? occKnownSum / tpbKnown : kernels > 0 ? occSum / kernels : 0.0;
    if (kernels > 0 && !tpbKnown) {
      total.markUnknown(*featureIndex("occ"));
      total.markUnknown(*featureIndex("tpb"));
    }
    total.ai = total.gmem > 0 ? total.ops / total.gmem : 0.0;
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeAggregationRule() { return std::make_unique<AggregationRule>(); }
} // namespace cudaperf::analysis
