#include "cudaperf/daemon/PtxasFacts.h"

#include "cudaperf/contracts/StructuralScores.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

namespace cudaperf {

namespace json = boost::json;

namespace {

// "_Z13transposeTilePKfPfii" -> "transposeTile"; "ns::kernel<float>(...)" -> "kernel".
std::string plainName(const std::string &mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                    std::free);
  std::string name = status == 0 && demangled ? std::string(demangled.get()) : mangled; // extern "C": as is
  // Cut the parameters and template arguments at depth 0, then the qualifiers.
  int depth = 0;
  std::string cut;
  for (char c : name) {
    if (c == '(' && depth == 0)
      break;
    if (c == '<')
      ++depth;
    else if (c == '>')
      --depth;
    else if (depth == 0)
      cut += c;
  }
  const auto colon = cut.rfind("::");
  cut = colon == std::string::npos ? cut : cut.substr(colon + 2);
  // "void kernel" for a template instance's return type.
  const auto space = cut.rfind(' ');
  return space == std::string::npos ? cut : cut.substr(space + 1);
}

std::uint64_t number(const std::smatch &match, std::size_t group) {
  return match[group].matched ? std::stoull(match[group].str()) : 0;
}

} // namespace

std::vector<KernelResources> parsePtxasLog(const std::string &log) {
  static const std::regex entry(R"(^ptxas info\s*: Compiling entry function '([^']+)' for '(\w+)')");
  static const std::regex properties(R"(^ptxas info\s*: Function properties for (\S+))");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(^ptxas info\s*: Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex cmem(R"((\d+) bytes cmem\[0\])");
  std::vector<KernelResources> kernels;
  KernelResources *current = nullptr; // the entry the next facts belong to
  bool inEntryProperties = false;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    try {
      if (std::regex_search(line, match, entry)) {
        kernels.push_back({});
        current = &kernels.back();
        current->mangledName = match[1].str();
        current->name = plainName(current->mangledName);
        current->arch = match[2].str();
        inEntryProperties = false;
      } else if (std::regex_search(line, match, properties)) {
        // ptxas lists device functions' properties too: only the entry's count.
        inEntryProperties = current && match[1].str() == current->mangledName;
      } else if (std::regex_search(line, match, frame)) {
        if (inEntryProperties) {
          current->stackBytes = number(match, 1);
          current->spillStores = number(match, 2);
          current->spillLoads = number(match, 3);
        }
      } else if (std::regex_search(line, match, used)) {
        if (current && current->registers == 0) {
          current->registers = static_cast<unsigned>(number(match, 1));
          if (std::regex_search(line, match, barriers))
            current->barriers = static_cast<unsigned>(number(match, 1));
          if (std::regex_search(line, match, smem))
            current->sharedBytes = number(match, 1);
          if (std::regex_search(line, match, cmem))
            current->constantBytes = number(match, 1);
        }
        inEntryProperties = false;
      }
    } catch (const std::exception &) {
      // A number past 64 bits: not a fact worth failing a compile for.
    }
  }
  return kernels;
}

json::array ptxasFactsJson(const std::vector<KernelResources> &kernels, const json::object *report,
                           const std::string &arch) {
  json::array facts;
  const ArchLimits &limits = archLimits(arch.c_str());
  for (const KernelResources &kernel : kernels) {
    json::object fact{{"kernel", kernel.name},
                      {"mangled_name", kernel.mangledName},
                      {"arch", kernel.arch},
                      {"registers", kernel.registers},
                      {"barriers", kernel.barriers},
                      {"shared_bytes", kernel.sharedBytes},
                      {"constant_bytes", kernel.constantBytes},
                      {"stack_bytes", kernel.stackBytes},
                      {"spill_stores", kernel.spillStores},
                      {"spill_loads", kernel.spillLoads}};
    // The block size and dynamic shared memory come from the analysis of the launch.
    std::optional<std::int64_t> tpb;
    std::int64_t dynamicShared = 0;
    if (const auto *kernelsJson = report ? report->if_contains("kernels") : nullptr;
        kernelsJson && kernelsJson->is_array())
      for (const auto &candidate : kernelsJson->get_array()) {
        const auto *object = candidate.if_object();
        if (!object || !object->contains("name") || object->at("name") != json::value(kernel.name))
          continue;
        const auto *occupancy = object->if_contains("occupancy");
        const auto *threads =
            occupancy && occupancy->is_object() ? occupancy->get_object().if_contains("threads_per_block") : nullptr;
        if (threads && threads->is_int64())
          tpb = threads->get_int64();
        const auto *shared = object->if_contains("shared");
        const auto *dynamic =
            shared && shared->is_object() ? shared->get_object().if_contains("dynamic_bytes") : nullptr;
        if (dynamic && dynamic->is_int64())
          dynamicShared = dynamic->get_int64();
        break;
      }
    json::object occupancy{{"threads_per_block", tpb ? json::value(*tpb) : json::value(nullptr)}};
    if (tpb) {
      const OccupancyEstimate estimate = theoreticalOccupancy(
          limits, *tpb, static_cast<std::int64_t>(kernel.sharedBytes) + dynamicShared, kernel.registers);
      occupancy["theoretical"] = estimate.theoretical;
      occupancy["active_blocks_per_sm"] = estimate.activeBlocks;
      occupancy["limiter"] = estimate.limiter;
    } else {
      occupancy["theoretical"] = nullptr;
      occupancy["limiter"] = "unknown";
    }
    fact["occupancy"] = std::move(occupancy);
    facts.push_back(std::move(fact));
  }
  return facts;
}

} // namespace cudaperf
