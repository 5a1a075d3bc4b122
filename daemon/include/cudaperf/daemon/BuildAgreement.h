// Whether the kernels the analysis read are the kernels nvcc built. The
// analysis parses the source with Clang; the code that runs comes from
// nvcc. Where the two front ends resolve the same text differently (a
// host/device overload pair picked by a template argument, a Clang-only
// builtin or attribute behind SFINAE, #pragma clang attribute), the analysis
// scores a template instance that nvcc never emits. ptxas's entry names are
// the build's own word, so an analysed kernel missing from them means the
// report describes other code than runs (docs/features.md "Compiler
// branches"; the daemon then gives R_str the floor).
#pragma once

#include "cudaperf/daemon/PtxasFacts.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

// A sentence on the first disagreement between `report` (the analysis's
// report of the host pass, kernels with their "mangled_name") and `built`
// (ptxas's entries), or nullopt: an analysed kernel that nvcc did not build,
// or one whose body the analysis read with static shared memory or a
// __syncthreads where nvcc's build of it has none (the same kernel name, a
// body chosen differently: if constexpr on a front-end difference). The
// analysis only ever claiming less than the build is no disagreement. Template
// patterns and kernels of a report without mangled names (an older analysis)
// are not checked; nor is anything when nothing was built.
std::optional<std::string> analysisDisagreesWithBuild(const boost::json::object &report,
                                                      const std::vector<KernelResources> &built);

} // namespace cudaperf
