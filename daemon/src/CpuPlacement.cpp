#include "cudaperf/daemon/CpuPlacement.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace cudaperf {

namespace {

int parseCpu(std::string_view text, std::string_view whole) {
  int value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0 || value >= CPU_SETSIZE)
    throw std::invalid_argument("not a CPU list: '" + std::string(whole) + "'");
  return value;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t\n");
  return std::string(text.substr(first, last - first + 1));
}

cpu_set_t toSet(const std::vector<int> &cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE)
      CPU_SET(cpu, &set);
  return set;
}

// 0, or the errno of the failed call (EINVAL for an empty list).
int pin(pid_t thread, const std::vector<int> &cpus, std::string &error) {
  if (cpus.empty()) {
    error = "no CPUs given";
    return EINVAL;
  }
  const cpu_set_t set = toSet(cpus);
  if (sched_setaffinity(thread, sizeof set, &set) != 0) {
    const int failure = errno;
    error = "sched_setaffinity(" + formatCpuList(cpus) + "): " + std::strerror(failure);
    return failure;
  }
  return 0;
}

} // namespace

std::vector<int> parseCpuList(std::string_view text) {
  const std::string whole = trimmed(text);
  std::set<int> cpus;
  std::string_view rest = whole;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty())
      throw std::invalid_argument("not a CPU list: '" + whole + "'");
    const auto dash = item.find('-');
    const int first = parseCpu(item.substr(0, dash), whole);
    const int last = dash == std::string_view::npos ? first : parseCpu(item.substr(dash + 1), whole);
    if (last < first)
      throw std::invalid_argument("not a CPU list: '" + whole + "'");
    for (int cpu = first; cpu <= last; ++cpu)
      cpus.insert(cpu);
  }
  return {cpus.begin(), cpus.end()};
}

std::string formatCpuList(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
      ++j;
    if (!out.empty())
      out += ',';
    out += std::to_string(cpus[i]);
    if (j > i)
      out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::size_t CpuTopology::cpuCount() const {
  std::size_t n = 0;
  for (const auto &core : cores)
    n += core.size();
  return n;
}

CpuTopology readCpuTopology() {
  const std::vector<int> allowed = currentThreadCpus();
  const std::set<int> allowedSet(allowed.begin(), allowed.end());
  // Each allowed CPU's siblings (those allowed too), keyed by the smallest.
  std::map<int, std::vector<int>> byFirst;
  std::set<int> placed;
  for (int cpu : allowed) {
    if (placed.count(cpu))
      continue;
    std::vector<int> siblings;
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    for (const char *name : {"core_cpus_list", "thread_siblings_list"}) {
      std::ifstream file(base + name);
      std::string line;
      if (file && std::getline(file, line)) {
        try {
          siblings = parseCpuList(line);
        } catch (const std::invalid_argument &) {
          siblings.clear();
        }
        if (!siblings.empty())
          break;
      }
    }
    std::vector<int> core;
    for (int sibling : siblings)
      if (allowedSet.count(sibling) && !placed.count(sibling))
        core.push_back(sibling);
    if (std::find(core.begin(), core.end(), cpu) == core.end())
      core.push_back(cpu);
    std::sort(core.begin(), core.end());
    for (int member : core)
      placed.insert(member);
    byFirst[core.front()] = std::move(core);
  }
  CpuTopology topology;
  for (auto &[first, core] : byFirst)
    topology.cores.push_back(std::move(core));
  return topology;
}

CpuPlacement planCpuPlacement(const CpuTopology &topology, std::size_t gpus, unsigned cpusPerJudge) {
  CpuPlacement placement;
  const std::size_t cores = topology.cores.size();
  if (cpusPerJudge == 0 || gpus == 0) {
    placement.note = cpusPerJudge == 0 ? "judge CPUs off (judge_cpus 0)" : "no GPU: no judge to set CPUs apart for";
    return placement;
  }
  // Whole cores from the highest (the low ones take most interrupts), each
  // judge until it has cpusPerJudge CPUs.
  std::vector<std::vector<int>> judges(gpus);
  std::size_t next = cores; // cores [next, cores) are taken
  for (auto &judge : judges)
    while (judge.size() < cpusPerJudge && next > 0) {
      --next;
      judge.insert(judge.end(), topology.cores[next].begin(), topology.cores[next].end());
    }
  const std::size_t left = next;
  const std::size_t needLeft = std::max<std::size_t>(2, (cores + 1) / 2);
  const bool complete = std::all_of(judges.begin(), judges.end(),
                                    [&](const std::vector<int> &judge) { return judge.size() >= cpusPerJudge; });
  if (!complete || left < needLeft) {
    placement.note = std::to_string(cores) + " cores are too few to set " + std::to_string(cpusPerJudge) +
                     " CPUs apart for each of " + std::to_string(gpus) + " judges and keep " +
                     std::to_string(needLeft) + " for compiles: judges share every CPU";
    return placement;
  }
  for (auto &judge : judges)
    std::sort(judge.begin(), judge.end());
  placement.judges = std::move(judges);
  for (std::size_t c = 0; c < left; ++c)
    placement.shared.insert(placement.shared.end(), topology.cores[c].begin(), topology.cores[c].end());
  std::sort(placement.shared.begin(), placement.shared.end());
  placement.note = "compiles, analyses and the daemon on CPUs " + formatCpuList(placement.shared);
  for (std::size_t g = 0; g < placement.judges.size(); ++g)
    placement.note += "; judge " + std::to_string(g) + " on CPUs " + formatCpuList(placement.judges[g]);
  return placement;
}

std::vector<int> currentThreadCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set))
      cpus.push_back(cpu);
  return cpus;
}

bool pinThisThread(const std::vector<int> &cpus, std::string &error) { return pin(0, cpus, error) == 0; }

bool pinProcess(const std::vector<int> &cpus, std::string &error) {
  std::error_code noList;
  bool all = true;
  // A thread that ends meanwhile is gone (ESRCH): not a failure.
  for (const auto &entry : std::filesystem::directory_iterator("/proc/self/task", noList)) {
    pid_t thread = 0;
    const std::string name = entry.path().filename().string();
    if (std::from_chars(name.data(), name.data() + name.size(), thread).ec != std::errc())
      continue;
    std::string problem;
    if (const int failure = pin(thread, cpus, problem); failure != 0 && failure != ESRCH) {
      error = problem;
      all = false;
    }
  }
  if (noList) {
    std::string ignored;
    pinThisThread(cpus, ignored);
    error = "/proc/self/task: " + noList.message() + " (only the calling thread was moved)";
    return false;
  }
  return all;
}

} // namespace cudaperf
