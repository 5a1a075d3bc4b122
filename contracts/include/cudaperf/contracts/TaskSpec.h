// A task of the suite (docs/tasks.md): the entry function a candidate must
// export, its arguments with their sizes and input distributions, the sizes
// used for correctness and timing, tolerances, memory mode and allowed
// libraries. loadTask() validates everything and names the task, file and
// field of any error.
#pragma once

#include "cudaperf/contracts/TorchCompileBaseline.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf {

enum class ElementType { Float32, Float64, Float16, BFloat16, Int32, Int64, UInt8, UInt32 };
enum class Intent { In, Out, InOut };
enum class MemoryMode { Device, Host };

const char *toString(ElementType type);
std::size_t elementBytes(ElementType type);
bool isFloating(ElementType type);

// Sparse outliers: each element is drawn from uniform(low, high) instead,
// with probability `fraction` (a reduction over a sample misses them).
struct Outliers {
  double fraction = 0;
  double low = 0, high = 0;
};

// Structure across the buffer: consecutive runs of `length` elements are
// scaled by one factor each, drawn from uniform(low, high) (inputs that are
// not identically distributed, so a strided sample is biased).
struct Segments {
  std::int64_t length = 0;
  double low = 1, high = 1;
};

struct Distribution {
  std::string kind = "uniform"; // uniform, normal, randint, constant, arange, offsets
  double low = -1, high = 1;    // uniform, randint and offsets' increments (high exclusive)
  double step = 1;              // arange: value i * step
  double mean = 0, stddev = 1;  // normal
  double value = 0;             // constant
  std::optional<Segments> segments;
  std::optional<Outliers> outliers;
};

struct ArgumentSpec {
  std::string name;
  ElementType type = ElementType::Float32;
  bool pointer = false;
  Intent intent = Intent::In; // pointers only
  std::string size;           // pointers: element count, an expression over the size variables
  std::string value;          // scalars: an expression over the size variables, or a literal
  // Inputs (in, inout): one distribution, or several that the correctness
  // trials take in turn (trial t draws from init[t % init.size()]).
  std::vector<Distribution> init;
  const Distribution &distributionForTrial(std::size_t trial) const { return init[trial % init.size()]; }
};

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-5;
  // false (default): atol is scaled by the RMS of the expected output, so
  // writing zeros where outputs are tiny does not pass. true: atol is an
  // absolute bound, for outputs whose tiny values float arithmetic cannot
  // reach (gelu of x = -9 is -2e-8 in double and 0 in float).
  bool absolute = false;
};

// Default tolerance of an output element type (float32 1e-5; half and bf16 looser; integers exact).
Tolerance defaultTolerance(ElementType type);

using SizeBinding = std::map<std::string, std::int64_t>;

struct VariantSpec {
  std::filesystem::path file;
  bool expectPass = true; // "pass" or "fail" in task.json
  std::string note;
};

struct TaskSpec {
  std::string name;
  std::string description;
  std::string entry;     // extern "C" function the candidate exports
  std::string signature; // its C declaration, shown to the policy
  std::filesystem::path directory;
  std::vector<ArgumentSpec> args;
  std::vector<SizeBinding> correctnessSizes;
  SizeBinding benchmarkSize;
  std::optional<Tolerance> tolerance; // task-wide override of the per-type defaults
  // Outputs of the timed calls at the benchmark size, compared with the GPU
  // baseline's on the same inputs: accumulation error grows with the size
  // (a float sum of 33 M terms), so a task may allow more there.
  std::optional<Tolerance> benchmarkTolerance;
  MemoryMode memory = MemoryMode::Device;
  std::vector<std::string> allowedLibraries;
  std::filesystem::path reference;               // reference.c
  std::optional<std::filesystem::path> baseline; // baseline.cu
  // baseline_eager.c: an imported KernelBench task's PyTorch eager baseline
  // (its traced module in a C shim over libcudaperf-eager), used where there
  // is no baseline.cu.
  std::optional<std::filesystem::path> eagerBaseline;
  // torch_compile.json beside it: torch.compile's time over eager's, where
  // the module compiled and agreed with eager (reported, not rewarded).
  std::optional<TorchCompileBaseline> torchCompile;
  std::string torchCompileProblem; // why a torch_compile.json there was not used (malformed)
  std::vector<VariantSpec> variants;

  Tolerance toleranceFor(ElementType type) const { return tolerance ? *tolerance : defaultTolerance(type); }
  Tolerance benchmarkToleranceFor(ElementType type) const {
    return benchmarkTolerance ? *benchmarkTolerance : toleranceFor(type);
  }
};

class TaskError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Libraries a task may allow a candidate to link (default: none).
const std::vector<std::string> &knownLibraries();

// Evaluates a size expression (integers, size variables, + - * / % and
// parentheses; / is integer division). Throws TaskError naming the problem.
std::int64_t evaluateSizeExpression(const std::string &expression, const SizeBinding &sizes);

TaskSpec loadTask(const std::filesystem::path &directory);
// The same validation on task.json text, without touching the disk: for the
// harness, which gets the contract in its request and never sees the task's
// folder (reference files stay out of the candidate's reach).
TaskSpec parseTask(const std::string &taskJson, const std::string &folderName);
// Most correctness trials any input's distributions ask for (1 if none).
std::size_t distributionCount(const TaskSpec &task);
// The entry's arguments at the benchmark size, by position, as the analysis
// binds them (AnalysisOptions::entryArguments): an integer scalar's value;
// nullopt for pointers and floating-point scalars.
std::vector<std::optional<std::int64_t>> benchmarkEntryArguments(const TaskSpec &task);
// Every folder with a task.json under `root`, sorted by name.
std::vector<TaskSpec> loadSuite(const std::filesystem::path &root);

} // namespace cudaperf
