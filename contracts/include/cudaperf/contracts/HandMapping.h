// CudaPerf's hand mapping as an untrained scorer: the baseline a trained
// ranker must beat. coal and occ enter as the paper maps them (coalescing
// score and occupancy proxy, already in [-0.5, 1] and [0.1, 1]); the other
// features enter as the ranker sees them (phi_hat: transformed, then z-scored
// with mu and sigma of the training split) with a fixed sign saying which
// direction the paper treats as faster.
#pragma once

#include "cudaperf/contracts/FeatureVector.h"

#include <array>
#include <vector>

namespace cudaperf {

// +1: more is faster (coal, ai, occ); -1: more is slower (div, xfer, atomics,
// sync, kernels, gmem, ops); 0: not scored on its own (tpb, already in occ).
inline constexpr std::array<int, kFeatureCount> kHandMappingSigns = {+1, +1, +1, -1, -1, -1, -1, -1, 0, -1, -1};

// `normalised`: rankerInput of a model whose first 11 inputs are CudaPerf's
// (any model: rankerFromJson requires it); extended inputs are not scored.
double handMappingScore(const FeatureVector &features, const std::vector<double> &normalised);

} // namespace cudaperf
