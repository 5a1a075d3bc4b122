// cudaperf-train sft-data: the SFT pairs of a set of tasks (SftData.h), one
// JSON line each, written whole (a .partial file renamed into place); with
// --refinements, refinement pairs after them, made from the failed attempts
// that GRPO or eval logged (completions.jsonl), their feedback as the daemon
// gave it (asked again from --feedback-daemon where a record lacks it).
#include "cudaperf/trainer/Commands.h"

#include "cudaperf/contracts/TextFile.h"
#include "cudaperf/trainer/CommandFlags.h"
#include "cudaperf/trainer/RewardClient.h"
#include "cudaperf/trainer/SftData.h"
#include "cudaperf/trainer/TaskSelection.h"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace cudaperf {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// Verdicts of an attempt that a refinement turn would answer (not the
// machine's, which say nothing of the attempt; not refused requests).
bool failedAttempt(const std::string &status) {
  return status == "compile_error" || status == "wrong_answer" || status == "runtime_error" || status == "timeout" ||
         status == "rejected";
}

// The failed attempts at one of `tasks` in completion records, in file
// order, each task's source once; those without a feedback get it from the
// daemon at `daemon` ("" : left out).
std::vector<trainer::FailedAttempt> failedAttemptsIn(const std::vector<std::string> &files,
                                                     const std::set<std::string> &tasks, const std::string &daemon,
                                                     std::size_t &askedAgain, std::size_t &withoutFeedback) {
  std::vector<trainer::FailedAttempt> attempts;
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<std::size_t> missing;
  for (const std::string &file : files) {
    std::istringstream lines(readTextFile(file));
    std::size_t number = 0;
    for (std::string text; std::getline(lines, text);) {
      ++number;
      if (text.empty())
        continue;
      json::value parsed;
      try {
        parsed = json::parse(text);
      } catch (const std::exception &error) {
        throw std::invalid_argument(file + ":" + std::to_string(number) + ": not JSON: " + error.what());
      }
      const json::object *record = parsed.if_object();
      const json::value *status = record ? record->if_contains("status") : nullptr;
      const json::value *task = record ? record->if_contains("task") : nullptr;
      const json::value *source = record ? record->if_contains("source") : nullptr;
      if (!status || !status->is_string() || !failedAttempt(std::string(status->get_string())) || !task ||
          !task->is_string() || !source || !source->is_string() || !tasks.count(std::string(task->get_string())) ||
          !seen.insert({std::string(task->get_string()), std::string(source->get_string())}).second)
        continue; // passed, the machine's, logged without its source, another task's, or seen already
      const json::value *feedback = record->if_contains("feedback");
      attempts.push_back({std::string(task->get_string()), std::string(source->get_string()),
                          feedback && feedback->is_string() ? std::string(feedback->get_string()) : ""});
      if (attempts.back().feedback.empty())
        missing.push_back(attempts.size() - 1);
    }
  }
  if (!daemon.empty() && !missing.empty()) {
    trainer::RewardClientOptions options;
    options.urls = {daemon};
    trainer::RewardClient client(options);
    std::vector<trainer::RewardRequest> requests;
    for (std::size_t index : missing)
      requests.push_back({attempts[index].task, attempts[index].source, 1});
    const auto answers = client.evaluateAll(requests);
    for (std::size_t k = 0; k < missing.size(); ++k)
      if (answers[k].ok && failedAttempt(answers[k].status)) // judged the same way again: its feedback stands
        attempts[missing[k]].feedback = answers[k].feedback;
    askedAgain = missing.size();
  }
  for (const auto &attempt : attempts)
    withoutFeedback += attempt.feedback.empty();
  return attempts;
}

} // namespace

int sftDataCommand(const std::vector<std::string> &args) {
  const Flags flags =
      parseFlags(args, {"tasks-dir", "tasks", "out", "refinements", "refinements-per-task", "feedback-daemon"});
  const std::string out = textFlag(flags, "out");
  if (out.empty())
    throw std::invalid_argument("--out FILE.jsonl is required");
  const std::vector<TaskSpec> tasks =
      trainer::loadTasks(textFlag(flags, "tasks-dir", "tasks"), commaList(textFlag(flags, "tasks")));
  auto lines = trainer::sftLinesOf(tasks);
  const std::size_t firstTurnLines = lines.size();
  std::size_t askedAgain = 0, withoutFeedback = 0, attemptsRead = 0;
  if (!flags.count("refinements") && (flags.count("refinements-per-task") || flags.count("feedback-daemon")))
    throw std::invalid_argument("--refinements-per-task and --feedback-daemon go with --refinements LOGS");
  if (flags.count("refinements")) {
    const double perTask = numberFlag(flags, "refinements-per-task", 8);
    if (!(perTask >= 1 && perTask <= 1e6))
      throw std::invalid_argument("--refinements-per-task must be from 1 to 1000000");
    std::set<std::string> names;
    for (const TaskSpec &task : tasks)
      names.insert(task.name);
    const auto attempts = failedAttemptsIn(commaList(textFlag(flags, "refinements")), names,
                                           textFlag(flags, "feedback-daemon"), askedAgain, withoutFeedback);
    attemptsRead = attempts.size();
    for (auto &line : trainer::refinementLinesOf(tasks, attempts, static_cast<std::size_t>(perTask)))
      lines.push_back(std::move(line));
  }
  const std::string partial = out + ".partial";
  {
    std::ofstream file(partial, std::ios::trunc);
    for (const auto &line : lines)
      file << boost::json::serialize(line) << "\n";
    if (!file.flush())
      throw std::runtime_error(partial + ": cannot write");
  }
  fs::rename(partial, out);
  std::cout << firstTurnLines << " pairs of " << tasks.size() << " tasks";
  if (flags.count("refinements"))
    std::cout << " and " << lines.size() - firstTurnLines << " refinement pairs (" << attemptsRead
              << " failed attempts at these tasks read, " << askedAgain << " asked again for their feedback, "
              << withoutFeedback << " left without one)";
  std::cout << " -> " << out << "\n";
  return 0;
}

} // namespace cudaperf
