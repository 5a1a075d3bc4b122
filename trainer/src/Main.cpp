// cudaperf-train: the offline pairwise ranker behind the structural reward.
#include "cudaperf/trainer/Commands.h"

#include <exception>
#include <iostream>

namespace {

constexpr const char *kUsage =
    "usage: cudaperf-train rank (--data FILE.jsonl | --db FILE.sqlite) --out ranker.json [--metrics FILE]\n"
    "                           [--pairs quartile|all] [--hidden 32,32|none] [--activation relu|tanh]\n"
    "                           [--transform log|none] [--epochs N] [--patience N] [--lr X]\n"
    "                           [--weight-decay X] [--seed S] [--folds K] [--repeats R] [--tie-ratio X]\n"
    "       cudaperf-train score --ranker ranker.json < features.jsonl\n";

} // namespace

int main(int argc, char **argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  try {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "rank")
      return cudaperf::rankCommand(rest);
    if (args[0] == "score")
      return cudaperf::scoreCommand(rest);
    std::cerr << "cudaperf-train: unknown command '" << args[0] << "'\n" << kUsage;
    return 2;
  } catch (const std::exception &error) {
    std::cerr << "cudaperf-train " << args[0] << ": " << error.what() << "\n";
    return 2;
  }
}
