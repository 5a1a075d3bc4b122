#include "cudaperf/trainer/TrainingCheckpoint.h"

#include "cudaperf/trainer/Safetensors.h"
#include "cudaperf/contracts/TextFile.h"

#include <boost/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace cudaperf::trainer {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// Written beside, then renamed: a crash leaves the previous file whole.
void writeAtomically(const fs::path &path, const std::string &text) {
  {
    std::ofstream out(path.string() + ".partial", std::ios::trunc);
    out << text;
  }
  fs::rename(path.string() + ".partial", path);
}

} // namespace

void saveTrainingCheckpoint(const std::string &outDir, std::int64_t step, const PolicyModel &model,
                            const AdamW &optimizer, const std::string &tokenizerFolder, const std::string &configJson) {
  const std::string name = "step-" + std::to_string(step);
  const fs::path folder = fs::path(outDir) / name;
  fs::create_directories(folder);
  model.save(folder.string()); // the merged weights when there are adapters
  if (model.hasLora())
    model.saveLora((folder / "lora.safetensors").string());
  std::error_code ignored; // a model without a tokenizer still checkpoints
  fs::copy_file(fs::path(tokenizerFolder) / "tokenizer.json", folder / "tokenizer.json",
                fs::copy_options::overwrite_existing, ignored);
  std::vector<torch::Tensor> keep;
  std::vector<TensorToWrite> tensors;
  for (const auto &[key, tensor] : optimizer.state()) {
    keep.push_back(tensor.detach().to(torch::kCPU, torch::kFloat32).contiguous());
    tensors.push_back({key, TensorDtype::F32, keep.back().sizes().vec(), keep.back().data_ptr(),
                       static_cast<std::size_t>(keep.back().numel()) * sizeof(float)});
  }
  writeSafetensors((folder / "optimizer.safetensors").string(), tensors);
  writeAtomically(folder / "trainer_state.json",
                  json::serialize(json::object{
                      {"step", step}, {"optimizer_steps", optimizer.steps()}, {"config", json::parse(configJson)}}) +
                      "\n");
  writeAtomically(fs::path(outDir) / "latest", name + "\n");
}

std::string resolveResume(const std::string &outDir, const std::string &resume) {
  if (resume != "latest")
    return resume;
  const fs::path latest = fs::path(outDir) / "latest";
  if (!fs::exists(latest))
    return ""; // nothing to resume yet: a fresh run
  std::string name = readTextFile(latest.string());
  while (!name.empty() && (name.back() == '\n' || name.back() == ' '))
    name.pop_back();
  if (name.empty())
    throw std::runtime_error(latest.string() + " names no checkpoint");
  return (fs::path(outDir) / name).string();
}

std::int64_t loadTrainingCheckpoint(const std::string &folder, AdamW &optimizer, torch::Device device) {
  const fs::path statePath = fs::path(folder) / "trainer_state.json";
  if (!fs::exists(statePath))
    throw std::runtime_error(folder + ": no trainer_state.json (not a checkpoint of cudaperf-train)");
  const json::object state = json::parse(readTextFile(statePath.string())).as_object();
  auto file = SafetensorsFile::open((fs::path(folder) / "optimizer.safetensors").string());
  std::map<std::string, torch::Tensor> tensors;
  for (const auto &[name, view] : file->tensors()) {
    torch::Tensor t = torch::empty(view.shape, torch::kFloat32);
    std::memcpy(t.data_ptr(), view.data, view.bytes);
    tensors[name] = t.to(device);
  }
  optimizer.loadState(tensors, state.at("optimizer_steps").to_number<std::int64_t>());
  return state.at("step").to_number<std::int64_t>();
}

} // namespace cudaperf::trainer
