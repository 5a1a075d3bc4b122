// Supervised pairs from the task suite: each task's first-turn prompt (the
// system prompt and the task message GRPO samples turn 1 from) with each of
// its correct sources (baseline.cu and the variants task.json expects to pass)
// as a fenced answer. The SFT trainer builds the prompt text from a line the
// same way (sftPromptText), so SFT and GRPO condition on the same tokens.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace cudaperf::trainer {

// One line per correct source of each task, in task order then baseline.cu
// first, variants in task.json's order: {"task", "variant", "system",
// "prompt", "completion"}.
std::vector<boost::json::object> sftLinesOf(const std::vector<TaskSpec> &tasks);

// A failed first attempt, as GRPO or eval logged it (completions.jsonl: the
// task, the source sent and the daemon's feedback on it).
struct FailedAttempt {
  std::string task;
  std::string source;
  std::string feedback;
};

// Refinement pairs: for each failed attempt at one of `tasks` (at most
// `perTask` of each task, in the order given; the same task and source once),
// the first-turn prompt, the attempt and its feedback as an earlier exchange
// ("history": [{"completion", "feedback"}]), and one of the task's correct
// sources as the completion (the task's sftLinesOf targets in turn). What a
// refinement turn of GRPO conditions on, so a policy that never saw one
// learns to answer it. {"task", "variant", "system", "prompt", "history",
// "completion"}.
std::vector<boost::json::object> refinementLinesOf(const std::vector<TaskSpec> &tasks,
                                                   const std::vector<FailedAttempt> &attempts, std::size_t perTask);

// The text before the completion of an SFT line: with `chat`, the chat
// template over its "system" (optional) and "prompt" messages, then each
// "history" exchange (the attempt as the assistant's message, the feedback
// as the user's refinement message, as Conversation::addFeedback writes it),
// up to the assistant's header; else the prompt as it is (a line with a
// history needs `chat`). Throws std::invalid_argument for a "system" that is
// not a string or a malformed history.
std::string sftPromptText(const boost::json::object &line, bool chat);

} // namespace cudaperf::trainer
