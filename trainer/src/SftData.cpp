#include "cudaperf/trainer/SftData.h"

#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/trainer/KernelPrompt.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <boost/json.hpp>

#include <stdexcept>

namespace cudaperf::trainer {

namespace json = boost::json;

std::vector<json::object> sftLinesOf(const std::vector<TaskSpec> &tasks) {
  std::vector<json::object> lines;
  for (const TaskSpec &task : tasks) {
    const std::string prompt = taskMessage(task);
    auto add = [&](const std::string &label, const std::filesystem::path &file) {
      lines.push_back({{"task", task.name},
                       {"variant", label},
                       {"system", kKernelSystemPrompt},
                       {"prompt", prompt},
                       {"completion", fencedAnswer(readTextFile(file.string()))}});
    };
    if (task.baseline)
      add("baseline.cu", *task.baseline);
    for (const VariantSpec &variant : task.variants)
      if (variant.expectPass) // a variant written to fail (a wrong answer, a race) is never a target
        add("variants/" + variant.file.filename().string(), variant.file);
  }
  return lines;
}

std::string sftPromptText(const json::object &line, bool chat) {
  const std::string prompt(line.at("prompt").as_string());
  if (!chat)
    return prompt;
  std::vector<ChatMessage> messages;
  if (const json::value *system = line.if_contains("system")) {
    if (!system->is_string())
      throw std::invalid_argument("\"system\" must be a string");
    messages.push_back({"system", std::string(system->get_string())});
  }
  messages.push_back({"user", prompt});
  return Tokenizer::chatPrompt(messages);
}

} // namespace cudaperf::trainer
