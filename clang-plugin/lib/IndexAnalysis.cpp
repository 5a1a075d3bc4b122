#include "IndexAnalysis.h"

#include "walker/KernelWalker.h"

#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace cudaperf::analysis {

using namespace clang;

void collectKernelFacts(ASTContext &ast, SymbolTable &symbols, const FunctionDecl *kernel, KernelFacts &facts) {
  facts.decl = kernel;
  facts.loc = kernel->getLocation();
  if (const auto *bounds = kernel->getAttr<CUDALaunchBoundsAttr>()) {
    auto evaluate = [&](const Expr *expr) -> std::optional<std::int64_t> {
      if (!expr || expr->isValueDependent() || expr->containsErrors())
        return std::nullopt;
      Expr::EvalResult result;
      if (expr->EvaluateAsInt(result, ast) && result.Val.getInt().isRepresentableByInt64())
        return result.Val.getInt().getExtValue();
      return std::nullopt;
    };
    facts.launchBounds.maxThreadsPerBlock = evaluate(bounds->getMaxThreads());
    facts.launchBounds.minBlocksPerSM = evaluate(bounds->getMinBlocks());
  }
  KernelWalker walker(ast, symbols, facts);
  walker.walkKernel(kernel);
  facts.budgetExhausted = walker.budgetExhausted();
}

namespace {

LaneStride constantStride(std::int64_t bytes, std::int64_t size) {
  LaneStride stride;
  stride.strideClass = StrideClass::Constant;
  stride.bytes = bytes;
  // |bytes| rounded up to elements, without overflow at the ends of int64.
  const std::uint64_t magnitude = bytes < 0 ? 0 - static_cast<std::uint64_t>(bytes) : static_cast<std::uint64_t>(bytes);
  const auto unit = static_cast<std::uint64_t>(size);
  const auto elements = static_cast<std::int64_t>(
      std::min<std::uint64_t>(magnitude / unit + (magnitude % unit != 0), static_cast<std::uint64_t>(INT64_MAX)));
  stride.elements = bytes < 0 ? -elements : elements;
  return stride;
}

// A symbolic coefficient of bytes, printed in elements as the plain stride is.
std::string symbolicElements(const Polynomial &bytes, std::int64_t size, const SymbolTable &symbols) {
  if (auto elements = bytes.dividedExactly(size))
    return elements->toString(symbols);
  return "(" + bytes.toString(symbols) + ")/" + std::to_string(size);
}

// The address of a sub-warp kernel: the lane split into aligned groups of C
// (threadIdx.x % C within, threadIdx.x / C or a value loaded per group
// across). Its stride is the one within a group; where the groups' runs are
// not contiguous, a global access counts the 32-byte sectors a warp touches
// against a stride-1 warp's: 8 floats a group fill a sector (stride 1), 4 fill
// half of one (stride 2), 2 a quarter (4). Shared accesses with groups at
// unknown places have unknown bank conflicts.
LaneStride groupedStride(const AccessFact &access, const SymbolTable &symbols, const Polynomial &offset,
                         std::optional<SymbolId> inGroup, unsigned groupLanes) {
  LaneStride unknown;
  const std::int64_t size = access.bytes ? access.bytes : 1;
  const unsigned lanes = inGroup ? static_cast<unsigned>(symbols[*inGroup].dimension) : groupLanes;
  if (groupLanes < lanes)
    return unknown; // the group's base changes inside a run
  // The part that moves from group to group: b * (threadIdx.x / C), if that is all.
  const Polynomial across = inGroup ? offset.without(*inGroup) : offset;
  std::optional<std::int64_t> groupBytes;
  for (const auto &[monomial, coefficient] : across.terms())
    for (SymbolId symbol : monomial)
      if (symbols[symbol].kind == SymbolKind::LaneGroup && symbols[symbol].dimension == static_cast<int>(lanes)) {
        auto derivative = across.derivative(symbol);
        if (derivative && derivative->constantValue() &&
            across.without(symbol).variance(symbols) != Variance::LaneVarying)
          groupBytes = *derivative->constantValue();
      }
  if (!inGroup) {
    // The same address for each group of lanes: broadcast within it.
    if (groupBytes) {
      // The warp's distinct addresses are `groupBytes` apart: one element (`in[tid / 8]`) is a
      // broadcast over neighbouring words, more is that stride (`in[(tid / 8) * 8]` reads every 8th
      // float, 4 sectors for 4 floats, as stride 8 does).
      LaneStride stride = constantStride(*groupBytes, size);
      if (std::llabs(*groupBytes) <= size)
        stride.elements = 0;
      return access.space == MemorySpace::Global ? stride : unknown;
    }
    // 32 / C places no one knows: a near-broadcast for groups of 8 or 16, a gather below.
    if (access.space != MemorySpace::Global || lanes < 8)
      return unknown;
    return constantStride(0, size);
  }
  auto within = offset.derivative(*inGroup);
  if (!within || within->variance(symbols) == Variance::LaneVarying)
    return unknown;
  if (!within->constantValue()) {
    LaneStride stride;
    stride.strideClass = StrideClass::Symbolic;
    stride.symbolic = symbolicElements(*within, size, symbols);
    return stride;
  }
  const std::int64_t bytes = *within->constantValue();
  std::int64_t groupRun = 0;
  if (groupBytes && !__builtin_mul_overflow(bytes, static_cast<std::int64_t>(lanes), &groupRun) &&
      *groupBytes == groupRun)
    return constantStride(bytes, size); // (tid / C) * C + tid % C: the plain lane
  if (access.space != MemorySpace::Global)
    return unknown;
  LaneStride stride = constantStride(bytes, size);
  if (std::llabs(stride.elements) == 1) {
    const std::int64_t run = static_cast<std::int64_t>(lanes) * size;
    const std::int64_t sectors = std::max<std::int64_t>(1, (32 + run - 1) / run);
    stride.elements = bytes < 0 ? -sectors : sectors;
  }
  return stride;
}

} // namespace

LaneStride strideAcrossLanes(const AccessFact &access, const SymbolTable &symbols) {
  LaneStride stride;
  if (access.byteOffset.overflowed())
    return stride; // an address past 64 bits says nothing of its lanes
  const SymbolId lane = symbols.builtin(SymbolKind::ThreadIdx, 0);
  // Lane-varying symbols other than threadIdx.x: lane groups, or values
  // shared by aligned groups of lanes; any other makes the stride unknown.
  std::optional<SymbolId> inGroup;
  unsigned groupLanes = 32;
  bool wholeLane = false;
  for (const auto &[monomial, coefficient] : access.byteOffset.terms())
    for (SymbolId symbol : monomial) {
      const Symbol &s = symbols[symbol];
      if (s.variance != Variance::LaneVarying)
        continue;
      if (symbol == lane) {
        wholeLane = true;
      } else if (s.kind == SymbolKind::LaneInGroup) {
        if (inGroup && *inGroup != symbol)
          return stride;
        inGroup = symbol;
      } else if (s.groupLanes > 1) {
        groupLanes = std::min(groupLanes, s.groupLanes);
      } else {
        return stride; // data-dependent or non-affine: unknown
      }
    }
  if (inGroup || groupLanes < 32)
    return wholeLane ? stride : groupedStride(access, symbols, access.byteOffset, inGroup, groupLanes);
  auto derivative = access.byteOffset.derivative(lane);
  if (!derivative || derivative->variance(symbols) == Variance::LaneVarying)
    return stride;
  const std::int64_t size = access.bytes ? access.bytes : 1;
  if (auto bytes = derivative->constantValue())
    return constantStride(*bytes, size);
  stride.strideClass = StrideClass::Symbolic;
  stride.symbolic = symbolicElements(*derivative, size, symbols);
  return stride;
}

} // namespace cudaperf::analysis
