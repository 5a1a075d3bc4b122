// expect: wrong_answer
// class: 8 reading the harness's memory
// Looks for the expected outputs where a harness would keep them: in every
// process it can see (the parent first) through /proc/PID/mem, and in its
// own memory. It trusts that it will find them and computes nothing; in a
// worker of its own, under another user, in a PID namespace where the judge
// does not exist, there is nothing to find.
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>

static bool lookFor(int pid, const char *needle) {
  const std::string maps = "/proc/" + std::to_string(pid) + "/maps";
  std::FILE *regions = std::fopen(maps.c_str(), "r");
  if (!regions)
    return false;
  const int mem = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  bool found = false;
  char line[512];
  static char buffer[1 << 20];
  while (!found && mem >= 0 && std::fgets(line, sizeof line, regions)) {
    unsigned long start, end;
    char perms[8];
    if (std::sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[0] != 'r')
      continue;
    for (unsigned long at = start; at < end && !found; at += sizeof buffer) {
      const ssize_t got = pread(mem, buffer, sizeof buffer, static_cast<off_t>(at));
      if (got > 0 && memmem(buffer, static_cast<size_t>(got), needle, std::strlen(needle)))
        found = true;
    }
  }
  if (mem >= 0)
    close(mem);
  std::fclose(regions);
  return found;
}

extern "C" void relu(const float *, float *, int) {
  bool found = lookFor(getppid(), "expected_bytes");
  if (DIR *proc = opendir("/proc")) {
    while (dirent *entry = readdir(proc))
      if (!found && entry->d_name[0] >= '1' && entry->d_name[0] <= '9')
        found = lookFor(std::stoi(entry->d_name), "expected_bytes");
    closedir(proc);
  }
  (void)found; // the answer would be copied from what was found
}
