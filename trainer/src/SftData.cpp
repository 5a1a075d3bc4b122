#include "cudaperf/trainer/SftData.h"

#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/trainer/KernelPrompt.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <boost/json.hpp>

#include "cudaperf/contracts/Utf8Text.h"

#include <map>
#include <set>
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

std::vector<json::object> refinementLinesOf(const std::vector<TaskSpec> &tasks,
                                            const std::vector<FailedAttempt> &attempts, std::size_t perTask) {
  std::map<std::string, std::vector<json::object>> targets; // each task's correct sources, as SFT's lines
  for (json::object &line : sftLinesOf(tasks))
    targets[std::string(line.at("task").as_string())].push_back(std::move(line));
  std::map<std::string, std::size_t> used;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<json::object> lines;
  for (const FailedAttempt &attempt : attempts) {
    const auto found = targets.find(attempt.task);
    if (found == targets.end() || found->second.empty() || attempt.feedback.empty() || used[attempt.task] >= perTask ||
        !seen.insert({attempt.task, attempt.source}).second)
      continue;
    json::object line = found->second[used[attempt.task]++ % found->second.size()];
    line["history"] = json::array{json::object{{"completion", fencedAnswer(attempt.source)},
                                               {"feedback", contracts::validUtf8(attempt.feedback)}}};
    line["variant"] = "refinement:" + std::string(line.at("variant").as_string());
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string sftPromptText(const json::object &line, bool chat) {
  const std::string prompt(line.at("prompt").as_string());
  const json::value *history = line.if_contains("history");
  if (!chat) {
    if (history)
      throw std::invalid_argument("a line with a \"history\" (a refinement pair) needs the chat template");
    return prompt;
  }
  std::vector<ChatMessage> messages;
  if (const json::value *system = line.if_contains("system")) {
    if (!system->is_string())
      throw std::invalid_argument("\"system\" must be a string");
    messages.push_back({"system", std::string(system->get_string())});
  }
  messages.push_back({"user", prompt});
  if (history) {
    if (!history->is_array())
      throw std::invalid_argument("\"history\" must be a list of {completion, feedback}");
    for (const json::value &exchange : history->get_array()) {
      const json::object *turn = exchange.if_object();
      const json::value *completion = turn ? turn->if_contains("completion") : nullptr;
      const json::value *feedback = turn ? turn->if_contains("feedback") : nullptr;
      if (!completion || !completion->is_string() || !feedback || !feedback->is_string())
        throw std::invalid_argument("\"history\": each exchange needs string \"completion\" and \"feedback\"");
      messages.push_back({"assistant", std::string(completion->get_string())});
      messages.push_back({"user", refinementMessage(std::string(feedback->get_string()))});
    }
  }
  return Tokenizer::chatPrompt(messages);
}

} // namespace cudaperf::trainer
