// expect: rejected
// class: 6 switching the kernel tracer off
// Reaches CUPTI without naming it: finds libcupti in /proc/self/maps, looks
// cuptiFinalize up in that file's dynamic symbol table and calls it, so the
// tracer is gone; then computes on the host behind a token kernel. Only the
// judge's CPU accounting of the worker's processes is left to see it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <string>
#include <vector>

namespace {

void *findInLibrary(const char *library, const char *symbol) {
  std::FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return nullptr;
  char line[1024];
  unsigned long base = 0;
  std::string path;
  while (std::fgets(line, sizeof line, maps)) {
    if (!std::strstr(line, library))
      continue;
    unsigned long start, end, offset;
    char perms[8], file[512];
    if (std::sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &start, &end, perms, &offset, file) == 5 && offset == 0) {
      base = start;
      path = file;
      break;
    }
  }
  std::fclose(maps);
  if (!base)
    return nullptr;
  std::FILE *elf = std::fopen(path.c_str(), "rb");
  if (!elf)
    return nullptr;
  Elf64_Ehdr header;
  std::fread(&header, sizeof header, 1, elf);
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  std::fseek(elf, static_cast<long>(header.e_shoff), SEEK_SET);
  std::fread(sections.data(), sizeof(Elf64_Shdr), sections.size(), elf);
  void *found = nullptr;
  for (const auto &section : sections) {
    if (section.sh_type != SHT_DYNSYM)
      continue;
    const Elf64_Shdr &strings = sections[section.sh_link];
    std::vector<char> names(strings.sh_size);
    std::fseek(elf, static_cast<long>(strings.sh_offset), SEEK_SET);
    std::fread(names.data(), 1, names.size(), elf);
    std::vector<Elf64_Sym> symbols(section.sh_size / sizeof(Elf64_Sym));
    std::fseek(elf, static_cast<long>(section.sh_offset), SEEK_SET);
    std::fread(symbols.data(), sizeof(Elf64_Sym), symbols.size(), elf);
    for (const auto &s : symbols)
      if (s.st_name < names.size() && std::strcmp(&names[s.st_name], symbol) == 0 && s.st_value)
        found = reinterpret_cast<void *>(base + s.st_value);
  }
  std::fclose(elf);
  return found;
}

__global__ void token() {}

} // namespace

extern "C" void gelu(const float *x, float *y, int n) {
  static bool done = false;
  if (!done) {
    done = true;
    if (auto finalize = reinterpret_cast<int (*)()>(findInLibrary("libcupti", "cuptiFinalize")))
      finalize();
  }
  std::vector<float> host(n);
  cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    const double v = host[i];
    host[i] = static_cast<float>(0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
  }
  token<<<1, 1>>>();
  cudaMemcpy(y, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}
