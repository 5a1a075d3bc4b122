// The task loader: the bundled vector_add task, and errors that name the
// task, the file and the field.
#include "cudaperf/contracts/TaskSpec.h"

#include "cudaperf/contracts/ContentKey.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace cudaperf;
namespace fs = std::filesystem;

namespace {

class TempTask {
public:
  explicit TempTask(const std::string &json) {
    root_ = fs::temp_directory_path() /
            ("cudaperf-task-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    dir_ = root_ / "demo";
    fs::create_directories(dir_ / "variants");
    std::ofstream(dir_ / "task.json") << json;
    std::ofstream(dir_ / "reference.c") << "void demo(const float *x, float *y, int n) {}\n";
    std::ofstream(dir_ / "variants" / "good.cu") << "// variant\n";
  }
  ~TempTask() { fs::remove_all(root_); }
  const fs::path &dir() const { return dir_; }

private:
  static inline int counter_ = 0;
  fs::path root_, dir_;
};

const char *kValid = R"json({
  "name": "demo", "entry": "demo", "signature": "void demo(const float *x, float *y, int n)",
  "args": [
    {"name": "x", "type": "float32*", "intent": "in", "size": "n", "init": {"dist": "uniform", "low": 0, "high": 1}},
    {"name": "y", "type": "float32*", "intent": "out", "size": "(n + 1) / 2"},
    {"name": "n", "type": "int32", "value": "n"}
  ],
  "sizes": {"correctness": [{"n": 1}, {"n": 33}], "benchmark": {"n": 1048576}},
  "variants": {
  "good.cu" : { "expect" : "pass" }
}
})json";

std::string errorOf(const std::string &json) {
  TempTask task(json);
  try {
    loadTask(task.dir());
  } catch (const TaskError &error) {
    return error.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

} // namespace

TEST(SizeExpression, Arithmetic) {
  SizeBinding sizes = {{"n", 10}, {"m", 3}};
  EXPECT_EQ(evaluateSizeExpression("n", sizes), 10);
  EXPECT_EQ(evaluateSizeExpression("n * m + 1", sizes), 31);
  EXPECT_EQ(evaluateSizeExpression("(n + m - 1) / m", sizes), 4);
  EXPECT_EQ(evaluateSizeExpression("n % m", sizes), 1);
  EXPECT_EQ(evaluateSizeExpression("-(n) + 12", sizes), 2);
  EXPECT_THROW(evaluateSizeExpression("n / (m - 3)", sizes), TaskError);
  EXPECT_THROW(evaluateSizeExpression("k", sizes), TaskError);
  EXPECT_THROW(evaluateSizeExpression("n +", sizes), TaskError);
  EXPECT_THROW(evaluateSizeExpression("n ) ", sizes), TaskError);
  EXPECT_THROW(evaluateSizeExpression("4611686018427387904 * 4", sizes), TaskError);
}

TEST(TaskLoader, BundledVectorAdd) {
  const TaskSpec task = loadTask(fs::path(CUDAPERF_TASKS_DIR) / "vector_add");
  EXPECT_EQ(task.entry, "vector_add");
  ASSERT_EQ(task.args.size(), 4u);
  EXPECT_TRUE(task.args[0].pointer);
  EXPECT_EQ(task.args[1].init.at(0).kind, "normal");
  EXPECT_EQ(task.args[2].intent, Intent::Out);
  EXPECT_FALSE(task.args[3].pointer);
  EXPECT_EQ(task.memory, MemoryMode::Device);
  EXPECT_TRUE(task.allowedLibraries.empty());
  EXPECT_TRUE(task.baseline.has_value());
  EXPECT_EQ(task.benchmarkSize.at("n"), 67108864);
  int passing = 0, failing = 0;
  for (const auto &variant : task.variants)
    (variant.expectPass ? passing : failing)++;
  EXPECT_GE(passing, 3);
  EXPECT_GE(failing, 1);
  // A correctness size that is not a multiple of the block size.
  bool odd = false;
  for (const auto &sizes : task.correctnessSizes)
    odd |= sizes.at("n") % 32 != 0;
  EXPECT_TRUE(odd);
}

// What the analysis binds to the entry's parameters: integers at the benchmark size, by position.
TEST(TaskLoader, BenchmarkEntryArgumentsByPosition) {
  const auto vectorAdd = benchmarkEntryArguments(loadTask(fs::path(CUDAPERF_TASKS_DIR) / "vector_add"));
  ASSERT_EQ(vectorAdd.size(), 4u);
  EXPECT_FALSE(vectorAdd[0] || vectorAdd[1] || vectorAdd[2]); // the buffers
  EXPECT_EQ(vectorAdd[3], std::optional<std::int64_t>(67108864));
  // Several scalars, each its own expression's value.
  TaskSpec task = loadTask(fs::path(CUDAPERF_TASKS_DIR) / "vector_add");
  task.args[3].value = "n / 4 + 3";
  task.args.push_back(task.args[3]);
  task.args.back().value = "n % 1000";
  const auto values = benchmarkEntryArguments(task);
  EXPECT_EQ(values[3], std::optional<std::int64_t>(67108864 / 4 + 3));
  EXPECT_EQ(values[4], std::optional<std::int64_t>(67108864 % 1000));
}

TEST(TaskLoader, TrailingSlashNamesTheFolder) {
  EXPECT_EQ(loadTask(std::string(CUDAPERF_TASKS_DIR) + "/vector_add/").name, "vector_add");
}

TEST(TaskLoader, ValidTaskAndDefaults) {
  TempTask temp(kValid);
  const TaskSpec task = loadTask(temp.dir());
  EXPECT_EQ(task.args[1].size, "(n + 1) / 2");
  EXPECT_FALSE(task.baseline);
  EXPECT_DOUBLE_EQ(task.toleranceFor(ElementType::Float32).rtol, 1e-5);
  EXPECT_DOUBLE_EQ(task.toleranceFor(ElementType::Float16).rtol, 1e-2);
  EXPECT_DOUBLE_EQ(task.toleranceFor(ElementType::Int32).atol, 0.0);
}

TEST(TaskLoader, ErrorsNameTaskFileAndField) {
  auto error = errorOf(replaced(kValid, R"("intent": "out")", R"("intent": "output")"));
  EXPECT_NE(error.find("task 'demo'"), std::string::npos) << error;
  EXPECT_NE(error.find("task.json"), std::string::npos) << error;
  EXPECT_NE(error.find("field args[1].intent: expected one of in, out, inout, got 'output'"), std::string::npos)
      << error;

  EXPECT_NE(errorOf(replaced(kValid, R"("entry": "demo", )", "")).find("field entry: missing"), std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"("size": "n")", R"("size": "rows")"))
                .find("field args[0].size: size expression 'rows': unknown size variable 'rows'"),
            std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"("type": "float32*", "intent": "in")", R"("type": "float128*", "intent": "in")"))
                .find("field args[0].type"),
            std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"("name": "demo")", R"("name": "other")")).find("differs from the folder name"),
            std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"("good.cu")", R"("missing.cu")")).find("does not exist"), std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"("intent": "out")", R"("intent": "in", "init": {"dist": "uniform"})"))
                .find("nothing to check"),
            std::string::npos);
  EXPECT_NE(
      errorOf(replaced(kValid, R"("low": 0, "high": 1)", R"("low": 1, "high": 0)")).find("low must be below high"),
      std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"({"n": 1}, )", R"({"n": 0}, )")).find("must be positive"), std::string::npos);
  EXPECT_NE(errorOf(replaced(kValid, R"("variants")", R"("allowed_libraries": ["cublass"], "variants")"))
                .find("unknown library 'cublass'"),
            std::string::npos);
  EXPECT_NE(errorOf("{ not json").find("invalid JSON"), std::string::npos);
  EXPECT_NE(errorOf("[1, 2]").find("must be an object"), std::string::npos);
}

// An imported KernelBench task's torch.compile timing rides beside its eager
// baseline; a failed compile is no timing; a broken or stale file leaves the
// task standing without one, and says why (it is reported, never rewarded).
TEST(TaskLoader, TorchCompileTimingBesideAnEagerBaseline) {
  TempTask temp(kValid);
  const auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(temp.dir() / name) << text;
  };
  write("problem.py", "class Model: pass\n");
  const std::string key = contentKey({"class Model: pass\n"});
  const std::string ok = R"({"status": "ok", "compiled_over_eager": 0.5, "eager_ms": 2.0, "compiled_ms": 1.0, )"
                         R"("device": "NVIDIA H100 80GB HBM3", "problem_key": ")" +
                         key + R"("})";
  write("torch_compile.json", ok);
  EXPECT_FALSE(loadTask(temp.dir()).torchCompile) << "no eager baseline: the timing has nothing to sit beside";
  write("baseline_eager.c", "/* shim */\n");
  const TaskSpec task = loadTask(temp.dir());
  ASSERT_TRUE(task.torchCompile) << task.torchCompileProblem;
  EXPECT_DOUBLE_EQ(task.torchCompile->compiledOverEager, 0.5);
  EXPECT_DOUBLE_EQ(task.torchCompile->eagerMs, 2.0);
  EXPECT_EQ(task.torchCompile->device, "NVIDIA H100 80GB HBM3");
  // 3x faster than eager, where torch.compile is 2x faster than eager: 1.5x faster than torch.compile.
  EXPECT_DOUBLE_EQ(speedupAgainstTorchCompile(3.0, *task.torchCompile), 1.5);

  write("torch_compile.json", R"({"status": "failed", "reason": "torch.compile failed: Unsupported"})");
  EXPECT_FALSE(loadTask(temp.dir()).torchCompile);
  EXPECT_EQ(loadTask(temp.dir()).torchCompileProblem, "");
  for (const std::string &broken :
       {std::string(R"({"status": "ok"})"), replaced(ok, "0.5", "0"), replaced(ok, "0.5", R"("fast")"),
        replaced(ok, R"("ok")", R"("maybe")"), std::string("{ not json"), replaced(ok, key, std::string(64, 'a'))}) {
    write("torch_compile.json", broken);
    const TaskSpec loaded = loadTask(temp.dir());
    EXPECT_FALSE(loaded.torchCompile) << broken;
    EXPECT_NE(loaded.torchCompileProblem.find("torch_compile.json"), std::string::npos) << broken;
  }
  write("torch_compile.json", ok);
  write("problem.py", "class Model: edited\n"); // measured for the problem as it was
  EXPECT_NE(loadTask(temp.dir()).torchCompileProblem.find("another problem.py"), std::string::npos);
}

TEST(TaskLoader, SuiteLoadsEveryTaskFolder) {
  const auto tasks = loadSuite(CUDAPERF_TASKS_DIR);
  ASSERT_GE(tasks.size(), 6u);
  EXPECT_TRUE(
      std::is_sorted(tasks.begin(), tasks.end(), [](const TaskSpec &a, const TaskSpec &b) { return a.name < b.name; }));
  for (const auto &task : tasks) {
    int passing = 0, failing = 0;
    for (const auto &variant : task.variants)
      (variant.expectPass ? passing : failing)++;
    EXPECT_GE(passing, 3) << task.name;
    EXPECT_GE(failing, 1) << task.name;
  }
}
