#include "EntryLaunches.h"

#include "HostValues.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <set>

namespace cudaperf::analysis {

using namespace clang;

namespace {

constexpr int kMaxCallDepth = 8;               // launchers calling launchers
constexpr std::size_t kMaxCalls = 4096;        // launcher bodies walked in all (a file of many call sites)
constexpr std::size_t kMaxLaunches = 256;      // sized launches kept
constexpr std::int64_t kMaxGridX = 2147483647; // CUDA's grid limits: x < 2^31, y and z <= 65535; 1024 threads a block

class EntryWalker {
public:
  EntryWalker(ASTContext &ast, const std::vector<const FunctionDecl *> &hosts, TranslationUnitFacts &facts)
      : ast_(ast), hosts_(hosts.begin(), hosts.end()), facts_(facts), values_(ast) {}

  void walkFunction(const FunctionDecl *function, const Bindings &bindings, unsigned loopDepth, int depth) {
    if (depth > kMaxCallDepth || ++calls_ > kMaxCalls || onStack_.count(function))
      return;
    onStack_.insert(function);
    walk(function->getBody(), function, bindings, loopDepth, depth);
    onStack_.erase(function);
  }

private:
  void walk(const Stmt *stmt, const FunctionDecl *function, const Bindings &bindings, unsigned loopDepth, int depth) {
    if (!stmt || isa<LambdaExpr>(stmt))
      return;
    if (const auto *branch = dyn_cast<IfStmt>(stmt);
        branch && !branch->isConsteval() && !branch->getInit() && !branch->getConditionVariable()) {
      // A condition known at the size decides the way: `if (n % 4) tail<<<1, n % 4>>>(...)`.
      if (const auto taken = values_.integer(branch->getCond(), function, bindings)) {
        walk(*taken ? branch->getThen() : branch->getElse(), function, bindings, loopDepth, depth);
        return;
      }
    }
    if (const auto *launch = dyn_cast<CUDAKernelCallExpr>(stmt))
      size(launch, function, bindings, loopDepth);
    else if (const auto *call = dyn_cast<CallExpr>(stmt))
      follow(call, function, bindings, loopDepth, depth);
    const bool isLoop = isa<ForStmt>(stmt) || isa<WhileStmt>(stmt) || isa<DoStmt>(stmt) || isa<CXXForRangeStmt>(stmt);
    for (const Stmt *child : stmt->children())
      walk(child, function, bindings, loopDepth + (isLoop ? 1 : 0), depth);
  }

  void size(const CUDAKernelCallExpr *launch, const FunctionDecl *function, const Bindings &bindings,
            unsigned loopDepth) {
    const CallExpr *config = launch->getConfig();
    if (!config || config->getNumArgs() < 2 || facts_.entryLaunches.size() >= kMaxLaunches)
      return;
    const Dim3 grid = values_.dim3(config->getArg(0), function, bindings);
    const Dim3 block = values_.dim3(config->getArg(1), function, bindings);
    // A launch CUDA would refuse (an extent of 0, a negative size wrapped to unsigned, past the limits) is no shape.
    if (!grid.known() || !block.known() || *grid.x < 1 || *grid.x > kMaxGridX || *grid.y < 1 || *grid.y > 65535 ||
        *grid.z < 1 || *grid.z > 65535 || *block.x < 1 || *block.y < 1 || *block.z < 1 || *block.product() > 1024)
      return;
    const auto blocks = grid.product();
    const auto threads = block.product();
    EntryLaunchFact fact;
    const FunctionDecl *kernel = launch->getDirectCallee();
    if (!kernel)
      if (const auto *ref = dyn_cast<DeclRefExpr>(launch->getCallee()->IgnoreImplicit()))
        kernel = dyn_cast<FunctionDecl>(ref->getDecl());
    fact.kernel = kernel ? kernel->getCanonicalDecl() : nullptr;
    if (kernel) {
      llvm::raw_string_ostream out(fact.kernelName);
      kernel->getNameForDiagnostic(out, ast_.getPrintingPolicy(), false);
    }
    fact.loc = launch->getBeginLoc();
    fact.blocks = *blocks;
    fact.threadsPerBlock = *threads;
    fact.loopDepth = loopDepth;
    facts_.entryLaunches.push_back(std::move(fact));
  }

  // A host function of this file: walked with its parameters bound to the call's known values.
  void follow(const CallExpr *call, const FunctionDecl *function, const Bindings &bindings, unsigned loopDepth,
              int depth) {
    const FunctionDecl *callee = call->getDirectCallee();
    const FunctionDecl *definition = callee ? callee->getDefinition() : nullptr;
    if (!definition || !hosts_.count(definition))
      return;
    Bindings inner;
    for (unsigned i = 0; i < call->getNumArgs() && i < definition->getNumParams(); ++i) {
      const Expr *argument = call->getArg(i);
      if (const auto *defaulted = dyn_cast<CXXDefaultArgExpr>(argument))
        argument = defaulted->getExpr();
      if (auto value = values_.integer(argument, function, bindings))
        inner[definition->getParamDecl(i)] = *value;
    }
    walkFunction(definition, inner, loopDepth, depth + 1);
  }

  ASTContext &ast_;
  std::set<const FunctionDecl *> hosts_;
  TranslationUnitFacts &facts_;
  HostValues values_;
  std::set<const FunctionDecl *> onStack_;
  std::size_t calls_ = 0;
};

} // namespace

void collectEntryLaunches(ASTContext &ast, const std::vector<const FunctionDecl *> &hostFunctions,
                          const AnalysisOptions &options, TranslationUnitFacts &facts) {
  if (options.entry.empty())
    return;
  // The entry by name; among overloads, the one with as many parameters as values given.
  const FunctionDecl *entry = nullptr;
  for (const FunctionDecl *function : hostFunctions) {
    if (!function->getDeclName().isIdentifier() || function->getName() != options.entry || isa<CXXMethodDecl>(function))
      continue;
    if (!entry || function->getNumParams() == options.entryArguments.size())
      entry = function;
  }
  if (!entry) {
    facts.entryLaunchesProblem = "no host function '" + options.entry + "' with a body in this file";
    return;
  }
  Bindings bindings;
  for (unsigned i = 0; i < entry->getNumParams() && i < options.entryArguments.size(); ++i)
    if (options.entryArguments[i] && entry->getParamDecl(i)->getType()->isIntegralOrEnumerationType())
      bindings[entry->getParamDecl(i)] = *options.entryArguments[i];
  EntryWalker(ast, hostFunctions, facts).walkFunction(entry, bindings, 0, 0);
  if (facts.entryLaunches.empty())
    facts.entryLaunchesProblem = "no launch reached from '" + options.entry +
                                 "' has a grid and block known at the "
                                 "given sizes";
}

} // namespace cudaperf::analysis

namespace cudaperf {

std::optional<std::vector<std::optional<std::int64_t>>> parseEntryArguments(std::string_view text) {
  std::vector<std::optional<std::int64_t>> values;
  if (text.empty())
    return values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    llvm::StringRef item = llvm::StringRef(text.substr(start, comma - start)).trim();
    std::int64_t value = 0;
    if (item.empty() || item == "_")
      values.emplace_back();
    else if (!item.getAsInteger(10, value))
      values.emplace_back(value);
    else
      return std::nullopt;
    if (comma == std::string_view::npos)
      return values;
    start = comma + 1;
  }
}

} // namespace cudaperf
