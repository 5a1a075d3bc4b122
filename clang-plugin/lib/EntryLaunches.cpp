#include "EntryLaunches.h"

#include "AnalysisContext.h"
#include "HostValues.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <map>
#include <set>

namespace cudaperf::analysis {

using namespace clang;

namespace {

constexpr int kMaxCallDepth = 8;                            // launchers calling launchers
constexpr int kMaxStatementDepth = 2000;                    // statement nesting walked (the stack)
constexpr std::size_t kMaxCalls = 4096;                     // launcher bodies walked in all (a file of many call sites)
constexpr std::size_t kMaxLaunches = 256;                   // sized launches kept
constexpr std::size_t kMaxVisits = 1000000;                 // statements walked in all
constexpr std::int64_t kMaxGridX = 2147483647;              // CUDA's limits: grid x < 2^31, y and z <= 65535;
constexpr std::int64_t kMaxGridYZ = 65535;                  // block x, y <= 1024, z <= 64, 1024 threads in all;
constexpr std::int64_t kMaxSharedBytes = 232448;            // 227 KiB of dynamic shared memory (sm_90)
constexpr std::int64_t kMaxThreads = std::int64_t{1} << 50; // threads of one launch: past this it is no shape

std::string describe(const ASTContext &ast, SourceLocation loc) { return formatLocation(ast.getSourceManager(), loc); }

// Launches that bypass <<<>>> (cudaLaunchKernel, the driver API, graphs): the walk cannot size them.
bool isApiLaunch(const Stmt *stmt) {
  const auto *call = dyn_cast<CallExpr>(stmt);
  const FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !callee->getDeclName().isIdentifier())
    return false;
  const llvm::StringRef name = callee->getName();
  return name.starts_with("cudaLaunch") || name.starts_with("cuLaunch") || name == "cudaGraphLaunch";
}

// Walks the entry as it runs: in order, into the launchers it calls, taking
// the branch a condition known at the size takes and stopping at a return.
// What it cannot follow for certain (a launch under a condition it cannot
// decide, in a loop, a switch, a handler, a launch it cannot size, a goto,
// recursion) is noted as a doubt: the launches are still listed, but no
// feature is drawn from them (a shape reported as known must be the one that runs).
class EntryWalker {
public:
  EntryWalker(ASTContext &ast, const std::vector<const FunctionDecl *> &hosts, TranslationUnitFacts &facts)
      : ast_(ast), hosts_(hosts.begin(), hosts.end()), facts_(facts), values_(ast) {}

  void walkFunction(const FunctionDecl *function, const Bindings &bindings, unsigned loopDepth, int depth) {
    if (depth > kMaxCallDepth || ++calls_ > kMaxCalls) {
      doubt("the launchers nest deeper, or are called more often, than the walk follows");
      return;
    }
    if (onStack_.count(function)) {
      doubt("'" + function->getNameAsString() + "' calls itself: how often it launches depends on the recursion");
      return;
    }
    onStack_.insert(function);
    walk(function->getBody(), {function, &bindings, loopDepth, depth}, 0);
    onStack_.erase(function);
  }

  const std::string &doubt() const { return doubt_; }
  void doubt(const std::string &why) {
    if (doubt_.empty())
      doubt_ = why;
  }
  bool exhausted() const { return values_.exhausted(); }

private:
  struct Frame {
    const FunctionDecl *function;
    const Bindings *bindings;
    unsigned loopDepth;
    int callDepth;
  };

  std::optional<std::int64_t> value(const Expr *expr, const Frame &frame) {
    return values_.integer(expr, frame.function, *frame.bindings);
  }

  // A part that may run or not, or more than once: a launch in it is a doubt.
  void walkMaybe(const Stmt *stmt, const Frame &frame, int depth, bool loop = false) {
    ++maybe_;
    Frame inner = frame;
    inner.loopDepth += loop ? 1 : 0;
    walk(stmt, inner, depth);
    --maybe_;
  }

  // Two ways a condition unknown at the size chooses between. When both make the same launch shapes in
  // the same order, without a doubt, the shape is known whichever runs (an aligned fast path and its
  // fallback on one grid): one way's launches are kept. Otherwise both are walked as maybes.
  bool eitherWay(const Stmt *first, const Stmt *second, const Frame &frame, int depth) {
    const std::string before = doubt_;
    const std::size_t start = facts_.entryLaunches.size();
    doubt_.clear();
    const bool firstLeaves = walk(first, frame, depth);
    const bool firstSure = doubt_.empty();
    const std::size_t middle = facts_.entryLaunches.size();
    doubt_.clear();
    const bool secondLeaves = walk(second, frame, depth);
    const bool secondSure = doubt_.empty();
    const std::size_t end = facts_.entryLaunches.size();
    auto &launches = facts_.entryLaunches;
    bool same = firstSure && secondSure && firstLeaves == secondLeaves && middle - start == end - middle;
    for (std::size_t i = 0; same && i < middle - start; ++i)
      same = launches[start + i].blocks == launches[middle + i].blocks &&
             launches[start + i].threadsPerBlock == launches[middle + i].threadsPerBlock;
    doubt_ = before;
    if (same) {
      launches.erase(launches.begin() + static_cast<std::ptrdiff_t>(middle), launches.end());
      return firstLeaves;
    }
    launches.erase(launches.begin() + static_cast<std::ptrdiff_t>(start), launches.end());
    walkMaybe(first, frame, depth);
    walkMaybe(second, frame, depth);
    return false;
  }

  // True when the statement leaves the function on every path (return, throw).
  bool walk(const Stmt *stmt, const Frame &frame, int depth) {
    if (!stmt)
      return false;
    if (depth > kMaxStatementDepth) {
      doubt("the host code nests deeper than the walk reads");
      return false;
    }
    if (++visits_ > kMaxVisits) { // nested undecided branches are walked twice each (eitherWay)
      doubt("the host code takes more steps to walk than the walk allows");
      return false;
    }
    const int next = depth + 1;
    // Never run: unevaluated operands, and lambdas (a launch inside one is a site the walk does not reach).
    if (isa<LambdaExpr>(stmt) || isa<UnaryExprOrTypeTraitExpr>(stmt) || isa<CXXNoexceptExpr>(stmt) ||
        isa<CXXTypeidExpr>(stmt) || isa<GenericSelectionExpr>(stmt))
      return false;
    if (isa<GotoStmt>(stmt) || isa<IndirectGotoStmt>(stmt) || isa<LabelStmt>(stmt))
      doubt("a goto at " + describe(ast_, stmt->getBeginLoc()) + ": the walk does not follow jumps");
    if (const auto *ret = dyn_cast<ReturnStmt>(stmt)) {
      walk(ret->getRetValue(), frame, next);
      return true;
    }
    if (const auto *thrown = dyn_cast<CXXThrowExpr>(stmt)) {
      walk(thrown->getSubExpr(), frame, next);
      return true;
    }
    if (const auto *block = dyn_cast<CompoundStmt>(stmt)) {
      for (const Stmt *child : block->body())
        if (walk(child, frame, next))
          return true; // what follows a return does not run
      return false;
    }
    if (const auto *branch = dyn_cast<IfStmt>(stmt)) {
      walk(branch->getInit(), frame, next);
      walk(branch->getConditionVariableDeclStmt(), frame, next);
      walk(branch->getCond(), frame, next);
      const auto taken = branch->isConsteval() ? std::nullopt : value(branch->getCond(), frame);
      if (taken) // known at the size: `if (n % 4) tail<<<...>>>` runs one way only
        return walk(*taken ? branch->getThen() : branch->getElse(), frame, next);
      return eitherWay(branch->getThen(), branch->getElse(), frame, next);
    }
    if (const auto *loop = dyn_cast<ForStmt>(stmt)) {
      walk(loop->getInit(), frame, next);
      walk(loop->getConditionVariableDeclStmt(), frame, next);
      walk(loop->getCond(), frame, next);
      walkMaybe(loop->getBody(), frame, next, true);
      walkMaybe(loop->getInc(), frame, next, true);
      return false;
    }
    if (const auto *loop = dyn_cast<WhileStmt>(stmt)) {
      walk(loop->getConditionVariableDeclStmt(), frame, next);
      walk(loop->getCond(), frame, next);
      walkMaybe(loop->getBody(), frame, next, true);
      return false;
    }
    if (const auto *loop = dyn_cast<DoStmt>(stmt)) {
      walkMaybe(loop->getBody(), frame, next, true);
      walkMaybe(loop->getCond(), frame, next, true);
      return false;
    }
    if (const auto *loop = dyn_cast<CXXForRangeStmt>(stmt)) {
      walk(loop->getInit(), frame, next);
      walk(loop->getRangeStmt(), frame, next);
      walkMaybe(loop->getBody(), frame, next, true);
      return false;
    }
    if (const auto *choice = dyn_cast<SwitchStmt>(stmt)) {
      walk(choice->getInit(), frame, next);
      walk(choice->getConditionVariableDeclStmt(), frame, next);
      walk(choice->getCond(), frame, next);
      walkMaybe(choice->getBody(), frame, next);
      return false;
    }
    if (const auto *choice = dyn_cast<AbstractConditionalOperator>(stmt)) {
      walk(choice->getCond(), frame, next);
      if (const auto taken = value(choice->getCond(), frame))
        return walk(*taken ? choice->getTrueExpr() : choice->getFalseExpr(), frame, next);
      return eitherWay(choice->getTrueExpr(), choice->getFalseExpr(), frame, next);
    }
    if (const auto *logic = dyn_cast<BinaryOperator>(stmt); logic && logic->isLogicalOp()) {
      if (walk(logic->getLHS(), frame, next))
        return true;
      const auto left = value(logic->getLHS(), frame);
      if (!left)
        walkMaybe(logic->getRHS(), frame, next);
      else if ((logic->getOpcode() == BO_LAnd) == (*left != 0)) // && of true, || of false: the right side runs
        return walk(logic->getRHS(), frame, next);
      return false;
    }
    if (const auto *attempt = dyn_cast<CXXTryStmt>(stmt)) {
      walk(attempt->getTryBlock(), frame, next);
      for (unsigned i = 0; i < attempt->getNumHandlers(); ++i)
        walkMaybe(attempt->getHandler(i), frame, next);
      return false;
    }
    bool leaves = false;
    for (const Stmt *child : stmt->children()) // operands run before the call or launch they feed
      leaves |= walk(child, frame, next);
    if (const auto *launch = dyn_cast<CUDAKernelCallExpr>(stmt))
      size(launch, frame);
    else if (isApiLaunch(stmt))
      doubt("a launch through " + cast<CallExpr>(stmt)->getDirectCallee()->getNameAsString() + " at " +
            describe(ast_, stmt->getBeginLoc()) + ", which the walk cannot size");
    else if (const auto *call = dyn_cast<CallExpr>(stmt))
      follow(call, frame);
    return leaves;
  }

  void size(const CUDAKernelCallExpr *launch, const Frame &frame) {
    const std::string at = describe(ast_, launch->getBeginLoc());
    if (maybe_ > 0)
      doubt("the launch at " + at +
            " runs or not, or more than once, by a condition the walk cannot decide at "
            "the size (a branch, a loop, a switch, a handler)");
    const CallExpr *config = launch->getConfig();
    if (!config || config->getNumArgs() < 2) {
      doubt("the launch at " + at + " has no configuration the walk can read");
      return;
    }
    const Dim3 grid = values_.dim3(config->getArg(0), frame.function, *frame.bindings);
    const Dim3 block = values_.dim3(config->getArg(1), frame.function, *frame.bindings);
    std::optional<std::int64_t> shared = 0;
    if (config->getNumArgs() > 2 && !isa<CXXDefaultArgExpr>(config->getArg(2)))
      shared = value(config->getArg(2), frame);
    // A launch CUDA would refuse (an extent of 0, a negative size wrapped to unsigned, past the limits) is no shape.
    if (!grid.known() || !block.known() || !shared || *grid.x < 1 || *grid.x > kMaxGridX || *grid.y < 1 ||
        *grid.y > kMaxGridYZ || *grid.z < 1 || *grid.z > kMaxGridYZ || *block.x < 1 || *block.x > 1024 ||
        *block.y < 1 || *block.y > 1024 || *block.z < 1 || *block.z > 64 || *block.x * *block.y * *block.z > 1024 ||
        *shared < 0 || *shared > kMaxSharedBytes) {
      doubt("the launch at " + at + " has a grid, block or shared size not known at the size, or one CUDA refuses");
      return;
    }
    if (facts_.entryLaunches.size() >= kMaxLaunches) {
      doubt("more launches than the walk keeps");
      return;
    }
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
    fact.blocks = *grid.x * *grid.y * *grid.z; // < 2^63 within the limits above
    fact.threadsPerBlock = *block.x * *block.y * *block.z;
    if (static_cast<__int128>(fact.blocks) * fact.threadsPerBlock > kMaxThreads) {
      doubt("the launch at " + at + " starts more threads than any GPU runs in one launch");
      return;
    }
    fact.loopDepth = frame.loopDepth;
    facts_.entryLaunches.push_back(std::move(fact));
  }

  // A host function of this file: walked with its parameters bound to the call's known values.
  void follow(const CallExpr *call, const Frame &frame) {
    const FunctionDecl *callee = call->getDirectCallee();
    const FunctionDecl *definition = callee ? callee->getDefinition() : nullptr;
    if (!definition || !hosts_.count(definition))
      return;
    if (const auto *method = dyn_cast<CXXMethodDecl>(callee); method && method->isVirtual()) {
      doubt("a virtual call at " + describe(ast_, call->getBeginLoc()) + ": an override may run instead");
      return;
    }
    Bindings inner;
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      const ParmVarDecl *parameter = boundParameter(call, i);
      if (!parameter ||
          (parameter->getType()->isReferenceType() && !parameter->getType().getNonReferenceType().isConstQualified()))
        continue; // the object, or a reference the launcher may write through
      const Expr *argument = call->getArg(i);
      if (const auto *defaulted = dyn_cast<CXXDefaultArgExpr>(argument))
        argument = defaulted->getExpr();
      if (auto known = value(argument, frame))
        inner[definition->getParamDecl(parameter->getFunctionScopeIndex())] = *known;
    }
    walkFunction(definition, inner, frame.loopDepth, frame.callDepth + 1);
  }

  ASTContext &ast_;
  std::set<const FunctionDecl *> hosts_;
  TranslationUnitFacts &facts_;
  HostValues values_;
  std::set<const FunctionDecl *> onStack_;
  std::size_t calls_ = 0;
  std::size_t visits_ = 0;
  int maybe_ = 0;
  std::string doubt_;
};

// The paths to a launch the walk cannot see: a lambda that launches, a
// launching function whose address is taken (a function pointer, a callback,
// a thread), a constructor, destructor or conversion that launches (called
// implicitly). "Launches" includes through the functions it calls directly.
class UnseenLaunchPaths {
public:
  UnseenLaunchPaths(const ASTContext &ast, const std::vector<const FunctionDecl *> &hosts) : ast_(ast) {
    std::map<const FunctionDecl *, std::set<const FunctionDecl *>> callees;
    for (const FunctionDecl *host : hosts) {
      Scan scan;
      scan.visit(host->getBody(), 0);
      if (scan.launches)
        launching_.insert(host);
      callees[host] = std::move(scan.callees);
      scans_.emplace_back(host, std::move(scan));
    }
    for (bool grew = true; grew;) { // what calls a launching function launches
      grew = false;
      for (const auto &[caller, called] : callees)
        if (!launching_.count(caller))
          for (const FunctionDecl *callee : called)
            if (launching_.count(callee)) {
              launching_.insert(caller);
              grew = true;
              break;
            }
    }
  }

  // The first such path, or "".
  std::string find() const {
    for (const auto &[host, scan] : scans_) {
      if (launching_.count(host) &&
          (isa<CXXConstructorDecl>(host) || isa<CXXDestructorDecl>(host) || isa<CXXConversionDecl>(host)))
        return "'" + host->getNameAsString() + "' launches and is called implicitly (a constructor, destructor " +
               "or conversion)";
      for (const auto &[lambda, called] : scan.lambdas) {
        bool launches = lambda.second;
        for (const FunctionDecl *callee : called)
          launches |= launching_.count(callee) > 0;
        if (launches)
          return "a lambda at " + describe(ast_, lambda.first) + " launches";
      }
      for (const auto &[function, at] : scan.addressed)
        if (launching_.count(function))
          return "'" + function->getNameAsString() + "' launches and is passed as a value at " + describe(ast_, at) +
                 " (a function pointer or callback)";
    }
    return "";
  }

private:
  struct Scan {
    bool launches = false;
    std::set<const FunctionDecl *> callees;
    std::set<const Expr *> calleeRefs;
    std::vector<std::pair<const FunctionDecl *, SourceLocation>> addressed;
    // Each lambda: {where, launches itself} and the functions it calls.
    std::vector<std::pair<std::pair<SourceLocation, bool>, std::set<const FunctionDecl *>>> lambdas;

    void visit(const Stmt *stmt, int depth) {
      if (!stmt || depth > kMaxStatementDepth)
        return;
      if (const auto *lambda = dyn_cast<LambdaExpr>(stmt)) {
        Scan inner;
        inner.visit(lambda->getBody(), depth + 1);
        lambdas.push_back({{lambda->getBeginLoc(), inner.launches}, inner.callees});
        for (auto &nested : inner.lambdas)
          lambdas.push_back(std::move(nested));
        for (auto &taken : inner.addressed)
          addressed.push_back(taken);
        return;
      }
      if (isa<CUDAKernelCallExpr>(stmt) || isApiLaunch(stmt))
        launches = true;
      else if (const auto *call = dyn_cast<CallExpr>(stmt)) {
        if (const FunctionDecl *callee = call->getDirectCallee(); callee && callee->getDefinition())
          callees.insert(callee->getDefinition());
        calleeRefs.insert(call->getCallee()->IgnoreParenImpCasts());
      }
      if (const auto *ref = dyn_cast<DeclRefExpr>(stmt); ref && !calleeRefs.count(ref))
        if (const auto *function = dyn_cast<FunctionDecl>(ref->getDecl()); function && function->getDefinition())
          addressed.push_back({function->getDefinition(), ref->getBeginLoc()});
      for (const Stmt *child : stmt->children())
        visit(child, depth + 1);
    }
  };

  const ASTContext &ast_;
  std::set<const FunctionDecl *> launching_;
  std::vector<std::pair<const FunctionDecl *, Scan>> scans_;
};

// The function the harness calls: the extern "C" one of that name, else the only one at file scope.
const FunctionDecl *findEntry(const std::vector<const FunctionDecl *> &hosts, const std::string &name,
                              std::string &problem) {
  std::vector<const FunctionDecl *> externC, fileScope;
  for (const FunctionDecl *function : hosts) {
    if (!function->getDeclName().isIdentifier() || function->getName() != name || isa<CXXMethodDecl>(function))
      continue;
    if (function->isExternC())
      externC.push_back(function);
    else if (function->getDeclContext()->getRedeclContext()->isTranslationUnit())
      fileScope.push_back(function);
  }
  const auto &candidates = externC.empty() ? fileScope : externC;
  if (candidates.size() == 1)
    return candidates.front();
  problem = candidates.empty() ? "no host function '" + name + "' with a body in this file"
                               : "more than one function '" + name + "' could be the entry";
  return nullptr;
}

} // namespace

void collectEntryLaunches(ASTContext &ast, const std::vector<const FunctionDecl *> &hostFunctions,
                          const AnalysisOptions &options, TranslationUnitFacts &facts) {
  if (options.entry.empty())
    return;
  const FunctionDecl *entry = findEntry(hostFunctions, options.entry, facts.entryLaunchesProblem);
  if (!entry)
    return;
  Bindings bindings;
  for (unsigned i = 0; i < entry->getNumParams() && i < options.entryArguments.size(); ++i)
    if (options.entryArguments[i] && entry->getParamDecl(i)->getType()->isIntegralOrEnumerationType())
      bindings[entry->getParamDecl(i)] = *options.entryArguments[i];
  EntryWalker walker(ast, hostFunctions, facts);
  walker.walkFunction(entry, bindings, 0, 0);
  if (walker.exhausted())
    walker.doubt("the values took more evaluation than the walk allows");
  // Launches the walk could not have seen (a lambda, a function pointer, an implicit call); overrides are
  // doubted where the walk meets the virtual call.
  const std::string unseen = UnseenLaunchPaths(ast, hostFunctions).find();
  if (!unseen.empty())
    walker.doubt(unseen + ": a launch may run that the walk does not see");
  if (!walker.doubt().empty())
    facts.entryLaunchesProblem = walker.doubt();
  else if (facts.entryLaunches.empty())
    facts.entryLaunchesProblem = "no launch is reached from '" + options.entry + "'";
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
