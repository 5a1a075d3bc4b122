// Shared memory: static bytes of __shared__ arrays, dynamic (extern) use, and
// the bank-conflict degree of each shared access from its word stride.
#include "FeatureRule.h"

namespace cudaperf::analysis {
namespace {

class SharedMemoryRule : public KernelRule {
public:
  const char *name() const override { return "shared-memory"; }

protected:
  void applyToKernel(AnalysisContext &context, const KernelFacts &facts, KernelReport &kernel) override {
    SharedMemoryUse &shared = kernel.shared;
    for (const SharedDeclFact &decl : facts.sharedDecls) {
      shared.arrays.push_back({decl.name, context.location(decl.loc), decl.type, decl.bytes, decl.dynamic});
      shared.staticBytes += decl.bytes;
      shared.usesDynamic |= decl.dynamic;
    }
    for (std::size_t a = 0; a < kernel.accesses.size(); ++a) {
      MemoryAccess &access = kernel.accesses[a];
      if (access.space != MemorySpace::Shared || access.strideClass != StrideClass::Constant)
        continue;
      // Banks are 4-byte words. Word-sized or larger accesses need a whole-word
      // stride to have one degree; sub-word accesses (chars) share words.
      if (access.strideBytes % 4 != 0 && access.accessBytes >= 4)
        continue;
      const std::int64_t words = access.strideBytes / 4;
      const unsigned ways = bankConflictDegree(words, access.accessBytes);
      access.bankConflictWays = ways;
      if (ways > shared.maxBankConflictWays)
        shared.maxBankConflictWays = ways;
      if (ways >= 2) {
        // The note points at the array's declaration: its row length is what padding changes.
        clang::SourceLocation declared;
        for (const SharedDeclFact &decl : facts.sharedDecls)
          if (decl.name == access.variable)
            declared = decl.loc;
        context.warn(facts.accesses[a].loc, name(),
                     std::string("shared ") + toString(access.kind) + " of '" + access.variable + "' has a " +
                         std::to_string(ways) + "-way bank conflict (stride " + std::to_string(words) +
                         " words across threadIdx.x)",
                     kernel.diagnostics, declared,
                     "'" + access.variable +
                         "' declared here: a row length that is not a multiple of 32 words "
                         "(one word of padding) spreads the column over the banks");
      }
    }
  }
};

} // namespace
std::unique_ptr<FeatureRule> makeSharedMemoryRule() { return std::make_unique<SharedMemoryRule>(); }
} // namespace cudaperf::analysis
