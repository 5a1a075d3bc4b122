#include "IndexAnalysis.h"

#include "walker/KernelWalker.h"

#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>

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

LaneStride strideAcrossLanes(const AccessFact &access, const SymbolTable &symbols) {
  LaneStride stride;
  const SymbolId lane = symbols.builtin(SymbolKind::ThreadIdx, 0);
  for (const auto &[monomial, coefficient] : access.byteOffset.terms())
    for (SymbolId symbol : monomial)
      if (symbol != lane && symbols[symbol].variance == Variance::LaneVarying)
        return stride; // data-dependent or non-affine: unknown
  auto derivative = access.byteOffset.derivative(lane);
  if (!derivative || derivative->variance(symbols) == Variance::LaneVarying)
    return stride;
  const std::int64_t size = access.bytes ? access.bytes : 1;
  if (auto bytes = derivative->constantValue()) {
    stride.strideClass = StrideClass::Constant;
    stride.bytes = *bytes;
    const std::int64_t magnitude = std::llabs(*bytes);
    std::int64_t elements = (magnitude + size - 1) / size;
    stride.elements = *bytes < 0 ? -elements : elements;
    return stride;
  }
  stride.strideClass = StrideClass::Symbolic;
  if (auto elements = derivative->dividedExactly(size))
    stride.symbolic = elements->toString(symbols);
  else
    stride.symbolic = "(" + derivative->toString(symbols) + ")/" + std::to_string(size);
  return stride;
}

} // namespace cudaperf::analysis
