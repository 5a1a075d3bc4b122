// KernelWalker, calls: barriers, atomics, warp shuffles and votes, cache
// hinted loads/stores, wmma, cooperative groups, half intrinsics and inlining.
#include "KernelWalker.h"

#include <clang/AST/Attr.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <utility>

namespace cudaperf::analysis {

using namespace clang;
using namespace walker;

void KernelWalker::recordSync(const CallExpr *call, const std::string &function) {
  if (!recording_)
    return;
  SyncFact fact;
  fact.loc = call->getBeginLoc();
  fact.function = function;
  for (auto it = control_.rbegin(); it != control_.rend(); ++it)
    if (it->first != Variance::Uniform) {
      fact.underThreadDependentCondition = true;
      fact.causeLoc = it->second; // the innermost thread-dependent condition
      break;
    }
  fact.afterThreadDependentExit = threadDependentExit_;
  if (!fact.underThreadDependentCondition && threadDependentExit_)
    fact.causeLoc = threadDependentExitLoc_;
  fact.loopDepth = loopDepth_;
  fact.tripWeight = tripWeight_;
  facts_.syncs.push_back(fact);
}

// CUDA's own functions are known by name; a function of the same name with
// a body the candidate wrote (`my::__ldcs` reading p[threadIdx.x * 63], an
// `atomicPeek`) is not one of them and is walked like any helper.
bool KernelWalker::isToolchainFunction(const FunctionDecl *callee) const {
  if (!callee || callee->getBuiltinID() != 0)
    return true;
  const FunctionDecl *definition = nullptr;
  if (!callee->hasBody(definition) || !definition)
    return true; // a declaration only: the toolchain's (or a stand-in header's), nothing to walk
  const SourceManager &sources = ast_.getSourceManager();
  const SourceLocation where = sources.getExpansionLoc(definition->getLocation());
  return sources.isInSystemHeader(where) || sources.getFilename(where).starts_with("/cudaperf-compat/");
}

Value KernelWalker::evalCall(const CallExpr *call) {
  const FunctionDecl *callee = call->getDirectCallee();
  const bool toolchain = isToolchainFunction(callee);
  const std::string name = callee && callee->getIdentifier() && toolchain ? callee->getName().str() : "";
  const std::string qualified = callee && toolchain ? callee->getQualifiedNameAsString() : "";
  const auto *memberCall = dyn_cast<CXXMemberCallExpr>(call);
  const bool cooperativeGroups = qualified.find("cooperative_groups") != std::string::npos;
  // The group a cooperative-groups query is about: `g.thread_rank()` (a
  // member call, or a static member as thread_block_tile's are in CUDA 12
  // and 13) or `cg::thread_rank(g)`.
  const Expr *group = memberCall ? memberCall->getImplicitObjectArgument() : nullptr;
  if (!group && cooperativeGroups) {
    if (const auto *member = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts()))
      group = member->getBase();
    else if (call->getNumArgs() == 1)
      group = call->getArg(0);
  }

  // Barriers: __syncthreads*, __syncwarp, cooperative-groups sync.
  if (name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
      name == "__syncthreads_or" || name == "__syncwarp" || name == "__barrier_sync" ||
      (name == "sync" && (memberCall || cooperativeGroups)) || (cooperativeGroups && name == "grid_sync")) {
    recordSync(call, memberCall || cooperativeGroups ? "cg::sync" : name);
    evalChildren(call);
    return opaque(Variance::Uniform);
  }
  if (name.rfind("atomic", 0) == 0 && call->getNumArgs() >= 1) {
    Value pointer = eval(call->getArg(0));
    for (unsigned i = 1; i < call->getNumArgs(); ++i)
      eval(call->getArg(i));
    MemorySpace space = MemorySpace::Global;
    if (pointer.isPointer) {
      space = pointer.space;
      recordAccess(call, Address{pointer, call->getArg(0)->getType()->getPointeeType()}, AccessKind::Atomic);
    }
    if (recording_)
      facts_.atomics.push_back({call->getBeginLoc(), name, space, loopDepth_, tripWeight_});
    countOps(1, call->getType());
    return opaque(Variance::LaneVarying, true);
  }
  if (name.rfind("__shfl", 0) == 0 ||
      (group && (name == "shfl" || name == "shfl_down" || name == "shfl_up" || name == "shfl_xor")) ||
      (cooperativeGroups && name == "reduce")) {
    if (recording_)
      ++facts_.warpShuffles;
    Value result = evalChildren(call);
    // __shfl_sync(mask, v, constant lane) broadcasts one lane: warp-uniform.
    if ((name == "__shfl_sync" || name == "__shfl") && call->getNumArgs() >= 3 &&
        evaluateInt(call->getArg(name == "__shfl_sync" ? 2 : 1)))
      return opaque(Variance::WarpUniform, memoryOf(result));
    return opaque(Variance::LaneVarying, memoryOf(result));
  }
  if (name == "__ballot_sync" || name == "__any_sync" || name == "__all_sync" || name == "__activemask") {
    Value result = evalChildren(call);
    return opaque(Variance::WarpUniform, memoryOf(result));
  }
  if ((name == "__ldg" || name == "__ldcg" || name == "__ldca" || name == "__ldcs" || name == "__ldlu" ||
       name == "__ldcv") &&
      call->getNumArgs() == 1) {
    Value pointer = eval(call->getArg(0));
    if (!pointer.isPointer)
      return opaqueJoin({&pointer});
    Address address{pointer, call->getArg(0)->getType()->getPointeeType()};
    recordAccess(call, address, AccessKind::Load, name == "__ldg");
    return loadResult(address, call->getType(), pointer.baseName);
  }
  if ((name == "__stcg" || name == "__stcs" || name == "__stwb" || name == "__stwt") && call->getNumArgs() == 2) {
    Value pointer = eval(call->getArg(0));
    eval(call->getArg(1));
    if (pointer.isPointer)
      recordAccess(call, Address{pointer, call->getArg(0)->getType()->getPointeeType()}, AccessKind::Store);
    return opaque(Variance::Uniform);
  }
  if (qualified.find("wmma::") != std::string::npos)
    return evalWmma(call, name);
  if (group && (name == "thread_rank" || name == "meta_group_rank" || name == "size" || name == "num_threads" ||
                name == "group_index" || name == "thread_index"))
    return cooperativeGroupQuery(group, name);
  if (isHalfIntrinsic(name)) {
    if (recording_) {
      bool bf16 = false;
      for (const Expr *arg : call->arguments())
        bf16 |= isBf16Type(arg->getType());
      ++(bf16 ? facts_.bf16Ops : facts_.halfOps);
      facts_.weightedOps += (name.find("fma") != std::string::npos ? 2.0 : 1.0) * tripWeight_;
    }
    return evalChildren(call);
  }
  if (callee && callee->hasBody() && isInlinable(callee))
    return inlineCall(callee, call);
  // A const method of a value type called on memory, not walked (a system
  // header's): bf16's `operator float()` in `float x = in[i]`, __half's
  // conversions. It reads the whole object, as a copy would.
  if (const auto *method = memberCall ? memberCall->getMethodDecl() : nullptr; method && method->isConst()) {
    const Expr *object = memberCall->getImplicitObjectArgument();
    if (object && object->isGLValue() && isSmallValueType(object->getType()))
      if (auto address = this->address(object)) {
        Address whole = *address;
        whole.type = object->getType();
        Value read = load(object, whole, object->getType());
        for (const Expr *arg : call->arguments())
          eval(arg);
        if (isFloatingLike(call->getType()))
          countOps(1, call->getType());
        return opaqueJoin({&read});
      }
  }

  Value result = evalChildren(call);
  if (isFloatingLike(call->getType()))
    countOps(name.find("fma") != std::string::npos ? 2.0 : 1.0, call->getType());
  return result;
}

// A value type read whole by its operators: at most 16 bytes (__half,
// __nv_bfloat16, their pairs, a float4-sized struct). A bigger struct's
// method may read one field of it, and a 256-byte object counted as one
// access would make a 256-byte stride look like stride 1.
bool KernelWalker::isSmallValueType(QualType type) const {
  if (type.isNull() || !type->isRecordType())
    return false;
  const auto size = typeSize(type); // none for an invalid, incomplete or dependent record
  return size && *size <= 16;
}

bool KernelWalker::isHalfIntrinsic(const std::string &name) {
  static const std::regex halfOp(
      "__h(add|sub|mul|div|fma|neg|abs|max|min)2?(_rn|_sat|_relu)?|h(exp|log|sqrt|rsqrt|rcp)2?");
  return std::regex_match(name, halfOp);
}

bool KernelWalker::isInlinable(const FunctionDecl *callee) const {
  if (callee->hasAttr<CUDAGlobalAttr>() || callStack_.size() > kMaxInlineDepth)
    return false;
  if (std::find(callStack_.begin(), callStack_.end(), callee) != callStack_.end())
    return false;
  const SourceManager &sources = ast_.getSourceManager();
  if (sources.isInSystemHeader(sources.getExpansionLoc(callee->getLocation())))
    return false;
  return callee->hasAttr<CUDADeviceAttr>() || callee->isConstexpr() || callee->isInlined();
}

Value KernelWalker::inlineCall(const FunctionDecl *callee, const CallExpr *call) {
  // A lambda's body names the caller's locals it captures: it is walked in
  // the caller's environment (plus its parameters). A method's object (the
  // closure, or what `this` points to) is the operator call's first argument
  // or the member call's implicit object, not a parameter.
  const auto *method = dyn_cast<CXXMethodDecl>(callee);
  const bool instance = method && method->isInstance();
  const bool lambda = instance && method->getParent()->isLambda();
  const bool objectFirst = instance && isa<CXXOperatorCallExpr>(call);
  Env calleeEnv = lambda ? env_ : Env{};
  const unsigned firstArgument = objectFirst ? 1 : 0;
  for (unsigned i = 0; i < callee->getNumParams() && i + firstArgument < call->getNumArgs(); ++i) {
    const ParmVarDecl *param = callee->getParamDecl(i);
    Value argument = eval(call->getArg(i + firstArgument));
    if (!param->getType()->isReferenceType())
      argument.isReference = false;
    calleeEnv[param] = argument;
  }
  // `this` inside the body: the object's address when it lives in memory
  // (`rows[i].first()` reads through it), else an opaque value.
  const Expr *object = nullptr;
  if (const auto *member = dyn_cast<CXXMemberCallExpr>(call))
    object = member->getImplicitObjectArgument();
  else if (objectFirst && call->getNumArgs() > 0)
    object = call->getArg(0);
  std::optional<Value> thisPointer;
  if (object && instance && !lambda) {
    if (object->getType()->isPointerType()) {
      if (Value pointer = eval(object); pointer.isPointer)
        thisPointer = pointer;
    } else if (object->isGLValue()) {
      if (auto where = address(object))
        thisPointer = where->pointer;
      else
        eval(object);
    } else {
      eval(object);
    }
  } else if (object) {
    eval(object);
  }
  std::swap(thisPointer_, thisPointer);
  std::swap(env_, calleeEnv);
  callStack_.push_back(callee);
  std::vector<Value> returned;
  auto *savedReturns = returns_;
  const bool savedExit = threadDependentExit_;
  const SourceLocation savedExitLoc = threadDependentExitLoc_;
  returns_ = &returned;
  walkStmt(callee->getBody());
  returns_ = savedReturns;
  threadDependentExit_ = savedExit;
  threadDependentExitLoc_ = savedExitLoc;
  callStack_.pop_back();
  std::swap(env_, calleeEnv);
  std::swap(thisPointer_, thisPointer);
  if (returned.empty())
    return opaque(Variance::Uniform);
  bool allSame = true;
  for (const Value &value : returned)
    allSame &= value.sameAs(returned.front());
  if (allSame)
    return returned.front();
  Variance variance = Variance::Uniform;
  bool memory = false;
  for (const Value &value : returned) {
    variance = join(variance, varianceOf(value));
    memory |= memoryOf(value);
  }
  return opaque(variance, memory);
}

Value KernelWalker::evalWmma(const CallExpr *call, const std::string &name) {
  if (name == "load_matrix_sync" && call->getNumArgs() >= 2) {
    eval(call->getArg(0));
    Value pointer = eval(call->getArg(1));
    for (unsigned i = 2; i < call->getNumArgs(); ++i)
      eval(call->getArg(i));
    if (pointer.isPointer)
      recordAccess(call, Address{pointer, call->getArg(1)->getType()->getPointeeType()}, AccessKind::Load, false, true);
    return opaque(Variance::Uniform);
  }
  if (name == "store_matrix_sync" && call->getNumArgs() >= 2) {
    Value pointer = eval(call->getArg(0));
    for (unsigned i = 1; i < call->getNumArgs(); ++i)
      eval(call->getArg(i));
    if (pointer.isPointer)
      recordAccess(call, Address{pointer, call->getArg(0)->getType()->getPointeeType()}, AccessKind::Store, false,
                   true);
    return opaque(Variance::Uniform);
  }
  if (name == "mma_sync" && recording_) {
    ++facts_.tensorCoreOps;
    // 16x16x16 multiply-accumulate: 2*4096 flops per warp, 256 per thread.
    facts_.weightedOps += 256.0 * tripWeight_;
  }
  return evalChildren(call);
}

namespace {

// thread_block_tile<N, ...>'s N when it is a power of two below a warp (its
// lanes are aligned groups of N); 32 for any other group.
unsigned tileLanes(const std::string &groupType) {
  const auto at = groupType.find("thread_block_tile<");
  if (at == std::string::npos)
    return 32;
  const unsigned lanes = static_cast<unsigned>(std::strtoul(groupType.c_str() + at + 18, nullptr, 10));
  return lanes >= 2 && lanes < 32 && (lanes & (lanes - 1)) == 0 ? lanes : 32;
}

// Whether `expr` holds a `tiled_partition` of the thread block itself (not of
// another tile or of a coalesced group, whose ranks count within the parent).
bool partitionOfBlock(const Stmt *stmt) {
  if (!stmt)
    return false;
  if (const auto *call = dyn_cast<CallExpr>(stmt)) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (callee && callee->getNameAsString() == "tiled_partition" && call->getNumArgs() >= 1) {
      const std::string parent = call->getArg(0)->IgnoreParenImpCasts()->getType().getNonReferenceType().getAsString();
      return parent.find("thread_block") != std::string::npos && parent.find("thread_block_tile") == std::string::npos;
    }
  }
  for (const Stmt *child : stmt->children())
    if (partitionOfBlock(child))
      return true;
  return false;
}

// The tile object's own partition call, through the variable it was declared as.
bool tileOfBlock(const Expr *groupObject) {
  const Expr *object = groupObject->IgnoreParenImpCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(object))
    if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
      return partitionOfBlock(var->getInit());
  return partitionOfBlock(object);
}

} // namespace

Value KernelWalker::cooperativeGroupQuery(const Expr *groupObject, const std::string &name) {
  eval(groupObject);
  const std::string group = groupObject->getType().getAsString();
  if (name == "thread_rank") {
    Value rank;
    if (group.find("grid") != std::string::npos) {
      rank.poly = Polynomial::symbol(lane_) + Polynomial::symbol(symbols_.builtin(SymbolKind::BlockIdx, 0)) *
                                                  Polynomial::symbol(symbols_.builtin(SymbolKind::BlockDim, 0));
    } else if (const unsigned lanes = tileLanes(group); lanes < 32) {
      // A tile of 8 cut from the block: threadIdx.x % 8. Cut from another tile or a coalesced group
      // (or where the analysis cannot see which), its ranks need not follow the lane: unknown.
      if (!tileOfBlock(groupObject))
        return opaque(Variance::LaneVarying);
      rank.poly = Polynomial::symbol(symbols_.laneSplit(lanes, true));
    } else if (group.find("tile") != std::string::npos || group.find("coalesced") != std::string::npos) {
      rank.poly = Polynomial::symbol(lane_) + opaque(Variance::WarpUniform).poly;
    } else {
      rank.poly = Polynomial::symbol(lane_) + Polynomial::symbol(symbols_.builtin(SymbolKind::ThreadIdx, 1)) *
                                                  Polynomial::symbol(symbols_.builtin(SymbolKind::BlockDim, 0));
    }
    return rank;
  }
  if (name == "meta_group_rank") {
    // Which tile of the block: for tiles below a warp, threadIdx.x / size plus the warp's first tile.
    // A tile cut from another tile counts within its parent (`tiled_partition<8>(tile16)`: 0 or 1,
    // which half of the 16), so it may differ across a warp: unknown unless cut from the block.
    if (const unsigned lanes = tileLanes(group); lanes < 32) {
      if (!tileOfBlock(groupObject))
        return opaque(Variance::LaneVarying);
      Value rank;
      rank.poly = Polynomial::symbol(symbols_.laneSplit(lanes, false)) + opaque(Variance::WarpUniform).poly;
      return rank;
    }
    return opaque(Variance::WarpUniform);
  }
  return opaque(Variance::Uniform);
}

} // namespace cudaperf::analysis
