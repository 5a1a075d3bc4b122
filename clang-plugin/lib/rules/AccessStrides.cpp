// Every global, shared and local access with the stride of its address across
// threadIdx.x, from the index analysis (IndexAnalysis.cpp).
#include "FeatureRule.h"

#include "../IndexAnalysis.h"

#include <cmath>

namespace cudaperf::analysis {
namespace {

class AccessStrideRule : public KernelRule {
public:
  const char *name() const override { return "index"; }

protected:
  void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) override {
    for (const AccessFact &fact : facts.accesses) {
      MemoryAccess access;
      access.location = context.location(fact.loc);
      access.space = fact.space;
      access.kind = fact.kind;
      access.variable = fact.variable;
      access.expression = fact.expression;
      access.accessBytes = fact.bytes;
      access.loopDepth = fact.loopDepth;
      access.weight = loopSiteWeight(fact.loopDepth);
      access.vectorized = fact.vectorized;
      access.readOnlyCache = fact.readOnlyCache;
      access.warpCooperative = fact.warpCooperative;
      if (fact.warpCooperative) {
        // wmma tiles are loaded by the warp together, row by row.
        access.strideClass = StrideClass::Constant;
        access.stride = 1;
        access.strideBytes = fact.bytes / 8;
      } else {
        const LaneStride stride = strideAcrossLanes(fact, context.facts().symbols);
        access.strideClass = stride.strideClass;
        access.stride = stride.elements;
        access.strideBytes = stride.bytes;
        access.strideExpr = stride.symbolic;
      }
      kernel.accesses.push_back(std::move(access));
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeAccessStrideRule() { return std::make_unique<AccessStrideRule>(); }
} // namespace cudaperf::analysis
