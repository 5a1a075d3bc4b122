// Where a cudaperf program finds its companions: in a build tree they sit
// beside it; installed (cmake --install, the .deb) the internal programs
// are in <prefix>/libexec/cudaperf and the shared files in
// <prefix>/share/cudaperf, beside <prefix>/bin.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace cudaperf {

inline std::filesystem::path thisProgramsFolder() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : self.parent_path();
}

// The program `name` beside this one, else in ../libexec/cudaperf; beside
// this one when neither exists (the error then names the build-tree path).
inline std::filesystem::path companionProgram(const std::string &name) {
  const auto folder = thisProgramsFolder();
  if (folder.empty())
    return name;
  std::error_code error;
  const auto installed = folder.parent_path() / "libexec" / "cudaperf" / name;
  if (!std::filesystem::exists(folder / name, error) && std::filesystem::exists(installed, error))
    return installed;
  return folder / name;
}

// A file or folder of the installed share/cudaperf, or `buildTreePath` when
// this program runs from a build tree.
inline std::filesystem::path sharedData(const std::string &relative, const std::filesystem::path &buildTreePath) {
  const auto folder = thisProgramsFolder();
  std::error_code error;
  if (!folder.empty()) {
    const auto installed = folder.parent_path() / "share" / "cudaperf" / relative;
    if (std::filesystem::exists(installed, error))
      return installed;
  }
  return buildTreePath;
}

} // namespace cudaperf
