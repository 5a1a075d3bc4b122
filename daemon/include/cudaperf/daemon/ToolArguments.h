// The command lines of the small tools (cudaperf-compile, cudaperf-evaluate):
// flags with a value, switches and positionals, read in order. A missing
// value or an unknown argument is an std::invalid_argument naming it, which
// the tool prints above its usage (exit status 2).
#pragma once

#include <stdexcept>
#include <string>

namespace cudaperf {

class ToolArguments {
public:
  ToolArguments(int argc, char **argv) : argc_(argc), argv_(argv) {}
  // The next argument; false after the last.
  bool next() {
    if (++index_ >= argc_)
      return false;
    arg_ = argv_[index_];
    return true;
  }
  const std::string &arg() const { return arg_; }
  bool isFlag() const { return arg_.rfind("--", 0) == 0; }
  // The value after the current flag.
  std::string value() {
    if (index_ + 1 >= argc_)
      throw std::invalid_argument(arg_ + " needs a value");
    return argv_[++index_];
  }
  [[noreturn]] void unknown() const { throw std::invalid_argument("unknown argument " + arg_); }

private:
  int argc_;
  char **argv_;
  int index_ = 0;
  std::string arg_;
};

} // namespace cudaperf
