// torch.compile against PyTorch eager for an imported KernelBench task
// (docs/kernelbench.md): scripts/kernelbench/time_torch_compile.py measures,
// once per task on the serving GPU, the ratio compiled / eager of the two
// versions' median times and writes it to the task's torch_compile.json.
// The judge times eager itself; a candidate's speedup against torch.compile
// is its speedup against eager times that ratio, reported beside it and
// never in the reward.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace cudaperf {

struct TorchCompileBaseline {
  double compiledOverEager = 1; // median compiled time / median eager time, same process, same inputs
  double eagerMs = 0, compiledMs = 0;
  std::string device; // the GPU it was measured on
};

// torch_compile.json of a task folder: nullopt when the file is absent or
// says the module could not be compiled or disagreed with eager
// ("status": "failed"). Throws TaskError naming the file and field when it
// is malformed (a ratio that is not a positive finite number included), or
// when it was measured for another problem.py than the one beside it (its
// `problem_key`, contentKey of its bytes): loadTask then keeps the task
// without it and says why (TaskSpec::torchCompileProblem).
std::optional<TorchCompileBaseline> loadTorchCompileBaseline(const std::filesystem::path &file);

// speedup against torch.compile = compiled time / candidate time
//                               = (eager time / candidate time) * (compiled time / eager time).
double speedupAgainstTorchCompile(double speedupAgainstEager, const TorchCompileBaseline &baseline);

} // namespace cudaperf
