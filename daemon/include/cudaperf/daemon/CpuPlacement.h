// Where the daemon's processes run: each GPU's judge, and the workers it
// starts, on whole physical cores of their own; compiles, analyses and the
// daemon's threads on the rest. The judge's clock and CPU budgets measure the
// worker's threads: an nvcc on the same core or its SMT sibling slows them and
// inflates their CPU time. Under the daemon's compile load on the H200 a
// stencil's correctness calls took 3 ms each and 1.16 times their CPU budget;
// alone they took about 1 ms.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf {

// The kernel's CPU list syntax ("0-3,8,10-11"); throws std::invalid_argument.
std::vector<int> parseCpuList(std::string_view text);
// The inverse, with runs collapsed: {0,1,2,3,8} -> "0-3,8".
std::string formatCpuList(std::vector<int> cpus);

// The CPUs this process may run on, grouped by physical core (SMT siblings
// together), cores in ascending order of their first CPU.
struct CpuTopology {
  std::vector<std::vector<int>> cores;
  std::size_t cpuCount() const;
};
// From sched_getaffinity and /sys/devices/system/cpu/cpuN/topology (a CPU
// whose siblings cannot be read is a core of its own).
CpuTopology readCpuTopology();

struct CpuPlacement {
  std::vector<std::vector<int>> judges; // per GPU, in the order given; empty: no placement
  std::vector<int> shared;              // everything else: compiles, analyses, the daemon
  std::string note;                     // why there is none, or what was set apart
};

// Sets whole cores apart for each of `gpus` judges, from the highest, until
// each has at least `cpusPerJudge` CPUs (the judge spins on one while its
// worker's threads wake on the others), as long as the rest keeps at least
// half the cores and two. Otherwise none (a 2-core machine): no judge gets
// CPUs of its own and the note says so. cpusPerJudge 0: off.
CpuPlacement planCpuPlacement(const CpuTopology &topology, std::size_t gpus, unsigned cpusPerJudge);

// The calling thread's CPUs.
std::vector<int> currentThreadCpus();
// Every thread of this process (threads started later inherit it from the
// thread that starts them); false with `error` when one could not be moved.
bool pinProcess(const std::vector<int> &cpus, std::string &error);
// This thread only (a supervisor before it starts its program).
bool pinThisThread(const std::vector<int> &cpus, std::string &error);

} // namespace cudaperf
