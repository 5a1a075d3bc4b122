// What ptxas says about each kernel it compiled (ptxas -v on the PTX of the
// candidate's compile, run after nvcc: CandidateCompiler.cpp): registers per
// thread, spills, static shared and local memory. Facts of the code that
// runs, which the source analysis can only guess; folded into the
// theoretical occupancy once the block size is known.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct KernelResources {
  std::string mangledName;
  std::string name; // demangled, without parameters and namespaces (the analysis's kernel name)
  std::string arch; // sm_90
  unsigned registers = 0;
  unsigned barriers = 0;
  std::uint64_t sharedBytes = 0;   // static shared memory
  std::uint64_t constantBytes = 0; // cmem[0]: the kernel's parameters and constants
  std::uint64_t stackBytes = 0;    // stack frame (local memory the thread uses)
  std::uint64_t spillStores = 0, spillLoads = 0;
};

// The entry functions of ptxas -v's report (its lines only),
// in order. Device functions that are not kernels are left out. Lines it does
// not know are ignored: an older or newer ptxas costs facts, never a compile.
std::vector<KernelResources> parsePtxasLog(const std::string &log);

// The JSON of the answers' features.ptxas: one object per kernel; with the
// analysis report's launch facts (threads per block, dynamic shared bytes),
// the theoretical occupancy on `arch` from registers, shared memory and block size.
boost::json::array ptxasFactsJson(const std::vector<KernelResources> &kernels, const boost::json::object *report,
                                  const std::string &arch);

} // namespace cudaperf
