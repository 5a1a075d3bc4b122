// analysisDisagreesWithBuild(): the analysis's kernels against ptxas's entries.
#include "cudaperf/daemon/BuildAgreement.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

using namespace cudaperf;
namespace json = boost::json;

namespace {

json::object reportOf(std::initializer_list<std::pair<const char *, const char *>> kernels) {
  json::array list;
  for (const auto &[name, mangled] : kernels)
    list.push_back(json::object{{"name", name}, {"mangled_name", mangled}});
  return json::object{{"kernels", list}};
}

std::vector<KernelResources> builtOf(std::initializer_list<const char *> symbols) {
  std::vector<KernelResources> built;
  for (const char *symbol : symbols) {
    KernelResources kernel;
    kernel.mangledName = symbol;
    built.push_back(kernel);
  }
  return built;
}

} // namespace

// The bypass of a second review: Clang resolves a host/device overload pair
// one way and picks transposeTile<false>; nvcc builds transposeTile<true>.
TEST(BuildAgreement, AnAnalysedTemplateInstanceNvccDidNotBuildIsNamed) {
  const auto problem =
      analysisDisagreesWithBuild(reportOf({{"transposeTile<false>", "_Z13transposeTileILb0EEvPKfPfii"}}),
                                 builtOf({"_Z13transposeTileILb1EEvPKfPfii"}));
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "the analysis read kernel transposeTile<false> (_Z13transposeTileILb0EEvPKfPfii), which nvcc "
                      "did not build (it built _Z13transposeTileILb1EEvPKfPfii)");
}

TEST(BuildAgreement, TheSameKernelsAgreeWhateverEachCompilerCallsTheirLinkage) {
  // Names as Clang 19 and nvcc 13 spell them for one file (measured):
  // static, anonymous namespace, a namespaced template, extern "C".
  EXPECT_FALSE(analysisDisagreesWithBuild(
      reportOf(
          {{"st", "_ZL2stPf"}, {"an", "_ZN12_GLOBAL__N_12anEPf"}, {"ns::tp<4>", "_ZN2ns2tpILi4EEEvPf"}, {"ec", "ec"}}),
      builtOf({"_Z2stPf", "ec", "_ZN30_GLOBAL__N__3280ec25_4_s_cu_ec2anEPf", "_ZN2ns2tpILi4EEEvPf"})));
  // More built than analysed (a header's kernel) is not a disagreement.
  EXPECT_FALSE(analysisDisagreesWithBuild(reportOf({{"k", "_Z1kPf"}}), builtOf({"_Z1kPf", "_Z5otherv"})));
}

TEST(BuildAgreement, NothingToCompareIsNoDisagreement) {
  // No build (a failed compile is its own verdict), a template pattern
  // (no mangled name), a report of an older analysis (no key at all).
  EXPECT_FALSE(analysisDisagreesWithBuild(reportOf({{"k", "_Z1kPf"}}), {}));
  EXPECT_FALSE(analysisDisagreesWithBuild(reportOf({{"tp", ""}}), builtOf({"_Z1kPf"})));
  EXPECT_FALSE(analysisDisagreesWithBuild(json::object{{"kernels", json::array{json::object{{"name", "k"}}}}},
                                          builtOf({"_Z1kPf"})));
  EXPECT_FALSE(analysisDisagreesWithBuild(json::object{}, builtOf({"_Z1kPf"})));
}

// One kernel name, two bodies: the analysis read a shared tile and a barrier
// that nvcc's build of the same kernel does not have. The other way round
// (the build has more than was read) claims nothing and passes.
TEST(BuildAgreement, SharedMemoryOrABarrierTheBuildLacksIsNamed) {
  auto kernelWith = [](double sharedBytes, std::initializer_list<const char *> syncs) {
    json::array sites;
    for (const char *function : syncs)
      sites.push_back(json::object{{"function", function}});
    return json::object{{"kernels", json::array{json::object{{"name", "k"},
                                                             {"mangled_name", "_Z1kPf"},
                                                             {"shared", json::object{{"static_bytes", sharedBytes}}},
                                                             {"syncs", sites}}}}};
  };
  auto built = [](std::uint64_t sharedBytes, unsigned barriers) {
    KernelResources kernel;
    kernel.mangledName = "_Z1kPf";
    kernel.sharedBytes = sharedBytes;
    kernel.barriers = barriers;
    return std::vector<KernelResources>{kernel};
  };
  EXPECT_EQ(analysisDisagreesWithBuild(kernelWith(4224, {}), built(0, 0)).value_or(""),
            "the analysis read 4224 bytes of static shared memory in kernel k, and nvcc's build of it has none");
  EXPECT_EQ(analysisDisagreesWithBuild(kernelWith(0, {"__syncthreads", "__syncthreads_or"}), built(0, 0)).value_or(""),
            "the analysis read 2 __syncthreads in kernel k, and nvcc's build of it has no barrier");
  EXPECT_FALSE(analysisDisagreesWithBuild(kernelWith(4224, {"__syncthreads"}), built(4224, 1)));
  EXPECT_FALSE(analysisDisagreesWithBuild(kernelWith(0, {"__syncwarp", "cg::sync"}), built(0, 0)));
  EXPECT_FALSE(analysisDisagreesWithBuild(kernelWith(0, {}), built(8192, 2)));
}
