#include "cudaperf/contracts/ReportText.h"

#include <cstdio>
#include <sstream>

namespace cudaperf {

namespace {

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

void writeFeatures(std::ostringstream &out, const FeatureVector &features, const char *prefix) {
  out << prefix;
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    out << (i ? "  " : "") << kFeatureNames[i] << "=" << number(features[i]);
  out << "\n";
}

// "extended: bank=1 vec=4 ... (unknown: bank)" after the rest of a block.
void writeExtended(std::ostringstream &out, const FeatureVector &features, const char *prefix) {
  out << prefix << "extended:";
  std::string unknown;
  for (std::size_t i = 0; i < kExtendedFeatureCount; ++i) {
    out << " " << kExtendedFeatureNames[i] << "=" << number(features.extended[i]);
    if (features.isUnknown(kFeatureCount + i))
      unknown += (unknown.empty() ? "" : " ") + std::string(kExtendedFeatureNames[i]);
  }
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    if (features.isUnknown(i))
      unknown += (unknown.empty() ? "" : " ") + std::string(kFeatureNames[i]);
  out << (unknown.empty() ? "" : "  (unknown: " + unknown + ")") << "\n";
}

std::string strideText(const MemoryAccess &access) {
  switch (access.strideClass) {
  case StrideClass::Constant:
    return std::to_string(access.stride);
  case StrideClass::Symbolic:
    return access.strideExpr.empty() ? "symbolic" : access.strideExpr;
  case StrideClass::Unknown:
    return "unknown";
  }
  return "unknown";
}

} // namespace

std::string reportToText(const TranslationUnitReport &report) {
  std::ostringstream out;
  out << "== " << report.file << " (" << report.arch << ", " << report.kernels.size() << " kernel"
      << (report.kernels.size() == 1 ? "" : "s") << ", " << report.launches.size() << " launch"
      << (report.launches.size() == 1 ? "" : "es") << ")\n";
  if (report.errors)
    out << "   " << report.errors << " compiler error(s) in this file; kernels that parsed are reported\n";
  for (const auto &include : report.host.skippedIncludes)
    out << "   skipped missing include <" << include << ">\n";

  for (const auto &kernel : report.kernels) {
    out << "\nkernel " << kernel.name << "  at " << kernel.location
        << (kernel.templatePattern ? "  (uninstantiated template)" : "") << "\n";
    writeFeatures(out, kernel.features, "  ");
    const auto &occupancy = kernel.occupancy;
    out << "  launch: tpb=" << (occupancy.threadsPerBlock ? std::to_string(*occupancy.threadsPerBlock) : "?") << " ("
        << occupancy.tpbSource << "), occupancy " << number(occupancy.theoretical) << " on " << occupancy.arch;
    if (!occupancy.limiter.empty())
      out << " (limited by " << occupancy.limiter << ")";
    out << ", launched " << kernel.launchCount << "x\n";
    if (kernel.launchBounds.maxThreadsPerBlock)
      out << "  launch_bounds: max " << *kernel.launchBounds.maxThreadsPerBlock << " min "
          << kernel.launchBounds.minBlocksPerSM.value_or(0) << "\n";
    if (kernel.shared.staticBytes || kernel.shared.usesDynamic) {
      out << "  shared: " << kernel.shared.staticBytes << " B static" << (kernel.shared.usesDynamic ? ", dynamic" : "");
      if (kernel.shared.dynamicBytes)
        out << " (" << *kernel.shared.dynamicBytes << " B at launch)";
      out << ", worst bank conflict " << kernel.shared.maxBankConflictWays << "-way\n";
      for (const auto &array : kernel.shared.arrays)
        out << "    shared array " << array.name << " " << array.type << " " << array.bytes << " B"
            << (array.dynamic ? " dynamic" : "") << "\n";
    }
    if (!kernel.accesses.empty()) {
      out << "  accesses:\n";
      for (const auto &access : kernel.accesses) {
        out << "    " << toString(access.space) << " " << toString(access.kind) << " " << access.expression
            << "  stride " << strideText(access);
        if (access.space == MemorySpace::Global)
          out << "  score " << number(access.score);
        if (access.bankConflictWays)
          out << "  bank " << *access.bankConflictWays << "-way";
        if (access.vectorized)
          out << "  vector";
        out << "  @" << access.location << "\n";
      }
    }
    for (const auto &branch : kernel.branches)
      out << "  branch " << toString(branch.kind) << " (" << branch.condition << ") " << toString(branch.branchClass)
          << "  @" << branch.location << "\n";
    for (const auto &sync : kernel.syncs)
      out << "  sync " << sync.function << (sync.underThreadDependentCondition ? "  thread-dependent" : "") << "  @"
          << sync.location << "\n";
    for (const auto &atomic : kernel.atomics)
      out << "  atomic " << atomic.function << " " << toString(atomic.space) << "  @" << atomic.location << "\n";
    const auto &extras = kernel.extras;
    out << "  extras: vectorized=" << extras.vectorizedAccesses << " ldg=" << extras.ldg
        << " restrict=" << extras.restrictPointers << " shuffles=" << extras.warpShuffles
        << " tensor_core=" << extras.tensorCoreOps << " grid_stride=" << extras.gridStrideLoops
        << " unroll=" << extras.unrollPragmas << " half=" << extras.halfArithmetic << " bf16=" << extras.bf16Arithmetic
        << " constant=" << extras.constantLoads << " device_sync_in_loops=" << extras.deviceSyncInLoops << "\n";
    writeExtended(out, kernel.features, "  ");
    for (const auto &diagnostic : kernel.diagnostics) {
      out << "  " << toString(diagnostic.severity) << ": " << diagnostic.message << "  @" << diagnostic.location
          << "\n";
      if (!diagnostic.noteMessage.empty())
        out << "    note: " << diagnostic.noteMessage << "  @" << diagnostic.noteLocation << "\n";
    }
  }

  if (!report.launches.empty()) {
    out << "\nlaunches:\n";
    for (const auto &launch : report.launches)
      out << "  " << launch.kernel << "<<<" << launch.grid.expression << ", " << launch.block.expression
          << ">>>  grid=" << (launch.grid.product() ? std::to_string(*launch.grid.product()) : "?")
          << "  tpb=" << (launch.block.product() ? std::to_string(*launch.block.product()) : "?")
          << "  shared=" << (launch.dynamicSharedBytes ? std::to_string(*launch.dynamicSharedBytes) : "?")
          << (launch.loopDepth ? "  (in loop)" : "") << "  @" << launch.location << "\n";
  }
  if (!report.entry.empty()) {
    out << "\nlaunches of " << report.entry << " at the task's size:" << (report.entryLaunches.empty() ? " none" : "")
        << "\n";
    for (const auto &launch : report.entryLaunches)
      out << "  " << launch.kernel << "  blocks=" << launch.blocks << "  tpb=" << launch.threadsPerBlock
          << "  threads=" << launch.blocks * launch.threadsPerBlock << (launch.loopDepth ? "  (in loop)" : "")
          << (launch.certain ? "" : "  (may not run)") << "  @" << launch.location << "\n";
    if (!report.entryLaunchesProblem.empty())
      out << "  blocks and threads unknown: " << report.entryLaunchesProblem
          << (report.entryLaunchesComplete ? " (every launch sized: one of these stands for the file)" : "") << "\n";
  }
  if (!report.host.transfers.empty()) {
    out << "transfers:\n";
    for (const auto &transfer : report.host.transfers)
      out << "  " << transfer.function << (transfer.loopDepth ? " (in loop)" : "") << "  @" << transfer.location
          << "\n";
  }
  for (const auto &diagnostic : report.diagnostics)
    out << toString(diagnostic.severity) << ": " << diagnostic.message << "  @" << diagnostic.location << "\n";
  out << "\ntranslation unit:\n";
  writeFeatures(out, report.features, "  ");
  writeExtended(out, report.features, "  ");
  return out.str();
}

} // namespace cudaperf
