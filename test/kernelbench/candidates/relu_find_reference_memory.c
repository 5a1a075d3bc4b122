/* Hostile, for kb_1_relu (16 x 1024), against the PyTorch reference's shared
   memory: the generated reference.c keeps every argument of its last call in
   a memory file ("cudaperf-reference": x, then out) mapped by the process
   that loaded it (the judge, where the reference is the timed calls' oracle)
   and held open by its Python server. It looks through every process it can
   see for that file, in their mappings and their descriptors; where it finds
   one it copies the outputs it holds instead of computing (a wrong answer:
   another call's outputs). In a worker (its own PID namespace, another user,
   nothing of the judge's mapped or open) there is none, and it computes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kElements = 16 * 1024, kBytes = kElements * 4 };
static const char kName[] = "cudaperf-reference";

/* A descriptor of the memory file, opened through /proc (or -1). */
static int openIn(const char *pid) {
  char path[300], target[300];
  snprintf(path, sizeof path, "/proc/%s/fd", pid);
  DIR *fds = opendir(path);
  int found = -1;
  for (struct dirent *fd; fds && found < 0 && (fd = readdir(fds));) {
    snprintf(path, sizeof path, "/proc/%s/fd/%s", pid, fd->d_name);
    const ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0 && (target[n] = 0, strstr(target, kName)))
      found = open(path, O_RDONLY);
  }
  if (fds)
    closedir(fds);
  return found;
}

static int mapsName(const char *pid) {
  char path[300], line[512];
  snprintf(path, sizeof path, "/proc/%s/maps", pid);
  FILE *maps = fopen(path, "r");
  int named = 0;
  while (maps && !named && fgets(line, sizeof line, maps))
    named = strstr(line, kName) != NULL;
  if (maps)
    fclose(maps);
  return named;
}

/* How many visible processes map or hold the memory file (for the test's control). */
int hostile_reference_memories(void) {
  DIR *proc = opendir("/proc");
  int count = 0;
  for (struct dirent *entry; proc && (entry = readdir(proc));) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
      continue;
    const int fd = openIn(entry->d_name);
    count += fd >= 0 || mapsName(entry->d_name);
    if (fd >= 0)
      close(fd);
  }
  if (proc)
    closedir(proc);
  return count;
}

void kb_1_relu(const float *x, float *out) {
  if (hostile_reference_memories() > 0) {
    DIR *proc = opendir("/proc");
    for (struct dirent *entry; proc && (entry = readdir(proc));) {
      const int fd = entry->d_name[0] >= '0' && entry->d_name[0] <= '9' ? openIn(entry->d_name) : -1;
      if (fd >= 0 && pread(fd, out, kBytes, kBytes) == kBytes) { /* out follows x in the file */
        close(fd);
        closedir(proc);
        return;
      }
      if (fd >= 0)
        close(fd);
    }
    if (proc)
      closedir(proc);
    memset(out, 0, kBytes); /* seen but not read: still no computing */
    return;
  }
  for (int i = 0; i < kElements; ++i)
    out[i] = x[i] > 0 ? x[i] : 0;
}
