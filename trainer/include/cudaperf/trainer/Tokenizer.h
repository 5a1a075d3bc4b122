// Byte-level BPE as Qwen2/Qwen3, Llama 3 and GPT-2 use it, read from a
// Hugging Face tokenizer.json: added and special tokens matched first, an
// optional NFC normalizer, the pre-tokenizer's split pattern (PCRE2 with UTF
// and UCP, JIT-compiled), the byte-to-unicode map, merges by rank; decode
// maps back to bytes. No LibTorch here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::trainer {

struct ChatMessage {
  std::string role; // system, user, assistant
  std::string content;
};

class Tokenizer {
public:
  // Throws std::runtime_error naming the file (and the field) on anything it cannot use.
  static Tokenizer fromFile(const std::string &path);
  static Tokenizer fromJsonText(const std::string &text, const std::string &origin);
  // model folder: its tokenizer.json
  static Tokenizer fromFolder(const std::string &folder);
  Tokenizer(Tokenizer &&) noexcept;
  Tokenizer &operator=(Tokenizer &&) noexcept;
  ~Tokenizer();

  // Added tokens (special or not) are matched in the raw text before anything
  // else, leftmost and longest first; no special tokens are added around the text.
  std::vector<std::int32_t> encode(const std::string &text) const;
  // Special added tokens are dropped when skipSpecial; bytes that do not form
  // UTF-8 come back as they are (the caller may hold half a character).
  std::string decode(const std::vector<std::int32_t> &ids, bool skipSpecial = false) const;

  std::optional<std::int32_t> tokenId(const std::string &token) const;
  std::int64_t vocabSize() const; // the largest id + 1
  bool isSpecial(std::int32_t id) const;
  // Whether an NFC normalizer was asked for but this build has no ICU to apply it.
  bool normalizerSkipped() const;

  // The Qwen chat template (ChatML): each message as
  // "<|im_start|>{role}\n{content}<|im_end|>\n", then "<|im_start|>assistant\n"
  // when a reply is to be generated.
  static std::string chatPrompt(const std::vector<ChatMessage> &messages, bool addGenerationPrompt = true);

private:
  struct State;
  explicit Tokenizer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

} // namespace cudaperf::trainer
