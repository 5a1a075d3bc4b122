#include "GpuTenants.h"

#include "ProcessTree.h"

#include <boost/json.hpp>

#include <dlfcn.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>

namespace cudaperf::judge {

namespace json = boost::json;

json::object readTenants(const std::vector<UtilisationSample> &samples, const ProcessView &view) {
  struct Seen {
    unsigned smMax = 0, memMax = 0, count = 0;
  };
  std::map<unsigned, Seen> others;
  long long busyOurs = 0, unattributed = 0;
  for (const UtilisationSample &sample : samples) {
    if (sample.smUtil == 0 && sample.memUtil == 0)
      continue;
    const auto pid = static_cast<pid_t>(sample.pid);
    if (pid > 0 && (pid == view.judge || view.ours.count(pid))) {
      ++busyOurs;
    } else if (pid > 0 && view.withContexts.count(sample.pid) && view.liveProcess && view.liveProcess(pid)) {
      Seen &seen = others[sample.pid];
      seen.smMax = std::max(seen.smMax, sample.smUtil);
      seen.memMax = std::max(seen.memMax, sample.memUtil);
      ++seen.count;
    } else {
      ++unattributed; // gone, without a context now, or numbered in a namespace this judge cannot see
    }
  }
  // The driver's numbers are ours only if the judge's own context is listed under its own number.
  const bool numbersOurs = view.withContexts.count(static_cast<unsigned>(view.judge)) > 0;
  bool mps = false;
  for (unsigned pid : view.withContexts)
    if (view.name && view.name(static_cast<pid_t>(pid)).rfind("nvidia-cuda-mps", 0) == 0)
      mps = true;
  const char *attribution = mps ? "mps" : numbersOurs ? "ours" : "foreign_pids";
  json::array busyOthers;
  if (!mps && numbersOurs)
    for (const auto &[pid, seen] : others)
      busyOthers.push_back(json::object{{"pid", pid},
                                        {"name", view.name ? view.name(static_cast<pid_t>(pid)) : std::string()},
                                        {"sm_util_max", seen.smMax},
                                        {"mem_util_max", seen.memMax},
                                        {"samples", seen.count}});
  else
    unattributed += static_cast<long long>(others.size());
  return json::object{{"available", true},
                      {"attribution", attribution},
                      {"busy_others", std::move(busyOthers)},
                      {"busy_samples_ours", busyOurs},
                      {"busy_unattributed", unattributed},
                      {"samples", samples.size()}};
}

std::string nvmlUuidText(const std::string &gpuUuid) {
  if (gpuUuid.size() != 36 || gpuUuid.rfind("GPU-", 0) != 0)
    return "";
  const std::string hex = gpuUuid.substr(4);
  if (!std::all_of(hex.begin(), hex.end(), [](unsigned char c) { return std::isxdigit(c); }))
    return "";
  return "GPU-" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

unsigned long long GpuTenants::nowMicros() {
  timeval now{};
  gettimeofday(&now, nullptr);
  return static_cast<unsigned long long>(now.tv_sec) * 1000000ull + static_cast<unsigned long long>(now.tv_usec);
}

namespace {

// NVML's C interface as its header declares it: the v2 process list, whose
// record is four fields (24 bytes) on every driver (v3's grew to 32 bytes on
// some, under the same name). Declared here because the toolkit's nvml.h is
// not on every build machine, and loaded with dlopen because the driver's
// library is only on machines with a GPU.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0, kNvmlNotFound = 6, kNvmlInsufficientSize = 7;
using NvmlDevice = struct NvmlDeviceOpaque *;
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
};
struct NvmlUtilisationSample {
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil, memUtil, encUtil, decUtil;
};

std::string comm(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(file, name);
  return printableName(name);
}

// A process, not a thread: /proc/N exists for thread ids too, and its Tgid is then another.
bool liveProcess(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Tgid:", 0) == 0)
      return std::atoll(line.c_str() + 5) == pid;
  return false;
}

class NvmlTenants final : public GpuTenants {
public:
  ~NvmlTenants() override {
    if (shutdown_)
      shutdown_();
    // The library stays loaded: the driver's threads may outlive nvmlShutdown.
  }

  bool load(const std::string &gpuUuid, std::string &problem) {
    const std::string uuid = nvmlUuidText(gpuUuid);
    if (uuid.empty()) {
      problem = "the GPU's UUID '" + gpuUuid + "' is not one";
      return false;
    }
    void *library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      problem = std::string("cannot load libnvidia-ml.so.1: ") + dlerror();
      return false;
    }
    auto find = [&](const char *name, auto &into) {
      into = reinterpret_cast<std::remove_reference_t<decltype(into)>>(dlsym(library, name));
      if (!into)
        problem += std::string(problem.empty() ? "libnvidia-ml.so.1 lacks " : ", ") + name;
    };
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*byUuid)(const char *, NvmlDevice *) = nullptr;
    find("nvmlInit_v2", init);
    find("nvmlShutdown", shutdown_);
    find("nvmlDeviceGetHandleByUUID", byUuid);
    find("nvmlDeviceGetComputeRunningProcesses_v2", processes_);
    find("nvmlDeviceGetProcessUtilization", utilisation_);
    find("nvmlErrorString", errorString_);
    if (!problem.empty())
      return false;
    if (NvmlReturn status = init(); status != kNvmlSuccess) {
      shutdown_ = nullptr;
      problem = "nvmlInit: " + why(status);
      return false;
    }
    if (NvmlReturn status = byUuid(uuid.c_str(), &device_); status != kNvmlSuccess) {
      problem = "nvmlDeviceGetHandleByUUID(" + uuid + "): " + why(status);
      return false;
    }
    return true;
  }

  json::object look(unsigned long long sinceUs, const std::set<pid_t> &workers) const override {
    std::vector<UtilisationSample> samples;
    std::string error;
    ProcessView view;
    if (!readSamples(sinceUs, samples, error) || !readContexts(view.withContexts, error))
      return json::object{{"available", false}, {"error", error}};
    view.judge = getpid();
    view.ours = workers;
    for (pid_t pid : processTree(view.judge))
      view.ours.insert(pid);
    view.liveProcess = liveProcess;
    view.name = comm;
    return readTenants(samples, view);
  }

private:
  std::string why(NvmlReturn status) const {
    const char *text = errorString_ ? errorString_(status) : nullptr;
    return text ? std::string(text) : "error " + std::to_string(status);
  }

  bool readSamples(unsigned long long sinceUs, std::vector<UtilisationSample> &into, std::string &error) const {
    std::vector<NvmlUtilisationSample> raw;
    // The count asked first; samples may arrive between the two calls, so a few tries.
    for (int attempt = 0; attempt < 4; ++attempt) {
      unsigned count = static_cast<unsigned>(raw.size());
      const NvmlReturn status = utilisation_(device_, raw.empty() ? nullptr : raw.data(), &count, sinceUs);
      if (status == kNvmlNotFound)
        return true; // no sample since then: nothing ran
      if (status == kNvmlInsufficientSize || (status == kNvmlSuccess && raw.empty() && count > 0)) {
        raw.resize(std::max<std::size_t>(count, raw.size()) + 16);
        continue;
      }
      if (status != kNvmlSuccess) {
        error = "nvmlDeviceGetProcessUtilization: " + why(status);
        return false;
      }
      for (unsigned k = 0; k < count && k < raw.size(); ++k)
        into.push_back({raw[k].pid, raw[k].timeStamp, raw[k].smUtil, raw[k].memUtil});
      return true;
    }
    error = "nvmlDeviceGetProcessUtilization: the samples kept growing";
    return false;
  }

  bool readContexts(std::set<unsigned> &into, std::string &error) const {
    std::vector<NvmlProcessInfo> raw;
    for (int attempt = 0; attempt < 4; ++attempt) {
      unsigned count = static_cast<unsigned>(raw.size());
      const NvmlReturn status = processes_(device_, &count, raw.empty() ? nullptr : raw.data());
      if (status == kNvmlInsufficientSize) {
        raw.resize(2 * count + 8);
        continue;
      }
      if (status != kNvmlSuccess) {
        error = "nvmlDeviceGetComputeRunningProcesses_v2: " + why(status);
        return false;
      }
      for (unsigned k = 0; k < count && k < raw.size(); ++k)
        into.insert(raw[k].pid);
      return true;
    }
    error = "nvmlDeviceGetComputeRunningProcesses_v2: the list kept growing";
    return false;
  }

  NvmlDevice device_ = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  NvmlReturn (*processes_)(NvmlDevice, unsigned *, NvmlProcessInfo *) = nullptr;
  NvmlReturn (*utilisation_)(NvmlDevice, NvmlUtilisationSample *, unsigned *, unsigned long long) = nullptr;
  const char *(*errorString_)(NvmlReturn) = nullptr;
};

} // namespace

std::unique_ptr<GpuTenants> GpuTenants::open(const std::string &gpuUuid, std::string &problem) {
  auto tenants = std::make_unique<NvmlTenants>();
  if (!tenants->load(gpuUuid, problem))
    return nullptr;
  return tenants;
}

} // namespace cudaperf::judge
