// What the policy sees: the first turn's prompt built from a task of the suite
// (description, entry signature, argument table, sizes, reference C), a
// refinement turn's message (the daemon's feedback on the previous attempt),
// and the code taken out of a completion. A multi-turn conversation is kept as
// token ids: a turn's context is the previous turns' ids plus the new
// feedback's ids, never a re-tokenisation of earlier text. No LibTorch here.
#pragma once

#include "cudaperf/contracts/TaskSpec.h"
#include "cudaperf/trainer/Tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::trainer {

extern const char *const kKernelSystemPrompt;

// The user message of turn 1.
std::string taskMessage(const TaskSpec &task);
// The context turn 1 is sampled from: the chat template over the system
// prompt and taskMessage, up to the assistant's header.
std::string firstTurnContext(const TaskSpec &task);
// A source as the policy is asked to answer: one ```cuda block
// (extractKernelSource gives the source back).
std::string fencedAnswer(const std::string &source);
// The user message of a refinement turn.
std::string refinementMessage(const std::string &feedback);

// The CUDA source in a completion: the last fenced block tagged cuda, cu, c++,
// cpp or c (or untagged); the whole text when there is none.
std::string extractKernelSource(const std::string &completion);

// One trajectory: ids, and which of them the policy wrote (the loss mask).
class Conversation {
public:
  Conversation(const Tokenizer &tokenizer, const TaskSpec &task);
  const std::vector<std::int64_t> &ids() const { return ids_; }
  // 1 where the policy wrote the token (its completions), 0 for the prompt and feedback.
  const std::vector<std::uint8_t> &policyMask() const { return mask_; }
  // Which turn (1, 2, ...) wrote each token; 0 for context.
  const std::vector<std::int32_t> &turnOf() const { return turnOf_; }
  int turns() const { return turns_; }
  // The policy's completion of the current turn, as sampled (its ids as they are).
  void addCompletion(const std::vector<std::int64_t> &completion);
  // The daemon's feedback on the last completion: closes the assistant message
  // (unless the completion already ended with <|im_end|>) and opens the next turn.
  void addFeedback(const std::string &feedback);

private:
  const Tokenizer &tokenizer_;
  std::vector<std::int64_t> ids_;
  std::vector<std::uint8_t> mask_;
  std::vector<std::int32_t> turnOf_;
  int turns_ = 0;
  std::int64_t endOfMessage_ = -1;
  void appendContext(const std::string &text);
};

} // namespace cudaperf::trainer
