// KernelWalker, memory: the memory object and byte offset an lvalue names,
// and the loads, stores and operations recorded as facts.
#include "KernelWalker.h"

#include <clang/AST/Attr.h>

#include <utility>

namespace cudaperf::analysis {

using namespace clang;
using namespace walker;

Value KernelWalker::memoryObject(const VarDecl *var, MemorySpace space) {
  Value pointer;
  pointer.isPointer = true;
  pointer.base = var;
  pointer.baseName = var->getNameAsString();
  pointer.space = space;
  return pointer;
}

void KernelWalker::noteSharedDecl(const VarDecl *var) {
  if (!sharedSeen_.insert(var).second || !recording_)
    return;
  SharedDeclFact fact;
  fact.decl = var;
  fact.loc = var->getLocation();
  fact.name = var->getNameAsString();
  fact.type = var->getType().getAsString();
  fact.dynamic = var->getType()->isIncompleteArrayType();
  fact.bytes = fact.dynamic ? 0 : typeSize(var->getType()).value_or(0);
  facts_.sharedDecls.push_back(fact);
}

const Expr *KernelWalker::stripNoOps(const Expr *expr) const {
  while (true) {
    expr = expr->IgnoreParens();
    if (const auto *cast = dyn_cast<ImplicitCastExpr>(expr); cast && cast->getCastKind() == CK_NoOp) {
      expr = cast->getSubExpr();
      continue;
    }
    if (const auto *temp = dyn_cast<MaterializeTemporaryExpr>(expr)) {
      expr = temp->getSubExpr();
      continue;
    }
    return expr;
  }
}

// The memory location an lvalue names, or nullopt for registers (locals).
std::optional<Address> KernelWalker::address(const Expr *lvalue) {
  lvalue = stripNoOps(lvalue);
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(lvalue)) {
    Value base = eval(subscript->getBase());
    Value index = eval(subscript->getIdx());
    if (!base.isPointer)
      return std::nullopt;
    const std::int64_t size = typeSize(subscript->getType()).value_or(1);
    if (index.isPointer)
      index = opaqueJoin({&index});
    base.poly = base.poly + index.poly.scaled(size);
    return Address{normalized(base), subscript->getType()};
  }
  if (const auto *unary = dyn_cast<UnaryOperator>(lvalue); unary && unary->getOpcode() == UO_Deref) {
    Value pointer = eval(unary->getSubExpr());
    if (!pointer.isPointer)
      return std::nullopt;
    return Address{pointer, unary->getType()};
  }
  if (const auto *member = dyn_cast<MemberExpr>(lvalue)) {
    if (builtinIndex(member))
      return std::nullopt;
    const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
    if (!field)
      return std::nullopt;
    std::optional<Address> base;
    if (member->isArrow()) {
      Value pointer = eval(member->getBase());
      if (!pointer.isPointer)
        return std::nullopt;
      base = Address{pointer, member->getBase()->getType()->getPointeeType()};
    } else {
      base = address(member->getBase());
    }
    if (!base)
      return std::nullopt;
    if (auto offset = fieldOffset(field))
      base->pointer.poly = base->pointer.poly + Polynomial::constant(*offset);
    else
      base->pointer.poly = base->pointer.poly + opaque(Variance::Uniform).poly;
    base->type = member->getType();
    return base;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(lvalue)) {
    const auto *var = dyn_cast<VarDecl>(ref->getDecl());
    if (!var)
      return std::nullopt;
    if (auto it = env_.find(var); it != env_.end()) {
      if (!it->second.isReference)
        return std::nullopt;
      Value pointer = it->second;
      pointer.isReference = false;
      pointer.isPointer = true;
      return Address{pointer, var->getType().getNonReferenceType()};
    }
    if (var->hasAttr<CUDASharedAttr>()) {
      noteSharedDecl(var);
      return Address{memoryObject(var, MemorySpace::Shared), var->getType()};
    }
    if (var->hasAttr<CUDAConstantAttr>()) {
      Value pointer = memoryObject(var, MemorySpace::Global);
      pointer.constantSpace = true;
      return Address{pointer, var->getType()};
    }
    if (var->hasGlobalStorage() && !var->isStaticLocal() &&
        (var->hasAttr<CUDADeviceAttr>() || var->hasAttr<HIPManagedAttr>()))
      return Address{memoryObject(var, MemorySpace::Global), var->getType()};
    if (var->getType()->isArrayType())
      return Address{memoryObject(var, MemorySpace::Local), var->getType()};
    return std::nullopt;
  }
  return std::nullopt;
}

void KernelWalker::recordAccess(const Expr *site, const Address &address, AccessKind kind, bool readOnlyCache,
                                bool warpCooperative) {
  if (!recording_)
    return;
  if (address.pointer.constantSpace) {
    ++facts_.constantLoads;
    return;
  }
  AccessFact fact;
  fact.loc = site->getBeginLoc();
  fact.space = address.pointer.space;
  fact.kind = kind;
  fact.variable = address.pointer.baseName.empty() ? "?" : address.pointer.baseName;
  fact.expression = text(site);
  fact.bytes = static_cast<unsigned>(typeSize(address.type).value_or(0));
  // A struct wider than the widest load (16 bytes) moves in 16-byte pieces:
  // its lanes are its size apart, not one "element" apart (`Row r = rows[i]`
  // of 256 bytes is no coalesced read, whatever fields are used).
  if (fact.bytes > 16 && !address.type.isNull() && address.type->isRecordType())
    fact.bytes = 16;
  // A 16x16 wmma tile moved by a warp: 8 elements per thread.
  if (warpCooperative)
    fact.bytes *= 8;
  fact.byteOffset = address.pointer.poly;
  fact.loopDepth = loopDepth_;
  fact.tripWeight = tripWeight_;
  fact.vectorized = isVectorAccessType(address.type);
  fact.readOnlyCache = readOnlyCache;
  fact.warpCooperative = warpCooperative;
  facts_.accesses.push_back(std::move(fact));
}

Value KernelWalker::loadResult(const Address &address, QualType type, const std::string &name) {
  // A thread's local array holds what that thread stored: the same address in
  // every lane is no evidence of the same value (`a[0] = idx[tid]` then
  // `in[a[0]]` is a gather), so a local load varies lane to lane.
  const bool local = address.pointer.space == MemorySpace::Local;
  const Variance variance = local ? Variance::LaneVarying : varianceOf(address.pointer);
  const unsigned groupLanes = local ? 1 : groupLanesOf(address.pointer);
  if (!type.isNull() && type->isPointerType()) {
    Value pointer;
    pointer.isPointer = true;
    pointer.baseName = name;
    pointer.space = MemorySpace::Global;
    pointer.poly = opaque(variance, true, false, "?", groupLanes).poly;
    return pointer;
  }
  // Loaded at the same address by a group of lanes: the same value for the group (a row's start).
  return opaque(variance, true, false, "load " + name, groupLanes);
}

Value KernelWalker::load(const Expr *site, const Address &address, QualType type) {
  recordAccess(site, address, AccessKind::Load);
  return loadResult(address, type, address.pointer.baseName);
}

void KernelWalker::countOps(double count, QualType type) {
  if (!recording_)
    return;
  facts_.weightedOps += count * tripWeight_;
  if (isHalfType(type))
    ++facts_.halfOps;
  else if (isBf16Type(type))
    ++facts_.bf16Ops;
}

} // namespace cudaperf::analysis
