// How the harness calls a task's entry function, in the candidate, the GPU
// baseline and the C reference alike: every argument in a 64-bit integer
// register (x86-64 System V), buffer pointers and integer scalars; the callee
// reads the first k it declares.
#pragma once

#include "cudaperf/daemon/TaskData.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cudaperf {

constexpr std::size_t kMaxEntryArguments = 12;

using EntryFunction = void (*)(std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t,
                               std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t, std::intptr_t,
                               std::intptr_t);

inline void callEntry(EntryFunction entry, const std::vector<std::intptr_t> &args) {
  std::intptr_t a[kMaxEntryArguments] = {};
  std::copy_n(args.begin(), std::min(args.size(), kMaxEntryArguments), a);
  entry(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]);
}

// Registers for a call with host pointers into `arguments` (the reference).
inline std::vector<std::intptr_t> hostRegisters(std::vector<ArgumentData> &arguments) {
  std::vector<std::intptr_t> registers;
  for (auto &argument : arguments)
    registers.push_back(argument.pointer ? reinterpret_cast<std::intptr_t>(argument.buffer.bytes.data())
                                         : static_cast<std::intptr_t>(argument.scalar));
  return registers;
}

} // namespace cudaperf
