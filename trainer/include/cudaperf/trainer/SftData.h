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

// The text before the completion of an SFT line: with `chat`, the chat
// template over its "system" (optional) and "prompt" messages, up to the
// assistant's header; else the prompt as it is. Throws std::invalid_argument
// for a "system" that is not a string.
std::string sftPromptText(const boost::json::object &line, bool chat);

} // namespace cudaperf::trainer
