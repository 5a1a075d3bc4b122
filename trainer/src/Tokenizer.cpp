#include "cudaperf/trainer/Tokenizer.h"

#include "cudaperf/contracts/TextFile.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <boost/json.hpp>

#ifdef CUDAPERF_HAVE_ICU
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#endif

#include <algorithm>
#include <fstream>
#include <functional>
#include <mutex>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace cudaperf::trainer {
namespace json = boost::json;

namespace {

// GPT-2's split pattern: what ByteLevel with use_regex applies.
constexpr const char *kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Tokens of a piece are cached: source code repeats its words.
constexpr std::size_t kCacheEntries = 1 << 18;

void appendUtf8(std::string &out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Valid UTF-8 (token strings are): one code point from s[i], i advanced.
std::uint32_t nextCodePoint(const std::string &s, std::size_t &i) {
  const auto c = static_cast<unsigned char>(s[i]);
  int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  std::uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
  ++i;
  for (; extra > 0 && i < s.size(); --extra, ++i)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  return cp;
}

// A compiled pattern; matches ranges of a subject, each gap between matches a range too.
class Pattern {
public:
  Pattern(const std::string &source, const std::string &origin) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.c_str()), source.size(),
                          PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr);
    if (!code_) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error, message, sizeof message);
      throw std::runtime_error(origin + ": the pre-tokenizer pattern does not compile at offset " +
                               std::to_string(offset) + ": " + reinterpret_cast<const char *>(message));
    }
    pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE); // falls back to the interpreter where JIT is missing
  }
  ~Pattern() { pcre2_code_free(code_); }
  Pattern(const Pattern &) = delete;
  Pattern &operator=(const Pattern &) = delete;

  // Calls piece(begin, end, matched) for consecutive ranges covering [0, size).
  template <typename Piece> void split(const char *subject, std::size_t size, Piece &&piece) const {
    pcre2_match_data *match = pcre2_match_data_create_from_pattern(code_, nullptr);
    std::size_t at = 0;
    while (at < size) {
      const int found = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(subject), size, at, 0, match, nullptr);
      if (found < 0)
        break;
      const PCRE2_SIZE *range = pcre2_get_ovector_pointer(match);
      std::size_t begin = range[0], end = range[1];
      if (end == begin) { // an empty match: skip one character (all its bytes), never loop
        end = begin + 1;
        while (end < size && (static_cast<unsigned char>(subject[end]) & 0xC0) == 0x80)
          ++end;
        if (begin > at)
          piece(at, begin, false);
        piece(begin, std::min(end, size), false);
        at = end;
        continue;
      }
      if (begin > at)
        piece(at, begin, false);
      piece(begin, end, true);
      at = end;
    }
    if (at < size)
      piece(at, size, false);
    pcre2_match_data_free(match);
  }

private:
  pcre2_code *code_ = nullptr;
};

std::string escapeForPattern(const std::string &literal) {
  std::string out;
  for (unsigned char c : literal) {
    if (c < 0x80 && !std::isalnum(c))
      out += '\\';
    out += static_cast<char>(c);
  }
  return out;
}

struct PreStep {
  enum class Kind { Split, ByteLevel, Digits } kind;
  std::unique_ptr<Pattern> pattern; // Split; ByteLevel with use_regex
  bool individualDigits = false;
};

} // namespace

struct Tokenizer::State {
  std::string origin;
  std::unordered_map<std::string, std::int32_t> vocab;
  std::unordered_map<std::int32_t, std::string> idToToken;
  struct Merge {
    std::int32_t rank, merged;
  };
  std::unordered_map<std::uint64_t, Merge> merges;
  std::string byteToText[256]; // byte -> its byte-level character (UTF-8)
  std::int32_t byteToId[256];  // its id, or -1
  std::unordered_map<std::uint32_t, std::uint8_t> codePointToByte;
  std::unordered_map<std::string, std::int32_t> added;
  std::unordered_map<std::int32_t, std::pair<std::string, bool>> addedById; // content, special
  std::unique_ptr<Pattern> addedPattern;
  std::vector<PreStep> preSteps;
  bool nfc = false, ignoreMerges = false;
  bool prefixSpace = false; // ByteLevel's add_prefix_space: each segment starts with a space
  std::optional<std::int32_t> unknown;
  std::int64_t size = 0;
  mutable std::mutex cacheMutex;
  mutable std::unordered_map<std::string, std::vector<std::int32_t>> cache;

  [[noreturn]] void fail(const std::string &what) const { throw std::runtime_error(origin + ": " + what); }

  void bytePiece(const std::string &piece, std::vector<std::int32_t> &out) const;
  void preTokenize(const std::string &segment, std::vector<std::int32_t> &out) const;
  std::string normalize(const std::string &text) const;
};

// ------------------------------------------------------------------ loading

Tokenizer::Tokenizer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Tokenizer::Tokenizer(Tokenizer &&) noexcept = default;
Tokenizer &Tokenizer::operator=(Tokenizer &&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::fromFolder(const std::string &folder) { return fromFile(folder + "/tokenizer.json"); }

Tokenizer Tokenizer::fromFile(const std::string &path) { return fromJsonText(readTextFile(path), path); }

Tokenizer Tokenizer::fromJsonText(const std::string &text, const std::string &origin) {
  auto state = std::make_unique<State>();
  State &s = *state;
  s.origin = origin;
  json::value parsed;
  try {
    parsed = json::parse(text);
  } catch (const std::exception &error) {
    s.fail(std::string("not JSON: ") + error.what());
  }
  if (!parsed.is_object())
    s.fail("not a JSON object");
  const auto &root = parsed.as_object();
  const auto *model = root.if_contains("model");
  if (!model || !model->is_object())
    s.fail("no 'model'");
  const auto &m = model->as_object();
  if (const auto *type = m.if_contains("type"); type && type->is_string() && type->as_string() != "BPE")
    s.fail("model type '" + std::string(type->as_string()) + "' is not BPE");
  const auto *vocab = m.if_contains("vocab");
  if (!vocab || !vocab->is_object())
    s.fail("no model.vocab object");
  for (const auto &[token, id] : vocab->as_object()) {
    if (!id.is_int64() && !id.is_uint64())
      s.fail("model.vocab['" + std::string(token) + "'] is not an integer id");
    const auto value = static_cast<std::int32_t>(id.to_number<std::int64_t>());
    s.vocab[std::string(token)] = value;
    s.idToToken[value] = std::string(token);
    s.size = std::max<std::int64_t>(s.size, value + 1);
  }
  if (const auto *flag = m.if_contains("ignore_merges"); flag && flag->is_bool())
    s.ignoreMerges = flag->as_bool();
  // What this tokenizer does not do is refused, never silently ignored.
  if (const auto *flag = m.if_contains("byte_fallback"); flag && flag->is_bool() && flag->as_bool())
    s.fail("model.byte_fallback is not supported (a byte-level BPE needs none)");
  if (const auto *dropout = m.if_contains("dropout"); dropout && !dropout->is_null())
    s.fail("model.dropout is not supported (encoding must be deterministic)");
  for (const char *key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const auto *affix = m.if_contains(key); affix && affix->is_string() && !affix->as_string().empty())
      s.fail(std::string("model.") + key + " is not supported");
  if (const auto *unk = m.if_contains("unk_token"); unk && unk->is_string())
    if (auto it = s.vocab.find(std::string(unk->as_string())); it != s.vocab.end())
      s.unknown = it->second;

  const auto *merges = m.if_contains("merges");
  if (!merges || !merges->is_array())
    s.fail("no model.merges array");
  std::int32_t rank = 0;
  for (const auto &merge : merges->as_array()) {
    std::string left, right;
    if (merge.is_string()) { // "a b" (older files)
      const std::string pair(merge.as_string());
      const auto space = pair.find(' ', 1);
      if (space == std::string::npos)
        s.fail("merge " + std::to_string(rank) + " ('" + pair + "') is not two tokens");
      left = pair.substr(0, space), right = pair.substr(space + 1);
    } else if (merge.is_array() && merge.as_array().size() == 2 && merge.as_array()[0].is_string() &&
               merge.as_array()[1].is_string()) { // ["a", "b"] (newer files)
      left = std::string(merge.as_array()[0].as_string()), right = std::string(merge.as_array()[1].as_string());
    } else {
      s.fail("merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\", \"b\"]");
    }
    auto a = s.vocab.find(left), b = s.vocab.find(right), ab = s.vocab.find(left + right);
    if (a == s.vocab.end() || b == s.vocab.end() || ab == s.vocab.end())
      s.fail("merge " + std::to_string(rank) + " ('" + left + "' '" + right + "') names a token not in the vocab");
    const std::uint64_t key = (static_cast<std::uint64_t>(a->second) << 32) | static_cast<std::uint32_t>(b->second);
    s.merges.emplace(key, State::Merge{rank, ab->second}); // the first (lowest) rank wins
    ++rank;
  }

  // GPT-2's byte-to-unicode map: printable bytes stand for themselves, the others from U+0100 on.
  int shifted = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    const std::uint32_t cp = printable ? static_cast<std::uint32_t>(b) : 256 + shifted++;
    s.byteToText[b].clear();
    appendUtf8(s.byteToText[b], cp);
    s.codePointToByte[cp] = static_cast<std::uint8_t>(b);
    auto it = s.vocab.find(s.byteToText[b]);
    s.byteToId[b] = it == s.vocab.end() ? -1 : it->second;
  }

  if (const auto *addedTokens = root.if_contains("added_tokens"); addedTokens && addedTokens->is_array()) {
    std::vector<std::string> contents;
    for (const auto &entry : addedTokens->as_array()) {
      if (!entry.is_object())
        s.fail("an added_tokens entry is not an object");
      const auto &token = entry.as_object();
      const auto *id = token.if_contains("id");
      const auto *content = token.if_contains("content");
      if (!id || !id->is_number() || !content || !content->is_string() || content->as_string().empty())
        s.fail("an added_tokens entry has no id or content");
      const auto value = static_cast<std::int32_t>(id->to_number<std::int64_t>());
      const std::string text(content->as_string());
      for (const char *key : {"lstrip", "rstrip", "single_word"})
        if (const auto *flag = token.if_contains(key); flag && flag->is_bool() && flag->as_bool())
          s.fail("added token '" + std::string(content->as_string()) + "': " + key + " is not supported");
      const auto *special = token.if_contains("special");
      s.added[text] = value;
      s.addedById[value] = {text, special && special->is_bool() && special->as_bool()};
      s.size = std::max<std::int64_t>(s.size, value + 1);
      contents.push_back(text);
    }
    if (!contents.empty()) {
      // Longest first: an alternation takes the first alternative that matches.
      std::sort(contents.begin(), contents.end(),
                [](const auto &a, const auto &b) { return a.size() != b.size() ? a.size() > b.size() : a < b; });
      std::string alternation;
      for (const auto &content : contents)
        alternation += (alternation.empty() ? "" : "|") + escapeForPattern(content);
      s.addedPattern = std::make_unique<Pattern>(alternation, origin);
    }
  }

  // The normalizer: none or NFC (what Qwen ships).
  std::function<void(const json::value &)> normalizer = [&](const json::value &value) {
    if (value.is_null())
      return;
    const auto *type = value.is_object() ? value.as_object().if_contains("type") : nullptr;
    const std::string kind = type && type->is_string() ? std::string(type->as_string()) : "";
    if (kind == "NFC") {
      s.nfc = true;
    } else if (kind == "Sequence") {
      for (const auto &step : value.as_object().at("normalizers").as_array())
        normalizer(step);
    } else {
      s.fail("normalizer '" + kind + "' is not supported (NFC and none are)");
    }
  };
  if (const auto *value = root.if_contains("normalizer"))
    normalizer(*value);

  bool byteLevel = false;
  std::function<void(const json::value &)> preTokenizer = [&](const json::value &value) {
    if (value.is_null())
      return;
    const auto *type = value.is_object() ? value.as_object().if_contains("type") : nullptr;
    const std::string kind = type && type->is_string() ? std::string(type->as_string()) : "";
    const auto &object = value.as_object();
    if (kind == "Sequence") {
      for (const auto &step : object.at("pretokenizers").as_array())
        preTokenizer(step);
    } else if (kind == "Split") {
      const auto *pattern = object.if_contains("pattern");
      const auto *behavior = object.if_contains("behavior");
      const auto *invert = object.if_contains("invert");
      if (behavior && behavior->is_string() && behavior->as_string() != "Isolated")
        s.fail("Split behavior '" + std::string(behavior->as_string()) + "' is not supported (Isolated is)");
      if (invert && invert->is_bool() && invert->as_bool())
        s.fail("an inverted Split is not supported");
      std::string source;
      if (pattern && pattern->is_object() && pattern->as_object().if_contains("Regex"))
        source = std::string(pattern->as_object().at("Regex").as_string());
      else if (pattern && pattern->is_object() && pattern->as_object().if_contains("String"))
        source = escapeForPattern(std::string(pattern->as_object().at("String").as_string()));
      else
        s.fail("a Split pre-tokenizer has no Regex or String pattern");
      PreStep step{PreStep::Kind::Split, std::make_unique<Pattern>(source, origin)};
      s.preSteps.push_back(std::move(step));
    } else if (kind == "ByteLevel") {
      byteLevel = true;
      PreStep step{PreStep::Kind::ByteLevel, nullptr};
      const auto *prefix = object.if_contains("add_prefix_space");
      s.prefixSpace = prefix && prefix->is_bool() && prefix->as_bool();
      const auto *regex = object.if_contains("use_regex");
      if (!regex || !regex->is_bool() || regex->as_bool())
        step.pattern = std::make_unique<Pattern>(kGpt2Pattern, origin);
      s.preSteps.push_back(std::move(step));
    } else if (kind == "Digits") {
      PreStep step{PreStep::Kind::Digits, nullptr};
      const auto *individual = object.if_contains("individual_digits");
      step.individualDigits = individual && individual->is_bool() && individual->as_bool();
      step.pattern = std::make_unique<Pattern>(step.individualDigits ? R"(\p{N})" : R"(\p{N}+)", origin);
      s.preSteps.push_back(std::move(step));
    } else {
      s.fail("pre-tokenizer '" + kind + "' is not supported (Sequence, Split, ByteLevel and Digits are)");
    }
  };
  if (const auto *value = root.if_contains("pre_tokenizer"))
    preTokenizer(*value);
  if (!byteLevel)
    s.fail("not a byte-level BPE tokenizer (no ByteLevel pre-tokenizer)");
  return Tokenizer(std::move(state));
}

// ----------------------------------------------------------------- encoding

std::string Tokenizer::State::normalize(const std::string &text) const {
  if (!nfc || std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return text;
#ifdef CUDAPERF_HAVE_ICU
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2 *nfcForm = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status))
    return text;
  icu::UnicodeString normalized = nfcForm->normalize(icu::UnicodeString::fromUTF8(text), status);
  if (U_FAILURE(status))
    return text;
  std::string out;
  normalized.toUTF8String(out);
  return out;
#else
  return text;
#endif
}

// One pre-token's bytes -> ids: its byte-level characters merged by rank,
// the lowest rank first, the leftmost of equal ranks first.
void Tokenizer::State::bytePiece(const std::string &piece, std::vector<std::int32_t> &out) const {
  {
    std::lock_guard lock(cacheMutex);
    if (auto it = cache.find(piece); it != cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<std::int32_t> ids;
  std::string mapped;
  for (unsigned char b : piece)
    mapped += byteToText[b];
  if (auto whole = ignoreMerges ? vocab.find(mapped) : vocab.end(); whole != vocab.end()) {
    ids.push_back(whole->second);
  } else {
    std::vector<std::int32_t> symbol;
    for (unsigned char b : piece) {
      if (byteToId[b] >= 0)
        symbol.push_back(byteToId[b]);
      else if (unknown)
        symbol.push_back(*unknown);
    }
    const auto n = static_cast<std::int32_t>(symbol.size());
    std::vector<std::int32_t> next(n), previous(n);
    std::vector<bool> alive(n, true);
    for (std::int32_t i = 0; i < n; ++i)
      next[i] = i + 1 < n ? i + 1 : -1, previous[i] = i - 1;
    struct Candidate {
      std::int32_t rank, left, leftId, rightId;
      bool operator>(const Candidate &o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto consider = [&](std::int32_t left) {
      if (left < 0 || next[left] < 0)
        return;
      const std::int32_t right = next[left];
      const std::uint64_t key =
          (static_cast<std::uint64_t>(symbol[left]) << 32) | static_cast<std::uint32_t>(symbol[right]);
      if (auto it = merges.find(key); it != merges.end())
        queue.push({it->second.rank, left, symbol[left], symbol[right]});
    };
    for (std::int32_t i = 0; i + 1 < n; ++i)
      consider(i);
    while (!queue.empty()) {
      const Candidate top = queue.top();
      queue.pop();
      const std::int32_t right = alive[top.left] ? next[top.left] : -1;
      if (right < 0 || symbol[top.left] != top.leftId || symbol[right] != top.rightId)
        continue; // stale: one side merged since
      const std::uint64_t key =
          (static_cast<std::uint64_t>(top.leftId) << 32) | static_cast<std::uint32_t>(top.rightId);
      symbol[top.left] = merges.at(key).merged;
      alive[right] = false;
      next[top.left] = next[right];
      if (next[right] >= 0)
        previous[next[right]] = top.left;
      consider(previous[top.left]);
      consider(top.left);
    }
    for (std::int32_t i = 0; i < n; ++i)
      if (alive[i])
        ids.push_back(symbol[i]);
  }
  out.insert(out.end(), ids.begin(), ids.end());
  std::lock_guard lock(cacheMutex);
  if (cache.size() >= kCacheEntries)
    cache.clear();
  cache.emplace(piece, std::move(ids));
}

void Tokenizer::State::preTokenize(const std::string &segment, std::vector<std::int32_t> &out) const {
  // Pieces as ranges of one buffer; each step splits every piece further.
  const std::string text = prefixSpace && !segment.empty() && segment[0] != ' ' ? " " + segment : segment;
  std::vector<std::pair<std::size_t, std::size_t>> pieces{{0, text.size()}};
  for (const auto &step : preSteps) {
    if (!step.pattern)
      continue;
    std::vector<std::pair<std::size_t, std::size_t>> split;
    for (const auto &[begin, end] : pieces)
      step.pattern->split(text.data() + begin, end - begin,
                          [&](std::size_t b, std::size_t e, bool) { split.emplace_back(begin + b, begin + e); });
    pieces = std::move(split);
  }
  for (const auto &[begin, end] : pieces)
    if (end > begin)
      bytePiece(text.substr(begin, end - begin), out);
}

std::vector<std::int32_t> Tokenizer::encode(const std::string &text) const {
  const State &s = *state_;
  std::vector<std::int32_t> out;
  out.reserve(text.size() / 3 + 4);
  if (!s.addedPattern) {
    s.preTokenize(s.normalize(text), out);
    return out;
  }
  s.addedPattern->split(text.data(), text.size(), [&](std::size_t begin, std::size_t end, bool matched) {
    const std::string part = text.substr(begin, end - begin);
    if (matched)
      out.push_back(s.added.at(part));
    else
      s.preTokenize(s.normalize(part), out);
  });
  return out;
}

// ----------------------------------------------------------------- decoding

std::string Tokenizer::decode(const std::vector<std::int32_t> &ids, bool skipSpecial) const {
  const State &s = *state_;
  std::string out;
  for (std::int32_t id : ids) {
    if (auto added = s.addedById.find(id); added != s.addedById.end()) {
      if (!(skipSpecial && added->second.second))
        out += added->second.first;
      continue;
    }
    auto token = s.idToToken.find(id);
    if (token == s.idToToken.end())
      continue; // an id outside the vocabulary decodes to nothing
    const std::string &text = token->second;
    for (std::size_t i = 0; i < text.size();) {
      const std::uint32_t cp = nextCodePoint(text, i);
      auto byte = s.codePointToByte.find(cp);
      if (byte != s.codePointToByte.end())
        out += static_cast<char>(byte->second);
      else
        appendUtf8(out, cp); // not a byte-level character: as it is
    }
  }
  return out;
}

std::optional<std::int32_t> Tokenizer::tokenId(const std::string &token) const {
  if (auto it = state_->added.find(token); it != state_->added.end())
    return it->second;
  if (auto it = state_->vocab.find(token); it != state_->vocab.end())
    return it->second;
  return std::nullopt;
}

std::int64_t Tokenizer::vocabSize() const { return state_->size; }

bool Tokenizer::isSpecial(std::int32_t id) const {
  auto it = state_->addedById.find(id);
  return it != state_->addedById.end() && it->second.second;
}

bool Tokenizer::normalizerSkipped() const {
#ifdef CUDAPERF_HAVE_ICU
  return false;
#else
  return state_->nfc;
#endif
}

std::string Tokenizer::chatPrompt(const std::vector<ChatMessage> &messages, bool addGenerationPrompt) {
  std::string out;
  for (const auto &message : messages)
    out += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
  if (addGenerationPrompt)
    out += "<|im_start|>assistant\n";
  return out;
}

} // namespace cudaperf::trainer
