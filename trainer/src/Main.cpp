// cudaperf-train: the offline pairwise ranker behind the structural reward,
// the policy model (generate, tokenize, logits, sample-check, init) and GRPO.
#include "cudaperf/trainer/Commands.h"

#include <exception>
#include <iostream>
#include <string>

namespace {

constexpr const char *kUsage =
    "usage: cudaperf-train rank (--data FILE.jsonl | --db FILE.sqlite) --out ranker.json [--metrics FILE]\n"
    "                           [--pairs quartile|all] [--hidden 32,32|none] [--activation relu|tanh]\n"
    "                           [--transform log|none] [--epochs N] [--patience N] [--lr X]\n"
    "                           [--weight-decay X] [--seed S] [--folds K] [--repeats R] [--tie-ratio X]\n"
    "                           [--features cudaperf|extended|extended+own] [--monotone bank:-1,...|none] [--ensemble "
    "K]\n"
    "                           [--relative-to-baseline]\n"
    "       cudaperf-train score --ranker ranker.json [--baselines DATA.jsonl] < features.jsonl (a line may carry its "
    "own \"baseline\")\n"
    "       cudaperf-train generate --model DIR --prompt TEXT [--max-new-tokens N] [--temperature T]\n"
    "                           [--top-p P] [--top-k K] [--seed S] [--device cpu|cuda] [--dtype f32|bf16|f16]\n"
    "                           [--chat] [--ids] [--ignore-eos] [--no-cuda-graph]\n"
    "       cudaperf-train tokenize (--model DIR | --tokenizer FILE.json) [--report-speed] < text\n"
    "       cudaperf-train logits --model DIR --ids FILE.json --out FILE.safetensors [--device D] [--dtype T]\n"
    "       cudaperf-train sample-check --model DIR --prompts FILE.json [--group G] [--max-new-tokens N]\n"
    "                           [--temperature T] [--top-p P] [--top-k K] [--seed S] [--device D] [--dtype T]\n"
    "                           [--ignore-eos] [--no-cuda-graph] [--no-recompute] [--completions-out FILE]\n"
    "       cudaperf-train grpo --config FILE.json [--steps N] [--resume DIR|latest] [--stop-after N] "
    "[--stop-after-seconds S] [--nproc N]\n"
    "       cudaperf-train sft --config FILE.json [--resume DIR|latest] [--stop-after N] [--stop-after-seconds S]\n"
    "       cudaperf-train sft-data [--tasks-dir tasks] [--tasks a,b] --out FILE.jsonl\n"
    "                           [--refinements completions.jsonl,... [--refinements-per-task 8]\n"
    "                            [--feedback-daemon URL]]\n"
    "       cudaperf-train convert --model DIR --out DIR [--dtype f32|bf16|f16] [--max-shard-mb N]\n"
    "       cudaperf-train eval --model DIR [--tasks-dir tasks] [--tasks a,b] [--samples 10] [--turns 1]\n"
    "                           [--seeds 0,1,2] [--daemon URL,...] [--temperature T] [--top-p P]\n"
    "                           [--max-new-tokens N] [--device D] [--dtype T] [--out report.json]\n"
    "                           [--concurrency N] [--completions-out FILE.jsonl]\n"
    "       cudaperf-train init --config config.json [--tokenizer tokenizer.json] --out DIR [--seed S] [--dtype T]\n";

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
    if (args[0] == "generate")
      return cudaperf::generateCommand(rest);
    if (args[0] == "tokenize")
      return cudaperf::tokenizeCommand(rest);
    if (args[0] == "logits")
      return cudaperf::logitsCommand(rest);
    if (args[0] == "sample-check")
      return cudaperf::sampleCheckCommand(rest);
    if (args[0] == "grpo")
      return cudaperf::grpoCommand(rest);
    if (args[0] == "init")
      return cudaperf::initCommand(rest);
    if (args[0] == "eval")
      return cudaperf::evalCommand(rest);
    if (args[0] == "sft")
      return cudaperf::sftCommand(rest);
    if (args[0] == "sft-data")
      return cudaperf::sftDataCommand(rest);
    if (args[0] == "convert")
      return cudaperf::convertCommand(rest);
    std::cerr << "cudaperf-train: unknown command '" << args[0] << "'\n" << kUsage;
    return 2;
  } catch (const std::exception &error) {
    // One line: LibTorch's errors carry a backtrace after the first.
    const std::string message = error.what();
    std::cerr << "cudaperf-train " << args[0] << ": " << message.substr(0, message.find('\n')) << "\n";
    return 2;
  }
}
