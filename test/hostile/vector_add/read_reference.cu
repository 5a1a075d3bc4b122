// expect: ok
// Looks for the task's reference files from the harness's own path
// (/proc/self/exe is <repo>/build-gpu/daemon/cudaperf-run): reference.c and
// the reference-output cache. If it can read either it returns without
// computing (wrong_answer); hidden by the sandbox, it computes honestly.
#include <cstdio>
#include <dirent.h>
#include <string>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static bool readable(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "r");
  const bool ok = file && std::fgetc(file) != EOF;
  if (file)
    std::fclose(file);
  return ok;
}

static bool listable(const std::string &path) {
  DIR *directory = opendir(path.c_str());
  int entries = 0;
  while (directory && readdir(directory))
    ++entries;
  if (directory)
    closedir(directory);
  return entries > 2;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) > 0) {
    std::string root = self;
    for (int up = 0; up < 3 && root.find('/') != std::string::npos; ++up)
      root = root.substr(0, root.rfind('/'));
    if (readable(root + "/tasks/vector_add/reference.c") || listable(root + "/build-gpu/reference-cache") ||
        listable(root + "/build-gpu/gpu-test/vector_add"))
      return; // could have used them
  }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
