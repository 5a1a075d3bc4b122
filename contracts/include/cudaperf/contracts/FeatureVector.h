// The 11-feature vector of CudaPerf, phi(y), in its fixed order. Every part of
// cudaperf (analysis, daemon, trainer) names and orders features through here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cudaperf {

inline constexpr std::size_t kFeatureCount = 11;

// Order matters: it is the order of phi(y) in the paper and of the ranker's input.
inline constexpr std::array<std::string_view, kFeatureCount> kFeatureNames = {
    "coal", "ai", "occ", "div", "xfer", "atomics", "sync", "kernels", "tpb", "gmem", "ops"};

// Features beyond CudaPerf's 11, for the ranker (docs/features.md, "Extended
// features"); indices 11.. in the numbering of featureIndex and valueAt.
inline constexpr std::size_t kExtendedFeatureCount = 7;
inline constexpr std::array<std::string_view, kExtendedFeatureCount> kExtendedFeatureNames = {
    "bank", "vec", "reuse", "warp", "grid_stride", "blocks", "threads"};
inline constexpr std::size_t kAllFeatureCount = kFeatureCount + kExtendedFeatureCount;

// A relative ranker's view of a candidate (featuresRelativeToBaseline): the
// 11 above become differences from the task baseline's, and the candidate's
// own 11 stay readable here, so a network can know a task's scale as well as
// the candidate's change from its baseline; indices kAllFeatureCount.. in
// the numbering of featureIndex and valueAt ("own_coal", ...). Never in a
// report: only the ranker's inputs are made so.
inline constexpr std::array<std::string_view, kFeatureCount> kOwnFeatureNames = {
    "own_coal", "own_ai",      "own_occ", "own_div",  "own_xfer", "own_atomics",
    "own_sync", "own_kernels", "own_tpb", "own_gmem", "own_ops"};
inline constexpr std::size_t kRankerFeatureCount = kAllFeatureCount + kFeatureCount;

struct FeatureVector {
  double coal = 0;    // coalescing score, mean of per-access stride scores
  double ai = 0;      // arithmetic intensity, ops / gmem
  double occ = 0;     // CudaPerf occupancy proxy from threads per block
  double div = 0;     // weighted fraction of lane-divergent branches
  double xfer = 0;    // host<->device transfers, loop-weighted
  double atomics = 0; // atomic call sites
  double sync = 0;    // barrier call sites
  double kernels = 0; // kernel definitions
  double tpb = 0;     // threads per block (0 when unknown)
  double gmem = 0;    // global memory bytes per thread, trip-count weighted
  double ops = 0;     // arithmetic operations per thread, trip-count weighted
  // Features whose value the analysis could not know (bit i: kFeatureNames[i]),
  // such as tpb and occ of a block size chosen at run time. The value stays
  // CudaPerf's (tpb 0, occ 0.1) for comparability; the ranker reads an unknown
  // feature as its training mean, neither good nor bad.
  std::uint32_t unknown = 0;
  // bank, vec, reuse, warp, grid_stride, blocks, threads (kExtendedFeatureNames).
  std::array<double, kExtendedFeatureCount> extended{};
  // The candidate's own 11 where the 11 above are relative (kOwnFeatureNames); 0 otherwise.
  std::array<double, kFeatureCount> own{};

  bool isUnknown(std::size_t index) const { return (unknown >> index) & 1u; }
  void markUnknown(std::size_t index) { unknown |= 1u << index; }

  std::array<double, kFeatureCount> toArray() const;
  static FeatureVector fromArray(const std::array<double, kFeatureCount> &values);
  double &operator[](std::size_t index);
  double operator[](std::size_t index) const;
  // Over all kRankerFeatureCount features: the 11, the extended ones, then the own 11.
  double &valueAt(std::size_t index);
  double valueAt(std::size_t index) const;
};

// Position of a feature name among the 11, the extended ones and the own 11
// (0 .. kRankerFeatureCount - 1), or nullopt for an unknown name.
std::optional<std::size_t> featureIndex(std::string_view name);
std::string_view featureName(std::size_t index); // the inverse; throws past the end

} // namespace cudaperf
