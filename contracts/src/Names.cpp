// String names of the report enums, as they appear in the JSON contract.
#include "cudaperf/contracts/FeatureReport.h"

namespace cudaperf {

const char *toString(MemorySpace space) {
  switch (space) {
  case MemorySpace::Global:
    return "global";
  case MemorySpace::Shared:
    return "shared";
  case MemorySpace::Local:
    return "local";
  }
  return "global";
}

const char *toString(AccessKind kind) {
  switch (kind) {
  case AccessKind::Load:
    return "load";
  case AccessKind::Store:
    return "store";
  case AccessKind::Atomic:
    return "atomic";
  }
  return "load";
}

const char *toString(BranchClass branchClass) {
  switch (branchClass) {
  case BranchClass::Guard:
    return "guard";
  case BranchClass::WarpUniform:
    return "warp_uniform";
  case BranchClass::LaneDivergent:
    return "lane_divergent";
  case BranchClass::Uniform:
    return "uniform";
  }
  return "uniform";
}

const char *toString(BranchKind kind) {
  switch (kind) {
  case BranchKind::If:
    return "if";
  case BranchKind::For:
    return "for";
  case BranchKind::While:
    return "while";
  case BranchKind::Do:
    return "do";
  case BranchKind::Switch:
    return "switch";
  case BranchKind::Conditional:
    return "conditional";
  case BranchKind::ShortCircuit:
    return "short_circuit";
  }
  return "if";
}

const char *toString(StrideClass strideClass) {
  switch (strideClass) {
  case StrideClass::Constant:
    return "constant";
  case StrideClass::Symbolic:
    return "symbolic";
  case StrideClass::Unknown:
    return "unknown";
  }
  return "unknown";
}

const char *toString(Severity severity) { return severity == Severity::Note ? "note" : "warning"; }

} // namespace cudaperf
