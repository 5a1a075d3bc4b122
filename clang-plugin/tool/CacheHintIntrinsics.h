// CUDA's cache-hint loads and stores (__ldcg, __ldca, __ldcs, __ldlu, __ldcv;
// __stwb, __stcg, __stcs, __stwt) for the built-in and vector types, which
// nvcc declares in sm_32_intrinsics.h and Clang 19's CUDA headers do not:
// without them every such call in real code (llm.c's Packed128 loads, for
// one) is an error expression the analysis cannot see into. The analyses
// force-include this header from an in-memory file.
#pragma once

#include <string>

namespace cudaperf {

// Where the analyses see the header (in-memory; never on disk).
inline constexpr const char *kCacheHintIntrinsicsPath = "/cudaperf-compat/cudaperf_cache_hint_intrinsics.h";

// The header's text: declarations only (-fsyntax-only needs no bodies).
const std::string &cacheHintIntrinsicsHeader();

} // namespace cudaperf
