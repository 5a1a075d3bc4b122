#include "cudaperf/contracts/TaskSpec.h"

#include "cudaperf/contracts/JsonFieldReader.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace cudaperf {

namespace json = boost::json;

const std::vector<std::string> &knownLibraries() {
  static const std::vector<std::string> libraries = {"cublas",   "cublasLt", "cudnn", "cufft", "curand",
                                                     "cusparse", "cusolver", "cub",   "thrust"};
  return libraries;
}

namespace {

// Validation context: every error names the task, the file and the field.
class TaskReader : public JsonFieldReader {
public:
  TaskReader(std::string task, std::filesystem::path file)
      : JsonFieldReader([task, file](const std::string &field, const std::string &why) {
          throw TaskError("task '" + task + "' (" + file.string() +
                          "): " + (field.empty() ? "" : "field " + field + ": ") + why);
        }) {}
};

const std::vector<std::pair<const char *, ElementType>> kTypes = {
    {"float32", ElementType::Float32},   {"float64", ElementType::Float64}, {"float16", ElementType::Float16},
    {"bfloat16", ElementType::BFloat16}, {"int32", ElementType::Int32},     {"int64", ElementType::Int64},
    {"uint8", ElementType::UInt8},       {"uint32", ElementType::UInt32}};

bool isIdentifier(const std::string &text) {
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(text, identifier);
}

SizeBinding readSizes(const TaskReader &reader, const json::value &value, const std::string &field) {
  SizeBinding sizes;
  for (const auto &[key, entry] : reader.object(value, field)) {
    const std::string name(key);
    if (!isIdentifier(name))
      reader.fail(field, "size variable '" + name + "' is not an identifier");
    const std::int64_t size = reader.integer(entry, field + "." + name);
    if (size < 0)
      reader.fail(field + "." + name, "must not be negative");
    sizes[name] = size;
  }
  return sizes;
}

Distribution readDistribution(const TaskReader &reader, const json::value &value, const std::string &field) {
  const auto &object = reader.object(value, field);
  Distribution distribution;
  distribution.kind = reader.string(reader.required(object, "dist", field), field + ".dist");
  static const std::set<std::string> kinds = {"uniform", "normal", "randint", "constant", "arange", "offsets"};
  if (!kinds.count(distribution.kind))
    reader.fail(field + ".dist",
                "expected one of uniform, normal, randint, constant, arange, offsets, got '" + distribution.kind + "'");
  if (auto *low = object.if_contains("low"))
    distribution.low = reader.number(*low, field + ".low");
  if (auto *high = object.if_contains("high"))
    distribution.high = reader.number(*high, field + ".high");
  if (auto *mean = object.if_contains("mean"))
    distribution.mean = reader.number(*mean, field + ".mean");
  if (auto *stddev = object.if_contains("stddev"))
    distribution.stddev = reader.number(*stddev, field + ".stddev");
  if (auto *constant = object.if_contains("value"))
    distribution.value = reader.number(*constant, field + ".value");
  if (auto *step = object.if_contains("step"))
    distribution.step = reader.number(*step, field + ".step");
  if ((distribution.kind == "uniform" || distribution.kind == "randint" || distribution.kind == "offsets") &&
      !(distribution.low < distribution.high))
    reader.fail(field, "low must be below high");
  if (distribution.kind == "normal" && !(distribution.stddev > 0))
    reader.fail(field + ".stddev", "must be positive");
  if (auto *outliers = object.if_contains("outliers")) {
    const auto &spec = reader.object(*outliers, field + ".outliers");
    Outliers value;
    value.fraction =
        reader.number(reader.required(spec, "fraction", field + ".outliers"), field + ".outliers.fraction");
    value.low = reader.number(reader.required(spec, "low", field + ".outliers"), field + ".outliers.low");
    value.high = reader.number(reader.required(spec, "high", field + ".outliers"), field + ".outliers.high");
    if (!(value.fraction > 0 && value.fraction < 1))
      reader.fail(field + ".outliers.fraction", "must be in (0, 1)");
    if (!(value.low < value.high))
      reader.fail(field + ".outliers", "low must be below high");
    if (distribution.kind == "offsets")
      reader.fail(field + ".outliers", "offsets take no outliers (row pointers must stay sorted)");
    distribution.outliers = value;
  }
  if (auto *segments = object.if_contains("segments")) {
    const auto &spec = reader.object(*segments, field + ".segments");
    Segments value;
    value.length = reader.integer(reader.required(spec, "length", field + ".segments"), field + ".segments.length");
    value.low = reader.number(reader.required(spec, "low", field + ".segments"), field + ".segments.low");
    value.high = reader.number(reader.required(spec, "high", field + ".segments"), field + ".segments.high");
    if (value.length <= 0)
      reader.fail(field + ".segments.length", "must be positive");
    if (!(value.low <= value.high))
      reader.fail(field + ".segments", "low must not be above high");
    if (distribution.kind == "offsets")
      reader.fail(field + ".segments", "offsets take no segments (row pointers must stay sorted)");
    distribution.segments = value;
  }
  return distribution;
}

} // namespace

namespace {

// Validates task.json text. `directory` is the task's folder when it is read
// from disk (reference.c, baseline.cu and the variants are then checked too).
TaskSpec buildTask(const std::string &text, const std::string &folderName, const std::filesystem::path &file,
                   const std::filesystem::path *directory) {
  TaskReader reader(folderName, file);
  boost::system::error_code error;
  json::value document = json::parse(text, error);
  if (error)
    reader.fail("", "invalid JSON: " + error.message());
  const auto &root = reader.object(document, "(top level)");

  TaskSpec task;
  if (directory)
    task.directory = *directory;
  task.name = reader.string(reader.required(root, "name", ""), "name");
  if (task.name != folderName)
    reader.fail("name", "'" + task.name + "' differs from the folder name '" + folderName + "'");
  if (auto *description = root.if_contains("description"))
    task.description = reader.string(*description, "description");
  task.entry = reader.string(reader.required(root, "entry", ""), "entry");
  if (!isIdentifier(task.entry))
    reader.fail("entry", "'" + task.entry + "' is not a C identifier");
  task.signature = reader.string(reader.required(root, "signature", ""), "signature");

  // Sizes first: argument expressions are checked against them.
  const auto &sizes = reader.object(reader.required(root, "sizes", ""), "sizes");
  const auto &correctness = reader.array(reader.required(sizes, "correctness", "sizes"), "sizes.correctness");
  if (correctness.empty())
    reader.fail("sizes.correctness", "needs at least one size");
  for (std::size_t i = 0; i < correctness.size(); ++i)
    task.correctnessSizes.push_back(readSizes(reader, correctness[i], "sizes.correctness[" + std::to_string(i) + "]"));
  task.benchmarkSize = readSizes(reader, reader.required(sizes, "benchmark", "sizes"), "sizes.benchmark");
  for (std::size_t i = 0; i < task.correctnessSizes.size(); ++i)
    if (task.correctnessSizes[i].size() != task.benchmarkSize.size() ||
        !std::equal(task.correctnessSizes[i].begin(), task.correctnessSizes[i].end(), task.benchmarkSize.begin(),
                    [](const auto &a, const auto &b) { return a.first == b.first; }))
      reader.fail("sizes.correctness[" + std::to_string(i) + "]", "must name the same variables as sizes.benchmark");

  const auto &args = reader.array(reader.required(root, "args", ""), "args");
  if (args.empty())
    reader.fail("args", "needs at least one argument");
  std::set<std::string> names;
  bool hasOutput = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string field = "args[" + std::to_string(i) + "]";
    const auto &object = reader.object(args[i], field);
    ArgumentSpec arg;
    arg.name = reader.string(reader.required(object, "name", field), field + ".name");
    if (!isIdentifier(arg.name) || !names.insert(arg.name).second)
      reader.fail(field + ".name", "'" + arg.name + "' is not a unique identifier");
    std::string type = reader.string(reader.required(object, "type", field), field + ".type");
    if (!type.empty() && type.back() == '*') {
      arg.pointer = true;
      type.pop_back();
    }
    arg.type = reader.choice(json::value(type), field + ".type", kTypes);
    if (arg.pointer) {
      arg.intent = reader.choice(reader.required(object, "intent", field), field + ".intent",
                                 std::vector<std::pair<const char *, Intent>>{
                                     {"in", Intent::In}, {"out", Intent::Out}, {"inout", Intent::InOut}});
      arg.size = reader.string(reader.required(object, "size", field), field + ".size");
      hasOutput |= arg.intent != Intent::In;
      if (arg.intent != Intent::Out) {
        const json::value &init = reader.required(object, "init", field);
        if (init.is_array()) {
          const auto &list = init.get_array();
          if (list.empty())
            reader.fail(field + ".init", "needs at least one distribution");
          for (std::size_t d = 0; d < list.size(); ++d)
            arg.init.push_back(readDistribution(reader, list[d], field + ".init[" + std::to_string(d) + "]"));
        } else {
          arg.init.push_back(readDistribution(reader, init, field + ".init"));
        }
      }
    } else {
      // Scalars are passed in integer registers; a floating-point parameter
      // is a 1-element input buffer.
      if (isFloating(arg.type))
        reader.fail(field + ".type", "scalar arguments must be integers; pass '" + type +
                                         "' parameters as 1-element input buffers ('" + type + "*')");
      arg.value = reader.string(reader.required(object, "value", field), field + ".value");
    }
    // Every size must evaluate, and to a positive count, at every size binding.
    std::vector<SizeBinding> bindings = task.correctnessSizes;
    bindings.push_back(task.benchmarkSize);
    for (const auto &binding : bindings) {
      try {
        const std::int64_t count = evaluateSizeExpression(arg.pointer ? arg.size : arg.value, binding);
        if (arg.pointer && count <= 0)
          reader.fail(field + ".size", "evaluates to " + std::to_string(count) + ", must be positive");
      } catch (const TaskError &error) {
        if (std::string(error.what()).rfind("task '", 0) == 0)
          throw;
        reader.fail(field + (arg.pointer ? ".size" : ".value"), error.what());
      }
    }
    task.args.push_back(arg);
  }
  if (!hasOutput)
    reader.fail("args", "no argument with intent out or inout: nothing to check");

  for (const char *key : {"tolerance", "benchmark_tolerance"})
    if (auto *tolerance = root.if_contains(key)) {
      const std::string name = key;
      const auto &object = reader.object(*tolerance, name);
      Tolerance value;
      value.rtol = reader.number(reader.required(object, "rtol", name), name + ".rtol");
      value.atol = reader.number(reader.required(object, "atol", name), name + ".atol");
      if (value.rtol < 0 || value.atol < 0)
        reader.fail(name, "must not be negative");
      if (auto *scale = object.if_contains("atol_scale")) {
        const std::string kind = reader.string(*scale, name + ".atol_scale");
        if (kind != "rms" && kind != "absolute")
          reader.fail(name + ".atol_scale", "expected rms or absolute, got '" + kind + "'");
        value.absolute = kind == "absolute";
      }
      (name == "tolerance" ? task.tolerance : task.benchmarkTolerance) = value;
    }
  if (auto *memory = root.if_contains("memory"))
    task.memory = reader.choice(
        *memory, "memory",
        std::vector<std::pair<const char *, MemoryMode>>{{"device", MemoryMode::Device}, {"host", MemoryMode::Host}});
  if (auto *libraries = root.if_contains("allowed_libraries")) {
    const auto &list = reader.array(*libraries, "allowed_libraries");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string library = reader.string(list[i], "allowed_libraries[" + std::to_string(i) + "]");
      const auto &known = knownLibraries();
      if (std::find(known.begin(), known.end(), library) == known.end())
        reader.fail("allowed_libraries[" + std::to_string(i) + "]", "unknown library '" + library + "'");
      task.allowedLibraries.push_back(library);
    }
  }

  if (!directory) {
    // From text: the variants' expectations only.
    if (auto *variants = root.if_contains("variants"))
      for (const auto &[key, expectation] : reader.object(*variants, "variants")) {
        VariantSpec variant;
        variant.file = std::filesystem::path("variants") / std::string(key);
        const auto &object = reader.object(expectation, "variants." + std::string(key));
        variant.expectPass = object.contains("expect") && object.at("expect") == "pass";
        task.variants.push_back(variant);
      }
    return task;
  }
  task.reference = *directory / "reference.c";
  if (!std::filesystem::exists(task.reference))
    reader.fail("", "reference.c is missing beside task.json");
  if (std::filesystem::exists(*directory / "baseline.cu"))
    task.baseline = *directory / "baseline.cu";
  if (std::filesystem::exists(*directory / "baseline_eager.c"))
    task.eagerBaseline = *directory / "baseline_eager.c";
  if (task.eagerBaseline) {
    try {
      task.torchCompile = loadTorchCompileBaseline(*directory / "torch_compile.json");
    } catch (const TaskError &error) { // only reported, never rewarded: the task stands without it
      task.torchCompileProblem = error.what();
    }
  }
  if (auto *variants = root.if_contains("variants")) {
    for (const auto &[key, expectation] : reader.object(*variants, "variants")) {
      const std::string field = "variants." + std::string(key);
      VariantSpec variant;
      variant.file = *directory / "variants" / std::string(key);
      if (!std::filesystem::exists(variant.file))
        reader.fail(field, "file variants/" + std::string(key) + " does not exist");
      const auto &object = reader.object(expectation, field);
      const std::string expect = reader.string(reader.required(object, "expect", field), field + ".expect");
      if (expect != "pass" && expect != "fail")
        reader.fail(field + ".expect", "expected pass or fail, got '" + expect + "'");
      variant.expectPass = expect == "pass";
      if (auto *note = object.if_contains("note"))
        variant.note = reader.string(*note, field + ".note");
      task.variants.push_back(variant);
    }
  }
  return task;
}

} // namespace

TaskSpec loadTask(const std::filesystem::path &directory) {
  const std::filesystem::path file = directory / "task.json";
  // "tasks/vector_add/" names the folder too.
  std::filesystem::path normal = directory.lexically_normal();
  if (normal.filename().empty())
    normal = normal.parent_path();
  const std::string folderName = normal.filename().string();
  std::ifstream stream(file);
  if (!stream)
    TaskReader(folderName, file).fail("", "cannot read the file");
  std::stringstream contents;
  contents << stream.rdbuf();
  return buildTask(contents.str(), folderName, file, &directory);
}

TaskSpec parseTask(const std::string &taskJson, const std::string &folderName) {
  return buildTask(taskJson, folderName, "task.json", nullptr);
}

std::vector<std::optional<std::int64_t>> benchmarkEntryArguments(const TaskSpec &task) {
  std::vector<std::optional<std::int64_t>> values;
  for (const ArgumentSpec &arg : task.args) {
    std::optional<std::int64_t> value;
    if (!arg.pointer && !isFloating(arg.type)) {
      try {
        value = evaluateSizeExpression(arg.value, task.benchmarkSize);
      } catch (const TaskError &) {
        // loadTask checked every scalar against its sizes: not reached for a loaded task
      }
    }
    values.push_back(value);
  }
  return values;
}

std::size_t distributionCount(const TaskSpec &task) {
  std::size_t count = 1;
  for (const auto &arg : task.args)
    count = std::max(count, arg.init.size());
  return count;
}

std::vector<TaskSpec> loadSuite(const std::filesystem::path &root) {
  std::vector<std::filesystem::path> folders;
  for (const auto &entry : std::filesystem::directory_iterator(root))
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "task.json"))
      folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  std::vector<TaskSpec> tasks;
  for (const auto &folder : folders)
    tasks.push_back(loadTask(folder));
  return tasks;
}

} // namespace cudaperf
