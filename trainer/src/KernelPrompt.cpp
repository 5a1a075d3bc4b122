#include "cudaperf/trainer/KernelPrompt.h"

#include "cudaperf/contracts/TextFile.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudaperf::trainer {

const char *const kKernelSystemPrompt =
    "You write correct and fast CUDA kernels. Answer with one complete .cu file in a single ```cuda code block: "
    "it defines the requested extern \"C\" entry function, which launches your own kernels.";

namespace {

std::string sizesText(const SizeBinding &sizes) {
  std::string out;
  for (const auto &[name, value] : sizes)
    out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return out;
}

const char *intentText(Intent intent) {
  return intent == Intent::In ? "input" : intent == Intent::Out ? "output" : "input and output";
}

} // namespace

std::string taskMessage(const TaskSpec &task) {
  std::ostringstream out;
  out << "Task: " << task.name << "\n"
      << task.description << "\n\nImplement:\n"
      << task.signature << "\n\nArguments:\n";
  for (const auto &arg : task.args) {
    out << "- " << arg.name << ": " << toString(arg.type) << (arg.pointer ? "*" : "");
    if (arg.pointer)
      out << ", " << intentText(arg.intent) << ", " << arg.size << " elements";
    else
      out << " = " << arg.value;
    out << "\n";
  }
  out << "\nCorrectness is checked at ";
  for (std::size_t i = 0; i < task.correctnessSizes.size(); ++i)
    out << (i ? "; " : "") << sizesText(task.correctnessSizes[i]);
  out << " and the time is measured at " << sizesText(task.benchmarkSize) << ".\n";
  out << (task.memory == MemoryMode::Device ? "Pointers are device memory; the call must leave its results there.\n"
                                            : "Pointers are host memory.\n");
  out << "\nReference implementation (C):\n```c\n" << readTextFile(task.reference.string()) << "```\n";
  return out.str();
}

std::string firstTurnContext(const TaskSpec &task) {
  return Tokenizer::chatPrompt({{"system", kKernelSystemPrompt}, {"user", taskMessage(task)}});
}

std::string fencedAnswer(const std::string &source) {
  return "```cuda\n" + source + (source.empty() || source.back() != '\n' ? "\n" : "") + "```";
}

std::string refinementMessage(const std::string &feedback) {
  return "The evaluation of your previous answer:\n" + feedback +
         "\n\nWrite an improved version: fix anything wrong first, then make it faster. Answer with the complete "
         ".cu file in one ```cuda code block.";
}

std::string extractKernelSource(const std::string &completion) {
  std::string found;
  bool any = false;
  std::size_t at = 0;
  while ((at = completion.find("```", at)) != std::string::npos) {
    const std::size_t lineEnd = completion.find('\n', at);
    if (lineEnd == std::string::npos)
      break;
    std::string tag = completion.substr(at + 3, lineEnd - at - 3);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\r'))
      tag.pop_back();
    const std::size_t close = completion.find("```", lineEnd + 1);
    const bool code = tag.empty() || tag == "cuda" || tag == "cu" || tag == "c++" || tag == "cpp" || tag == "c";
    if (code) {
      // An unclosed block (the completion ran out of tokens) runs to the end.
      found = completion.substr(lineEnd + 1, close == std::string::npos ? std::string::npos : close - lineEnd - 1);
      any = true;
    }
    if (close == std::string::npos)
      break;
    at = close + 3;
  }
  return any ? found : completion;
}

Conversation::Conversation(const Tokenizer &tokenizer, const TaskSpec &task) : tokenizer_(tokenizer) {
  if (auto id = tokenizer.tokenId("<|im_end|>"))
    endOfMessage_ = *id;
  appendContext(firstTurnContext(task));
}

void Conversation::appendContext(const std::string &text) {
  for (auto id : tokenizer_.encode(text)) {
    ids_.push_back(id);
    mask_.push_back(0);
    turnOf_.push_back(0);
  }
}

void Conversation::addCompletion(const std::vector<std::int64_t> &completion) {
  ++turns_;
  for (auto id : completion) {
    ids_.push_back(id);
    mask_.push_back(1);
    turnOf_.push_back(turns_);
  }
}

void Conversation::addFeedback(const std::string &feedback) {
  const bool closed = !ids_.empty() && mask_.back() == 1 && ids_.back() == endOfMessage_;
  appendContext(std::string(closed ? "" : "<|im_end|>") + "\n" +
                Tokenizer::chatPrompt({{"user", refinementMessage(feedback)}}));
}

} // namespace cudaperf::trainer
