#include "ProcessTree.h"

#include <dirent.h>
#include <fstream>
#include <string>
#include <time.h>
#include <vector>

namespace cudaperf::judge {

namespace {

double cpuSecondsOf(pid_t pid) {
  clockid_t clock;
  timespec now{};
  if (clock_getcpuclockid(pid, &clock) != 0 || clock_gettime(clock, &now) != 0)
    return 0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

std::vector<pid_t> childrenOf(pid_t pid) {
  std::vector<pid_t> children;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR *folder = opendir(tasks.c_str());
  if (!folder)
    return children;
  while (dirent *entry = readdir(folder)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    std::ifstream list(tasks + "/" + entry->d_name + "/children");
    for (pid_t child; list >> child;)
      children.push_back(child);
  }
  closedir(folder);
  return children;
}

} // namespace

double processTreeCpuSeconds(pid_t root) {
  double seconds = 0;
  std::vector<pid_t> pending = {root};
  for (std::size_t i = 0; i < pending.size() && i < 4096; ++i) {
    seconds += cpuSecondsOf(pending[i]);
    for (pid_t child : childrenOf(pending[i]))
      pending.push_back(child);
  }
  return seconds;
}

} // namespace cudaperf::judge
