#include "EntryLaunches.h"

#include "AnalysisContext.h"
#include "HostValues.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Mangle.h>
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
constexpr std::int64_t kDefaultSharedBytes = 49152;         // 48 KiB without an opt-in
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

// Library calls that launch kernels of their own (cuBLAS, cuDNN, thrust, CUB, CUTLASS, ...): unsized.
bool isLibraryLaunch(const FunctionDecl *callee) {
  if (!callee)
    return false;
  const std::string name = callee->getQualifiedNameAsString();
  for (const char *prefix : {"cublas", "cudnn", "cufft", "curand", "cusparse", "cusolver", "cutensor", "nccl",
                             "thrust::", "cub::", "cutlass::", "cute::", "at::", "torch::", "c10::"})
    if (llvm::StringRef(name).starts_with(prefix))
      return true;
  return false;
}

// How a statement ends for what follows it: on to the next, out of the function on every path (return,
// throw), or out on some paths (a return under a condition the walk cannot decide).
enum class Flow { Falls, Leaves, MayLeave };

Flow either(Flow a, Flow b) {
  if (a == Flow::Leaves && b == Flow::Leaves)
    return Flow::Leaves;
  return a == Flow::Falls && b == Flow::Falls ? Flow::Falls : Flow::MayLeave;
}

// Walks the entry as it runs: in order, into the launchers it calls, taking
// the branch a condition known at the size takes and stopping at a return.
// What it cannot follow for certain (a launch under a condition it cannot
// decide, or after a return it may or may not take, in a loop, a switch, a
// handler, a launch it cannot size, a goto, recursion, a call it cannot
// resolve) is noted as a doubt: the launches are still listed, but no
// feature is drawn from them (a shape reported as known must be the one that runs).
class EntryWalker {
public:
  // sharedOptIn: the file raises a kernel's dynamic shared memory limit (cudaFuncSetAttribute).
  EntryWalker(ASTContext &ast, const std::vector<const FunctionDecl *> &hosts, TranslationUnitFacts &facts,
              bool sharedOptIn)
      : ast_(ast), hosts_(hosts.begin(), hosts.end()), facts_(facts), values_(ast), sharedOptIn_(sharedOptIn) {}

  // Returns whether a throw may leave the function (it leaves its callers too).
  bool walkFunction(const FunctionDecl *function, const Bindings &bindings, unsigned loopDepth, int callDepth,
                    int depth) {
    if (callDepth > kMaxCallDepth || ++calls_ > kMaxCalls) {
      doubt("the launchers nest deeper, or are called more often, than the walk follows");
      return false;
    }
    if (onStack_.count(function)) {
      doubt("'" + function->getNameAsString() + "' calls itself: how often it launches depends on the recursion");
      return false;
    }
    walked_.insert(function);
    onStack_.insert(function);
    const bool outer = throws_;
    throws_ = false;
    walk(function->getBody(), {function, &bindings, loopDepth, callDepth}, depth);
    const bool threw = throws_;
    throws_ = outer;
    onStack_.erase(function);
    return threw;
  }

  const std::set<const FunctionDecl *> &walked() const { return walked_; }
  const std::string &doubt() const { return doubt_; }
  // A doubt of any kind but maybeRuns: a launch the walk did not size or may not have seen.
  void doubt(const std::string &why) {
    maybeRuns(why);
    onlyMaybeRuns_ = false;
  }
  // A sized launch that runs or not, or more than once, by a condition the walk cannot decide.
  void maybeRuns(const std::string &why) {
    if (doubt_.empty())
      doubt_ = why;
  }
  bool onlyMaybeRuns() const { return onlyMaybeRuns_; }
  bool exhausted() const { return values_.exhausted(); }

private:
  bool onlyMaybeRuns_ = true;
  struct Frame {
    const FunctionDecl *function;
    const Bindings *bindings; // walkFunction's, alive for the frame's walk
    unsigned loopDepth;
    int callDepth;
  };

  std::optional<std::int64_t> value(const Expr *expr, const Frame &frame) {
    return values_.integer(expr, frame.function, *frame.bindings);
  }

  // A part that may run or not, or more than once: a launch in it is a doubt.
  Flow walkMaybe(const Stmt *stmt, const Frame &frame, int depth, bool loop = false) {
    ++maybe_;
    Frame inner = frame;
    inner.loopDepth += loop ? 1 : 0;
    const Flow flow = walk(stmt, inner, depth);
    --maybe_;
    return flow == Flow::Falls ? Flow::Falls : Flow::MayLeave;
  }

  // Two ways a condition unknown at the size chooses between. When both make the same launches (kernel
  // and shape) in the same order, without a doubt, and end alike, the shapes are known whichever runs (an
  // aligned fast path and its fallback on one grid): one way's launches are kept. Otherwise both are walked
  // as maybes.
  Flow eitherWay(const Stmt *first, const Stmt *second, const Frame &frame, int depth) {
    const std::string before = doubt_;
    const std::size_t start = facts_.entryLaunches.size();
    doubt_.clear();
    const Flow firstFlow = walk(first, frame, depth);
    const bool firstSure = doubt_.empty();
    const std::size_t middle = facts_.entryLaunches.size();
    doubt_.clear();
    const Flow secondFlow = walk(second, frame, depth);
    const bool secondSure = doubt_.empty();
    const std::size_t end = facts_.entryLaunches.size();
    auto &launches = facts_.entryLaunches;
    bool same = firstSure && secondSure && firstFlow == secondFlow && firstFlow != Flow::MayLeave &&
                middle - start == end - middle;
    for (std::size_t i = 0; same && i < middle - start; ++i)
      same = launches[start + i].kernel == launches[middle + i].kernel &&
             launches[start + i].blocks == launches[middle + i].blocks &&
             launches[start + i].threadsPerBlock == launches[middle + i].threadsPerBlock;
    doubt_ = before;
    if (same) {
      launches.erase(launches.begin() + static_cast<std::ptrdiff_t>(middle), launches.end());
      return firstFlow;
    }
    launches.erase(launches.begin() + static_cast<std::ptrdiff_t>(start), launches.end());
    return either(walkMaybe(first, frame, depth), walkMaybe(second, frame, depth));
  }

  // Statements in order: after one that leaves nothing runs; after one that may leave, the rest may not run.
  Flow walkInOrder(const std::vector<const Stmt *> &statements, const Frame &frame, int depth) {
    Flow flow = Flow::Falls;
    int opened = 0;
    for (const Stmt *statement : statements) {
      const Flow next = walk(statement, frame, depth);
      if (next == Flow::Leaves) {
        flow = flow == Flow::Falls ? Flow::Leaves : Flow::MayLeave;
        break;
      }
      if (next == Flow::MayLeave && flow == Flow::Falls) {
        flow = Flow::MayLeave;
        ++maybe_, ++opened;
      }
    }
    maybe_ -= opened;
    return flow;
  }

  Flow walk(const Stmt *stmt, const Frame &frame, int depth) {
    if (!stmt)
      return Flow::Falls;
    if (depth > kMaxStatementDepth) {
      doubt("the host code nests deeper than the walk reads");
      return Flow::Falls;
    }
    if (++visits_ > kMaxVisits) { // nested undecided branches are walked twice each (eitherWay)
      doubt("the host code takes more steps to walk than the walk allows");
      return Flow::Falls;
    }
    const int next = depth + 1;
    // Never run: unevaluated operands, and lambdas (a launch inside one is a path UnseenLaunchPaths doubts).
    if (isa<LambdaExpr>(stmt) || isa<UnaryExprOrTypeTraitExpr>(stmt) || isa<CXXNoexceptExpr>(stmt))
      return Flow::Falls;
    if (const auto *type = dyn_cast<CXXTypeidExpr>(stmt))
      return type->isPotentiallyEvaluated() ? walk(type->getExprOperand(), frame, next) : Flow::Falls;
    if (const auto *generic = dyn_cast<GenericSelectionExpr>(stmt))
      return generic->isResultDependent() ? Flow::Falls : walk(generic->getResultExpr(), frame, next);
    if (const auto *chosen = dyn_cast<ChooseExpr>(stmt))
      return chosen->isConditionDependent() ? Flow::Falls : walk(chosen->getChosenSubExpr(), frame, next);
    if (const auto *defaulted = dyn_cast<CXXDefaultArgExpr>(stmt))
      return walk(defaulted->getExpr(), frame, next);
    if (const auto *defaulted = dyn_cast<CXXDefaultInitExpr>(stmt))
      return walk(defaulted->getExpr(), frame, next);
    if (isa<GotoStmt>(stmt) || isa<IndirectGotoStmt>(stmt) || isa<LabelStmt>(stmt))
      doubt("a goto at " + describe(ast_, stmt->getBeginLoc()) + ": the walk does not follow jumps");
    if (const auto *ret = dyn_cast<ReturnStmt>(stmt)) {
      walk(ret->getRetValue(), frame, next);
      return Flow::Leaves;
    }
    if (const auto *thrown = dyn_cast<CXXThrowExpr>(stmt)) {
      walk(thrown->getSubExpr(), frame, next);
      throws_ = true;
      return Flow::Leaves;
    }
    if (const auto *block = dyn_cast<CompoundStmt>(stmt))
      return walkInOrder(std::vector<const Stmt *>(block->body_begin(), block->body_end()), frame, next);
    if (const auto *declaration = dyn_cast<DeclStmt>(stmt)) {
      // A static local's initialiser runs at the first call only.
      for (const Decl *decl : declaration->decls())
        if (const auto *var = dyn_cast<VarDecl>(decl); var && var->getInit())
          var->isStaticLocal() ? walkMaybe(var->getInit(), frame, next) : walk(var->getInit(), frame, next);
      return Flow::Falls;
    }
    if (const auto *branch = dyn_cast<IfStmt>(stmt)) {
      const Flow head =
          walkInOrder({branch->getInit(), branch->getConditionVariableDeclStmt(), branch->getCond()}, frame, next);
      if (head != Flow::Falls)
        return head;
      const auto taken = branch->isConsteval() ? std::nullopt : value(branch->getCond(), frame);
      if (taken) // known at the size: `if (n % 4) tail<<<...>>>` runs one way only
        return walk(*taken ? branch->getThen() : branch->getElse(), frame, next);
      return eitherWay(branch->getThen(), branch->getElse(), frame, next);
    }
    if (const auto *loop = dyn_cast<ForStmt>(stmt)) {
      const Flow head =
          walkInOrder({loop->getInit(), loop->getConditionVariableDeclStmt(), loop->getCond()}, frame, next);
      return either(
          head, either(walkMaybe(loop->getBody(), frame, next, true), walkMaybe(loop->getInc(), frame, next, true)));
    }
    if (const auto *loop = dyn_cast<WhileStmt>(stmt)) {
      const Flow head = walkInOrder({loop->getConditionVariableDeclStmt(), loop->getCond()}, frame, next);
      return either(head, walkMaybe(loop->getBody(), frame, next, true));
    }
    if (const auto *loop = dyn_cast<DoStmt>(stmt))
      return either(walkMaybe(loop->getBody(), frame, next, true), walkMaybe(loop->getCond(), frame, next, true));
    if (const auto *loop = dyn_cast<CXXForRangeStmt>(stmt)) {
      const Flow head =
          walkInOrder({loop->getInit(), loop->getRangeStmt(), loop->getBeginStmt(), loop->getEndStmt()}, frame, next);
      return either(head, either(walkMaybe(loop->getLoopVarStmt(), frame, next, true),
                                 either(walkMaybe(loop->getBody(), frame, next, true),
                                        walkMaybe(loop->getInc(), frame, next, true))));
    }
    if (const auto *choice = dyn_cast<SwitchStmt>(stmt)) {
      const Flow head =
          walkInOrder({choice->getInit(), choice->getConditionVariableDeclStmt(), choice->getCond()}, frame, next);
      return either(head, walkMaybe(choice->getBody(), frame, next));
    }
    if (const auto *choice = dyn_cast<AbstractConditionalOperator>(stmt)) {
      // `a ?: b` evaluates its common operand once, as the condition.
      const auto *gnu = dyn_cast<BinaryConditionalOperator>(choice);
      const Flow head = walk(gnu ? gnu->getCommon() : choice->getCond(), frame, next);
      if (head != Flow::Falls)
        return head;
      if (const auto taken = value(gnu ? gnu->getCommon() : choice->getCond(), frame))
        return *taken ? (gnu ? Flow::Falls : walk(choice->getTrueExpr(), frame, next))
                      : walk(choice->getFalseExpr(), frame, next);
      return eitherWay(gnu ? nullptr : choice->getTrueExpr(), choice->getFalseExpr(), frame, next);
    }
    if (const auto *logic = dyn_cast<BinaryOperator>(stmt); logic && logic->isLogicalOp()) {
      const Flow head = walk(logic->getLHS(), frame, next);
      if (head != Flow::Falls)
        return head;
      const auto left = value(logic->getLHS(), frame);
      if (!left)
        return walkMaybe(logic->getRHS(), frame, next);
      if ((logic->getOpcode() == BO_LAnd) == (*left != 0)) // && of true, || of false: the right side runs
        return walk(logic->getRHS(), frame, next);
      return Flow::Falls;
    }
    if (const auto *attempt = dyn_cast<CXXTryStmt>(stmt)) {
      // Anything in the try block may throw to a handler: both are maybes, unless nothing can throw.
      Flow flow = walkMaybe(attempt->getTryBlock(), frame, next);
      for (unsigned i = 0; i < attempt->getNumHandlers(); ++i)
        flow = either(flow, walkMaybe(attempt->getHandler(i), frame, next));
      return flow;
    }
    // Operands run before the call or launch they feed, in order; a throw among them leaves.
    std::vector<const Stmt *> operands(stmt->child_begin(), stmt->child_end());
    Flow flow = walkInOrder(operands, frame, next);
    if (flow == Flow::Leaves)
      return flow;
    if (const auto *launch = dyn_cast<CUDAKernelCallExpr>(stmt))
      size(launch, frame);
    else if (isApiLaunch(stmt))
      doubt("a launch through " + cast<CallExpr>(stmt)->getDirectCallee()->getNameAsString() + " at " +
            describe(ast_, stmt->getBeginLoc()) + ", which the walk cannot size");
    else if (const auto *call = dyn_cast<CallExpr>(stmt))
      flow = either(flow, follow(call, frame, next));
    return flow;
  }

  bool refusedByKernel(const FunctionDecl *kernel, std::int64_t threadsPerBlock, std::int64_t shared) const {
    if (kernel)
      if (const auto *bounds = kernel->getAttr<CUDALaunchBoundsAttr>())
        if (const Expr *max = bounds->getMaxThreads()) {
          Expr::EvalResult result;
          if (max->EvaluateAsInt(result, ast_) && threadsPerBlock > result.Val.getInt().getExtValue())
            return true; // more threads than __launch_bounds__ promised: the launch fails
        }
    return shared > kDefaultSharedBytes && !sharedOptIn_; // past 48 KiB without cudaFuncSetAttribute
  }

  void size(const CUDAKernelCallExpr *launch, const Frame &frame) {
    const std::string at = describe(ast_, launch->getBeginLoc());
    if (maybe_ > 0)
      maybeRuns("the launch at " + at +
                " runs or not, or more than once, by a condition the walk cannot decide at "
                "the size (a branch, a loop, a switch, a handler, a return before it)");
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
    const FunctionDecl *kernel = launchedKernel(launch);
    // A launch CUDA would refuse (an extent of 0, a negative size wrapped to unsigned, past the limits) is no shape.
    if (!grid.known() || !block.known() || !shared || *grid.x < 1 || *grid.x > kMaxGridX || *grid.y < 1 ||
        *grid.y > kMaxGridYZ || *grid.z < 1 || *grid.z > kMaxGridYZ || *block.x < 1 || *block.x > 1024 ||
        *block.y < 1 || *block.y > 1024 || *block.z < 1 || *block.z > 64 || *block.x * *block.y * *block.z > 1024 ||
        *shared < 0 || *shared > kMaxSharedBytes || refusedByKernel(kernel, *block.x * *block.y * *block.z, *shared)) {
      doubt("the launch at " + at + " has a grid, block or shared size not known at the size, or one CUDA refuses");
      return;
    }
    if (facts_.entryLaunches.size() >= kMaxLaunches) {
      doubt("more launches than the walk keeps");
      return;
    }
    EntryLaunchFact fact;
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
    fact.certain = maybe_ == 0;
    facts_.entryLaunches.push_back(std::move(fact));
  }

  // A host function of this file: walked with its parameters bound to the call's known values. A call the
  // walk cannot resolve (a function pointer, a virtual call, a library that launches) is a doubt.
  Flow follow(const CallExpr *call, const Frame &frame, int depth) {
    const FunctionDecl *callee = call->getDirectCallee();
    const std::string at = describe(ast_, call->getBeginLoc());
    if (!callee) {
      doubt("a call at " + at + " through a pointer or object the walk cannot resolve");
      return Flow::Falls;
    }
    if (const auto *method = dyn_cast<CXXMethodDecl>(callee); method && method->isVirtual()) {
      doubt("a virtual call at " + at + ": an override may run instead");
      return Flow::Falls;
    }
    if (isLibraryLaunch(callee)) {
      doubt("a call of " + callee->getQualifiedNameAsString() + " at " + at + ", a library that launches kernels");
      return Flow::Falls;
    }
    const FunctionDecl *definition = callee->getDefinition();
    if (!definition || !hosts_.count(definition))
      return Flow::Falls;
    Bindings inner;
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      const ParmVarDecl *parameter = boundParameter(call, i);
      if (!parameter || (parameter->getType()->isReferenceType() && !bindsConstReference(parameter)))
        continue; // the object, or a reference the launcher may write through
      const ParmVarDecl *bound = definition->getParamDecl(parameter->getFunctionScopeIndex());
      if (parameter->getType()->isPointerType()) { // a valid buffer passed on stays one
        if (values_.nonNull(call->getArg(i), frame.function, *frame.bindings))
          inner[bound] = kNonNullPointer;
        continue;
      }
      if (auto known = value(call->getArg(i), frame))
        if (auto held = HostValues::asType(ast_, parameter->getType().getNonReferenceType(), *known))
          inner[bound] = *held;
    }
    return walkFunction(definition, inner, frame.loopDepth, frame.callDepth + 1, depth) ? Flow::MayLeave : Flow::Falls;
  }

  ASTContext &ast_;
  std::set<const FunctionDecl *> hosts_;
  TranslationUnitFacts &facts_;
  HostValues values_;
  bool sharedOptIn_;
  std::set<const FunctionDecl *> onStack_, walked_;
  std::size_t calls_ = 0;
  std::size_t visits_ = 0;
  int maybe_ = 0;
  bool throws_ = false;
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
      // A constructor's member initialisers run before its body (in-class ones through CXXDefaultInitExpr).
      if (const auto *constructor = dyn_cast<CXXConstructorDecl>(host))
        for (const CXXCtorInitializer *init : constructor->inits())
          scan.visit(init->getInit(), 0);
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

  bool sharedOptIn() const {
    for (const auto &entry : scans_)
      if (entry.second.sharedOptIn)
        return true;
    return false;
  }

  // The first such path, or "". `walked`: the functions the entry's walk went through.
  std::string find(const std::set<const FunctionDecl *> &walked) const {
    for (const auto &[host, scan] : scans_) {
      if (scan.truncated)
        return "'" + host->getNameAsString() + "' nests deeper than the walk reads";
      if (scan.capture)
        return "'" + host->getNameAsString() + "' captures a stream into a graph (launches then run when, and " +
               "as often as, the graph does)";
      // A functor's call operator the walk did not call: std::thread, std::function, an algorithm may.
      if (const auto *method = dyn_cast<CXXMethodDecl>(host);
          method && launching_.count(host) && method->getOverloadedOperator() == OO_Call && !walked.count(host))
        return "'" + method->getParent()->getNameAsString() + "::operator()' launches and is not called by " +
               "the walk (a library, thread or callback may call it)";
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

    bool truncated = false, sharedOptIn = false, capture = false;

    void visit(const Stmt *stmt, int depth) {
      if (!stmt)
        return;
      if (depth > kMaxStatementDepth) {
        truncated = true;
        return;
      }
      if (const auto *call = dyn_cast<CallExpr>(stmt))
        if (const FunctionDecl *callee = call->getDirectCallee(); callee && callee->getDeclName().isIdentifier()) {
          sharedOptIn |= callee->getName().starts_with("cudaFuncSetAttribute");
          capture |=
              callee->getName().starts_with("cudaStreamBeginCapture") || callee->getName().starts_with("cudaGraph");
        }
      if (const auto *lambda = dyn_cast<LambdaExpr>(stmt)) {
        Scan inner;
        inner.visit(lambda->getBody(), depth + 1);
        truncated |= inner.truncated, sharedOptIn |= inner.sharedOptIn, capture |= inner.capture;
        lambdas.push_back({{lambda->getBeginLoc(), inner.launches}, inner.callees});
        for (auto &nested : inner.lambdas)
          lambdas.push_back(std::move(nested));
        for (auto &taken : inner.addressed)
          addressed.push_back(taken);
        return;
      }
      // Expressions a declaration owns, evaluated where they are used: an in-class member initialiser, a default
      // argument.
      if (const auto *member = dyn_cast<CXXDefaultInitExpr>(stmt))
        visit(member->getExpr(), depth + 1);
      if (const auto *argument = dyn_cast<CXXDefaultArgExpr>(stmt))
        visit(argument->getExpr(), depth + 1);
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

// The function the harness calls: the one whose emitted symbol is the entry's name (dlsym finds it so),
// honouring asm labels; a static or C++-mangled namesake is not it.
const FunctionDecl *findEntry(ASTContext &ast, const std::vector<const FunctionDecl *> &hosts, const std::string &name,
                              std::string &problem) {
  std::unique_ptr<MangleContext> mangler(ast.createMangleContext());
  std::vector<const FunctionDecl *> found;
  for (const FunctionDecl *function : hosts) {
    if (!function->isExternallyVisible() || isa<CXXMethodDecl>(function) || function->isDependentContext())
      continue;
    std::string symbol;
    if (const auto *label = function->getAttr<AsmLabelAttr>()) {
      symbol = label->getLabel().str();
    } else if (mangler->shouldMangleDeclName(function)) {
      llvm::raw_string_ostream out(symbol);
      mangler->mangleName(GlobalDecl(function), out);
    } else if (function->getDeclName().isIdentifier()) {
      symbol = function->getName().str();
    }
    if (symbol == name)
      found.push_back(function);
  }
  if (found.size() == 1 && !found.front()->hasAttr<AliasAttr>())
    return found.front();
  problem = found.empty() ? "no function of this file exports the symbol '" + name + "' (extern \"C\")"
                          : "more than one function could be the entry '" + name + "'";
  return nullptr;
}

} // namespace

void collectEntryLaunches(ASTContext &ast, const std::vector<const FunctionDecl *> &hostFunctions,
                          const AnalysisOptions &options, TranslationUnitFacts &facts) {
  if (options.entry.empty())
    return;
  const FunctionDecl *entry = findEntry(ast, hostFunctions, options.entry, facts.entryLaunchesProblem);
  if (!entry)
    return;
  Bindings bindings;
  // Every pointer argument of the entry is a buffer the harness allocated: never null.
  for (unsigned i = 0; i < entry->getNumParams(); ++i)
    if (entry->getParamDecl(i)->getType()->isPointerType())
      bindings[entry->getParamDecl(i)] = kNonNullPointer;
  for (unsigned i = 0; i < entry->getNumParams() && i < options.entryArguments.size(); ++i)
    if (options.entryArguments[i] && entry->getParamDecl(i)->getType()->isIntegralOrEnumerationType())
      if (auto held = HostValues::asType(ast, entry->getParamDecl(i)->getType(), *options.entryArguments[i]))
        bindings[entry->getParamDecl(i)] = *held; // as the parameter holds it: a short keeps 16 bits
  const UnseenLaunchPaths paths(ast, hostFunctions);
  EntryWalker walker(ast, hostFunctions, facts, paths.sharedOptIn());
  walker.walkFunction(entry, bindings, 0, 0, 0);
  // Said first when it happened: the budget, not the launch it left unsized, is the reason.
  if (walker.exhausted())
    facts.entryLaunchesProblem = "the values took more evaluation than the walk allows";
  // Launches the walk could not have seen (a lambda, a function pointer, an implicit call); overrides are
  // doubted where the walk meets the virtual call.
  const std::string unseen = paths.find(walker.walked());
  if (!unseen.empty())
    walker.doubt(unseen + ": a launch may run that the walk does not see");
  if (!facts.entryLaunchesProblem.empty())
    return;
  facts.entryLaunchesComplete = walker.onlyMaybeRuns() && !facts.entryLaunches.empty();
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
