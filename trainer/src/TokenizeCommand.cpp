// cudaperf-train tokenize: all of stdin as one text (not trimmed) -> its ids
// as one JSON array; what scripts/gpu-test-policy compares with tokenizers'.
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <iterator>
#include <stdexcept>

namespace cudaperf {

int tokenizeCommand(const std::vector<std::string> &args) {
  const Flags flags = parseFlags(args, {"model", "tokenizer"}, {"report-speed"});
  std::string path = textFlag(flags, "tokenizer");
  if (path.empty() && flags.count("model"))
    path = textFlag(flags, "model") + "/tokenizer.json";
  if (path.empty())
    throw std::invalid_argument("--model DIR (or --tokenizer FILE.json) is required");
  const trainer::Tokenizer tokenizer = trainer::Tokenizer::fromFile(path);
  std::cin >> std::noskipws;
  const std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const auto start = std::chrono::steady_clock::now();
  const auto ids = tokenizer.encode(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (switchFlag(flags, "report-speed")) // encode only, on this thread: not the load, not the printing
    std::cerr << "{\"bytes\": " << text.size() << ", \"tokens\": " << ids.size() << ", \"seconds\": " << seconds
              << ", \"mb_per_s\": " << text.size() / 1e6 / std::max(seconds, 1e-9) << "}\n";
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i)
      out += ',';
    out += std::to_string(ids[i]);
  }
  std::cout << out << "]\n";
  return 0;
}

} // namespace cudaperf
