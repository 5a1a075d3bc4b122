#include "cudaperf/daemon/BuildAgreement.h"

#include <boost/json.hpp>

#include <cctype>
#include <map>

namespace cudaperf {

namespace json = boost::json;

namespace {

// The parts of an Itanium name that Clang and nvcc spell differently for the
// same kernel: internal linkage (Clang's _ZL prefix) and the anonymous
// namespace, whose name nvcc makes unique per file (_GLOBAL__N__<hash>_...)
// where Clang writes _GLOBAL__N_1. Both become one spelling.
std::string normalizedSymbol(std::string symbol) {
  if (symbol.rfind("_ZL", 0) == 0)
    symbol.erase(2, 1);
  for (std::size_t at = symbol.find("_GLOBAL__N"); at != std::string::npos; at = symbol.find("_GLOBAL__N", at)) {
    std::size_t digits = at;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(symbol[digits - 1])))
      --digits;
    if (digits == at) { // not a length-prefixed component
      at += 10;
      continue;
    }
    const std::size_t length = std::stoul(symbol.substr(digits, at - digits));
    symbol.replace(digits, (at - digits) + length, "@");
    at = digits + 1;
  }
  return symbol;
}

} // namespace

std::optional<std::string> analysisDisagreesWithBuild(const json::object &report,
                                                      const std::vector<KernelResources> &built) {
  if (built.empty())
    return std::nullopt; // no build to compare with (a failed compile is its own verdict)
  std::map<std::string, const KernelResources *> entries;
  for (const KernelResources &kernel : built)
    entries[normalizedSymbol(kernel.mangledName)] = &kernel;
  const json::value *kernels = report.if_contains("kernels");
  if (!kernels || !kernels->is_array())
    return std::nullopt;
  for (const json::value &entry : kernels->as_array()) {
    const json::object *kernel = entry.if_object();
    const json::value *mangled = kernel ? kernel->if_contains("mangled_name") : nullptr;
    if (!mangled || !mangled->is_string() || mangled->get_string().empty())
      continue;
    const json::value *nameValue = kernel->if_contains("name");
    const std::string name = nameValue && nameValue->is_string() ? std::string(nameValue->get_string()) : "?";
    const auto match = entries.find(normalizedSymbol(std::string(mangled->get_string())));
    if (match == entries.end()) {
      std::string builtNames;
      for (const KernelResources &other : built)
        builtNames += (builtNames.empty() ? "" : ", ") + other.mangledName;
      return "the analysis read kernel " + name + " (" + std::string(mangled->get_string()) +
             "), which nvcc did not build (it built " + builtNames + ")";
    }
    // What the analysis saw of the kernel's body that the build must show:
    // static shared memory, and block-wide barriers (not __syncwarp nor a
    // tile's sync, which ptxas does not count as barriers).
    const KernelResources &builtKernel = *match->second;
    const json::value *shared = kernel->if_contains("shared");
    const json::value *staticBytes =
        shared && shared->is_object() ? shared->as_object().if_contains("static_bytes") : nullptr;
    if (staticBytes && staticBytes->is_number() && staticBytes->to_number<double>() > 0 && builtKernel.sharedBytes == 0)
      return "the analysis read " + std::to_string(static_cast<long long>(staticBytes->to_number<double>())) +
             " bytes of static shared memory in kernel " + name + ", and nvcc's build of it has none";
    unsigned barriers = 0;
    if (const json::value *syncs = kernel->if_contains("syncs"); syncs && syncs->is_array())
      for (const json::value &sync : syncs->as_array())
        if (const json::object *site = sync.if_object())
          if (const json::value *function = site->if_contains("function");
              function && function->is_string() && function->get_string().starts_with("__syncthreads"))
            ++barriers;
    if (barriers > 0 && builtKernel.barriers == 0)
      return "the analysis read " + std::to_string(barriers) + " __syncthreads in kernel " + name +
             ", and nvcc's build of it has no barrier";
  }
  return std::nullopt;
}

} // namespace cudaperf
