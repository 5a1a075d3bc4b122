#include "cudaperf/contracts/ReportJson.h"

#include <boost/json.hpp>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace cudaperf {

namespace json = boost::json;

namespace {

json::value optionalInt(const std::optional<std::int64_t> &value) {
  return value ? json::value(*value) : json::value(nullptr);
}

// JSON has no NaN or infinity; a non-finite feature would make the document invalid.
double finite(double value) { return std::isfinite(value) ? value : 0.0; }

json::object diagnosticToJson(const Diagnostic &diagnostic) {
  json::object object{{"location", diagnostic.location},
                      {"severity", toString(diagnostic.severity)},
                      {"rule", diagnostic.rule},
                      {"message", diagnostic.message}};
  if (!diagnostic.noteMessage.empty())
    object["note"] = json::object{{"location", diagnostic.noteLocation}, {"message", diagnostic.noteMessage}};
  return object;
}

json::array diagnosticsToJson(const std::vector<Diagnostic> &diagnostics) {
  json::array array;
  for (const auto &diagnostic : diagnostics)
    array.push_back(diagnosticToJson(diagnostic));
  return array;
}

json::object accessToJson(const MemoryAccess &access) {
  json::object object{{"location", access.location},
                      {"space", toString(access.space)},
                      {"kind", toString(access.kind)},
                      {"variable", access.variable},
                      {"expression", access.expression},
                      {"bytes", access.accessBytes},
                      {"stride_class", toString(access.strideClass)}};
  if (access.strideClass == StrideClass::Constant) {
    object["stride"] = access.stride;
    object["stride_bytes"] = access.strideBytes;
  } else {
    object["stride"] = nullptr;
    object["stride_bytes"] = nullptr;
  }
  if (access.strideClass == StrideClass::Symbolic)
    object["stride_expr"] = access.strideExpr;
  object["score"] = finite(access.score);
  if (access.space == MemorySpace::Shared)
    object["bank_conflict_ways"] =
        access.bankConflictWays ? json::value(*access.bankConflictWays) : json::value(nullptr);
  object["loop_depth"] = access.loopDepth;
  object["weight"] = access.weight;
  object["vectorized"] = access.vectorized;
  object["ldg"] = access.readOnlyCache;
  object["warp_cooperative"] = access.warpCooperative;
  return object;
}

json::object sharedToJson(const SharedMemoryUse &shared) {
  json::array arrays;
  for (const auto &array : shared.arrays)
    arrays.push_back(json::object{{"name", array.name},
                                  {"location", array.location},
                                  {"type", array.type},
                                  {"bytes", array.bytes},
                                  {"dynamic", array.dynamic}});
  return {{"static_bytes", shared.staticBytes},
          {"dynamic", shared.usesDynamic},
          {"dynamic_bytes", optionalInt(shared.dynamicBytes)},
          {"max_bank_conflict_ways", shared.maxBankConflictWays},
          {"arrays", std::move(arrays)}};
}

json::object extrasToJson(const Extras &extras) {
  return {{"vectorized_accesses", extras.vectorizedAccesses},
          {"ldg", extras.ldg},
          {"restrict_pointers", extras.restrictPointers},
          {"warp_shuffles", extras.warpShuffles},
          {"tensor_core_ops", extras.tensorCoreOps},
          {"grid_stride_loops", extras.gridStrideLoops},
          {"unroll_pragmas", extras.unrollPragmas},
          {"half_arithmetic", extras.halfArithmetic},
          {"bf16_arithmetic", extras.bf16Arithmetic},
          {"device_sync_in_loops", extras.deviceSyncInLoops},
          {"constant_loads", extras.constantLoads},
          {"loop_weighted_sync", extras.loopWeightedSync},
          {"loop_weighted_atomics", extras.loopWeightedAtomics}};
}

json::object kernelToJson(const KernelReport &kernel) {
  json::array accesses, branches, syncs, atomics;
  for (const auto &access : kernel.accesses)
    accesses.push_back(accessToJson(access));
  for (const auto &branch : kernel.branches)
    branches.push_back(json::object{{"location", branch.location},
                                    {"kind", toString(branch.kind)},
                                    {"class", toString(branch.branchClass)},
                                    {"condition", branch.condition},
                                    {"loop_depth", branch.loopDepth},
                                    {"weight", branch.weight}});
  for (const auto &sync : kernel.syncs)
    syncs.push_back(json::object{{"location", sync.location},
                                 {"function", sync.function},
                                 {"under_thread_dependent_condition", sync.underThreadDependentCondition},
                                 {"loop_depth", sync.loopDepth}});
  for (const auto &atomic : kernel.atomics)
    atomics.push_back(json::object{{"location", atomic.location},
                                   {"function", atomic.function},
                                   {"space", toString(atomic.space)},
                                   {"loop_depth", atomic.loopDepth}});
  const auto &occupancy = kernel.occupancy;
  json::object occupancyObject{{"arch", occupancy.arch},
                               {"threads_per_block", optionalInt(occupancy.threadsPerBlock)},
                               {"tpb_source", occupancy.tpbSource},
                               {"proxy", occupancy.proxy},
                               {"theoretical", finite(occupancy.theoretical)},
                               {"active_blocks_per_sm", occupancy.activeBlocksPerSM},
                               {"limiter", occupancy.limiter}};
  return {{"name", kernel.name},
          {"location", kernel.location},
          {"template_pattern", kernel.templatePattern},
          {"features", featuresToJson(kernel.features)},
          {"features_unknown", unknownFeaturesToJson(kernel.features)},
          {"extended", extendedFeaturesToJson(kernel.features)},
          {"accesses", std::move(accesses)},
          {"branches", std::move(branches)},
          {"syncs", std::move(syncs)},
          {"atomics", std::move(atomics)},
          {"shared", sharedToJson(kernel.shared)},
          {"launch_bounds", json::object{{"max_threads_per_block", optionalInt(kernel.launchBounds.maxThreadsPerBlock)},
                                         {"min_blocks_per_sm", optionalInt(kernel.launchBounds.minBlocksPerSM)}}},
          {"occupancy", std::move(occupancyObject)},
          {"launch_count", kernel.launchCount},
          {"extras", extrasToJson(kernel.extras)},
          {"diagnostics", diagnosticsToJson(kernel.diagnostics)},
          {"mangled_name", kernel.mangledName}};
}

json::value dim3ToJson(const Dim3 &dim) {
  if (!dim.known())
    return json::object{{"x", optionalInt(dim.x)},
                        {"y", optionalInt(dim.y)},
                        {"z", optionalInt(dim.z)},
                        {"known", false},
                        {"expression", dim.expression}};
  return json::object{{"x", *dim.x}, {"y", *dim.y}, {"z", *dim.z}, {"known", true}, {"expression", dim.expression}};
}

json::object launchToJson(const LaunchSite &launch) {
  return {{"kernel", launch.kernel},
          {"location", launch.location},
          {"host_function", launch.hostFunction},
          {"grid", dim3ToJson(launch.grid)},
          {"block", dim3ToJson(launch.block)},
          {"threads_per_block", optionalInt(launch.block.product())},
          {"dynamic_shared_bytes", optionalInt(launch.dynamicSharedBytes)},
          {"stream", launch.usesStream},
          {"loop_depth", launch.loopDepth}};
}

json::object entryLaunchToJson(const EntryLaunch &launch) {
  return {{"kernel", launch.kernel},
          {"location", launch.location},
          {"blocks", launch.blocks},
          {"threads_per_block", launch.threadsPerBlock},
          {"threads", launch.blocks * launch.threadsPerBlock},
          {"loop_depth", launch.loopDepth},
          {"certain", launch.certain}};
}

json::object hostToJson(const HostSummary &host) {
  json::array transfers;
  for (const auto &transfer : host.transfers)
    transfers.push_back(json::object{{"location", transfer.location},
                                     {"function", transfer.function},
                                     {"host_function", transfer.hostFunction},
                                     {"loop_depth", transfer.loopDepth},
                                     {"weight", transfer.weight}});
  json::array skipped;
  for (const auto &include : host.skippedIncludes)
    skipped.push_back(json::value(include));
  return {{"transfers", std::move(transfers)},
          {"device_syncs", host.deviceSyncs},
          {"device_syncs_in_loops", host.deviceSyncsInLoops},
          {"managed_allocations", host.managedAllocations},
          {"skipped_includes", std::move(skipped)}};
}

void indent(std::string &out, int depth) { out.append(static_cast<std::size_t>(depth) * 2, ' '); }

// Boost 1.81's serializer has no pretty mode; reports are read by people too.
void prettyPrint(const json::value &value, std::string &out, int depth) {
  switch (value.kind()) {
  case json::kind::object: {
    const auto &object = value.get_object();
    if (object.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto &entry : object) {
      if (!first)
        out += ",\n";
      first = false;
      indent(out, depth + 1);
      out += json::serialize(json::value(entry.key()));
      out += ": ";
      prettyPrint(entry.value(), out, depth + 1);
    }
    out += "\n";
    indent(out, depth);
    out += "}";
    return;
  }
  case json::kind::array: {
    const auto &array = value.get_array();
    if (array.empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    bool first = true;
    for (const auto &element : array) {
      if (!first)
        out += ",\n";
      first = false;
      indent(out, depth + 1);
      prettyPrint(element, out, depth + 1);
    }
    out += "\n";
    indent(out, depth);
    out += "]";
    return;
  }
  case json::kind::double_: {
    // Shortest round-trip form: 0.125, 1, -0.5 (Boost writes 1.25E-1).
    char buffer[32];
    const double number = value.get_double();
    auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, number);
    out.append(buffer, error == std::errc() ? end : buffer);
    return;
  }
  default:
    out += json::serialize(value);
  }
}

} // namespace

json::object featuresToJson(const FeatureVector &features) {
  json::object object;
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    object[kFeatureNames[i]] = finite(features[i]);
  return object;
}

json::array unknownFeaturesToJson(const FeatureVector &features) {
  json::array names;
  for (std::size_t i = 0; i < kAllFeatureCount; ++i)
    if (features.isUnknown(i))
      names.push_back(json::value(featureName(i)));
  return names;
}

json::object extendedFeaturesToJson(const FeatureVector &features) {
  json::object object;
  for (std::size_t i = 0; i < kExtendedFeatureCount; ++i)
    object[kExtendedFeatureNames[i]] = finite(features.extended[i]);
  return object;
}

void readExtendedFeatures(const json::value *extended, FeatureVector &features) {
  if (!extended || extended->is_null()) {
    // Analysed before these features existed: unknown, not zero.
    for (std::size_t i = kFeatureCount; i < kAllFeatureCount; ++i)
      features.markUnknown(i);
    return;
  }
  if (!extended->is_object())
    throw std::invalid_argument("extended: expected an object");
  for (std::size_t i = 0; i < kExtendedFeatureCount; ++i) {
    const auto *value = extended->get_object().if_contains(kExtendedFeatureNames[i]);
    if (!value || value->is_null()) {
      features.markUnknown(kFeatureCount + i);
      continue;
    }
    if (!value->is_number() || !std::isfinite(value->to_number<double>()))
      throw std::invalid_argument("extended." + std::string(kExtendedFeatureNames[i]) + " must be a finite number");
    features.extended[i] = value->to_number<double>();
  }
}

void readUnknownFeatures(const json::value *names, FeatureVector &features) {
  if (!names || names->is_null())
    return;
  if (!names->is_array())
    throw std::invalid_argument("features_unknown: expected a list of feature names");
  for (const auto &name : names->get_array()) {
    const auto index = name.is_string() ? featureIndex(std::string_view(name.get_string())) : std::nullopt;
    if (!index || *index >= kAllFeatureCount)
      throw std::invalid_argument("features_unknown: '" + json::serialize(name) + "' is not a feature name");
    features.markUnknown(*index);
  }
}

FeatureVector featuresFromJson(const json::value &value) {
  if (!value.is_object())
    throw std::invalid_argument("features: expected an object with the 11 feature keys");
  const auto &object = value.get_object();
  FeatureVector features;
  for (std::size_t i = 0; i < kFeatureCount; ++i) {
    const auto *entry = object.if_contains(kFeatureNames[i]);
    if (!entry)
      throw std::invalid_argument("features: missing key '" + std::string(kFeatureNames[i]) + "'");
    if (!entry->is_number())
      throw std::invalid_argument("features: key '" + std::string(kFeatureNames[i]) + "' is not a number");
    const double number = entry->to_number<double>();
    if (!std::isfinite(number))
      throw std::invalid_argument("features: key '" + std::string(kFeatureNames[i]) + "' is not finite");
    features[i] = number;
  }
  return features;
}

json::value reportToJson(const TranslationUnitReport &report) {
  json::array kernels, launches;
  for (const auto &kernel : report.kernels)
    kernels.push_back(kernelToJson(kernel));
  for (const auto &launch : report.launches)
    launches.push_back(launchToJson(launch));
  json::array entryLaunches;
  for (const auto &launch : report.entryLaunches)
    entryLaunches.push_back(entryLaunchToJson(launch));
  json::array branches;
  for (const auto &branch : report.compilerBranches)
    branches.push_back(json::object{{"macro", branch.macro}, {"line", branch.line}, {"side", branch.side}});
  json::object out{{"schema", report.schema},
                   {"file", report.file},
                   {"arch", report.arch},
                   {"kernels", std::move(kernels)},
                   {"launches", std::move(launches)},
                   {"host", hostToJson(report.host)},
                   {"features", featuresToJson(report.features)},
                   {"features_unknown", unknownFeaturesToJson(report.features)},
                   {"extended", extendedFeaturesToJson(report.features)},
                   {"errors", report.errors},
                   {"diagnostics", diagnosticsToJson(report.diagnostics)},
                   {"compiler_branches", std::move(branches)}};
  if (!report.entry.empty()) {
    out["entry"] = report.entry;
    out["entry_launches"] = std::move(entryLaunches);
    out["entry_launches_complete"] = report.entryLaunchesComplete;
    if (!report.entryLaunchesProblem.empty())
      out["entry_launches_problem"] = report.entryLaunchesProblem;
  }
  if (report.devicePassFeatures)
    out["device_pass"] = json::object{{"features", featuresToJson(*report.devicePassFeatures)},
                                      {"features_unknown", unknownFeaturesToJson(*report.devicePassFeatures)},
                                      {"extended", extendedFeaturesToJson(*report.devicePassFeatures)}};
  return out;
}

std::string reportsToJsonText(const std::vector<TranslationUnitReport> &reports, bool asArray) {
  std::string out;
  if (asArray) {
    json::array array;
    for (const auto &report : reports)
      array.push_back(reportToJson(report));
    prettyPrint(array, out, 0);
  } else if (!reports.empty()) {
    prettyPrint(reportToJson(reports.front()), out, 0);
  } else {
    out = "null";
  }
  out += "\n";
  return out;
}

} // namespace cudaperf
