#include "ProcessTree.h"

#include <algorithm>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <string>
#include <time.h>
#include <unistd.h>
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

std::string printableName(std::string name) {
  for (char &c : name)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
      c = '?';
  return name;
}

std::vector<pid_t> processTree(pid_t root) {
  std::vector<pid_t> pending = {root};
  for (std::size_t i = 0; i < pending.size() && i < 4096; ++i)
    for (pid_t child : childrenOf(pending[i]))
      pending.push_back(child);
  return pending;
}

std::vector<ThreadCpu> threadCpuTimes(pid_t root) {
  std::vector<ThreadCpu> threads;
  for (pid_t pid : processTree(root)) {
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    DIR *folder = opendir(tasks.c_str());
    if (!folder)
      continue;
    while (dirent *entry = readdir(folder)) {
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
        continue;
      const std::string task = tasks + "/" + entry->d_name;
      std::ifstream schedstat(task + "/schedstat"), comm(task + "/comm");
      unsigned long long runNs = 0;
      ThreadCpu thread;
      if (!(schedstat >> runNs))
        continue;
      std::getline(comm, thread.name);
      thread.tid = static_cast<pid_t>(std::stol(entry->d_name));
      thread.ms = static_cast<double>(runNs) / 1e6;
      threads.push_back(std::move(thread));
    }
    closedir(folder);
  }
  return threads;
}

double processTreeCpuSeconds(pid_t root) {
  double seconds = 0;
  for (pid_t pid : processTree(root))
    seconds += cpuSecondsOf(pid);
  return seconds;
}

namespace {

// Every thread of `pid` in the stopped state (T or t in /proc/.../stat).
bool stopped(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR *folder = opendir(tasks.c_str());
  if (!folder)
    return true; // gone
  bool all = true;
  while (dirent *entry = readdir(folder)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    std::ifstream stat(tasks + "/" + entry->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    const char state = close != std::string::npos && close + 2 < line.size() ? line[close + 2] : 'T';
    all &= state == 'T' || state == 't' || state == 'Z' || state == 'X';
  }
  closedir(folder);
  return all;
}

void awaitStopped(const std::vector<pid_t> &processes) {
  for (pid_t pid : processes)
    for (int tries = 0; tries < 2000 && !stopped(pid); ++tries)
      usleep(5);
}

} // namespace

std::vector<pid_t> freezeBelow(pid_t root) {
  std::vector<pid_t> below = processTree(root);
  below.erase(below.begin());
  signalEach(below, SIGSTOP);
  awaitStopped(below);
  return below;
}

std::vector<pid_t> freezeTree(pid_t root) {
  std::vector<pid_t> frozen;
  for (bool grew = true; grew && frozen.size() < 4096;) {
    grew = false;
    for (pid_t pid : processTree(root))
      if (std::find(frozen.begin(), frozen.end(), pid) == frozen.end()) {
        kill(pid, SIGSTOP);
        frozen.push_back(pid);
        grew = true;
      }
    // A process forks nothing more once it is stopped, but may have forked
    // between the signal and its stop: looked over again once each is.
    awaitStopped(frozen);
  }
  return frozen;
}

void signalEach(const std::vector<pid_t> &processes, int signal) {
  for (pid_t pid : processes)
    kill(pid, signal);
}

} // namespace cudaperf::judge
