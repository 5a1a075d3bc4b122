// The byte-level BPE tokenizer on vocabularies built here: ids known by hand,
// pieces that merges must not cross (the Qwen2 split pattern), added tokens,
// Unicode and bytes that are not UTF-8, and the config reader.
#include "cudaperf/trainer/Tokenizer.h"
#include "cudaperf/trainer/ModelConfig.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>

using namespace cudaperf::trainer;
namespace json = boost::json;

namespace {

constexpr const char *kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// GPT-2's byte -> character map, written independently of the tokenizer's.
std::string byteCharacter(int b) {
  static std::vector<std::string> table = [] {
    std::vector<int> printable;
    for (int c = '!'; c <= '~'; ++c)
      printable.push_back(c);
    for (int c = 0xA1; c <= 0xAC; ++c)
      printable.push_back(c);
    for (int c = 0xAE; c <= 0xFF; ++c)
      printable.push_back(c);
    std::vector<int> codePoint(256, -1);
    for (int c : printable)
      codePoint[c] = c;
    int extra = 0;
    for (int c = 0; c < 256; ++c)
      if (codePoint[c] < 0)
        codePoint[c] = 256 + extra++;
    std::vector<std::string> out;
    for (int cp : codePoint) {
      std::string s;
      if (cp < 0x80) {
        s += static_cast<char>(cp);
      } else {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
      }
      out.push_back(s);
    }
    return out;
  }();
  return table[b];
}

// Ids 0..255: the bytes in byte order; then one id per merge, in rank order.
struct VocabularyBuilder {
  json::object vocab;
  json::array merges;
  json::array added;
  std::int64_t next = 256;
  std::string normalizer = "null";

  VocabularyBuilder() {
    for (int b = 0; b < 256; ++b)
      vocab[byteCharacter(b)] = b;
  }
  // Merge of two existing tokens (byte-level text); returns the new id.
  std::int64_t merge(const std::string &left, const std::string &right) {
    merges.push_back(json::value(left + " " + right));
    vocab[left + right] = next;
    return next++;
  }
  std::int64_t addToken(const std::string &content, bool special) {
    added.push_back(json::object{{"id", next}, {"content", content}, {"special", special}});
    return next++;
  }
  Tokenizer build() const {
    json::object root;
    root["model"] = json::object{{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}};
    root["added_tokens"] = added;
    root["normalizer"] = normalizer == "null" ? json::value(nullptr) : json::value(json::object{{"type", normalizer}});
    root["pre_tokenizer"] = json::object{
        {"type", "Sequence"},
        {"pretokenizers",
         json::array{json::object{{"type", "Split"},
                                  {"pattern", json::object{{"Regex", kQwen2Pattern}}},
                                  {"behavior", "Isolated"},
                                  {"invert", false}},
                     json::object{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    root["decoder"] = json::object{{"type", "ByteLevel"}};
    return Tokenizer::fromJsonText(json::serialize(root), "test tokenizer.json");
  }
};

const std::string kSpace = byteCharacter(' '); // "Ġ"

std::vector<std::int32_t> bytesOf(const std::string &text) {
  std::vector<std::int32_t> out;
  for (unsigned char c : text)
    out.push_back(c);
  return out;
}

TEST(TokenizerTest, MergesByRankGiveTheIdsComputedByHand) {
  VocabularyBuilder v;
  const auto ab = v.merge("a", "b");           // 256
  const auto abc = v.merge("ab", "c");         // 257
  const auto sa = v.merge(kSpace, "a");        // 258: " a"
  const auto bc = v.merge("b", "c");           // 259: ranked after ab, so "abc" never uses it
  const auto sab = v.merge(kSpace + "a", "b"); // 260
  const Tokenizer t = v.build();
  EXPECT_EQ(t.encode("abc"), (std::vector<std::int32_t>{static_cast<int>(abc)}));
  EXPECT_EQ(t.encode("bc"), (std::vector<std::int32_t>{static_cast<int>(bc)}));
  // " abd": the space joins the word (Qwen2 pattern); a+b (rank 0) goes first, after
  // which no merge joins the space to "ab": " a"+"b" never gets its turn.
  EXPECT_EQ(t.encode("x abd"), (std::vector<std::int32_t>{'x', ' ', static_cast<int>(ab), 'd'}));
  // " ad": a+b cannot apply, so " a" (rank 2) does.
  EXPECT_EQ(t.encode(" ad"), (std::vector<std::int32_t>{static_cast<int>(sa), 'd'}));
  EXPECT_EQ(t.encode(" a"), (std::vector<std::int32_t>{static_cast<int>(sa)}));
  EXPECT_EQ(t.encode("ab"), (std::vector<std::int32_t>{static_cast<int>(ab)}));
  EXPECT_EQ(t.decode({static_cast<int>(abc), static_cast<int>(sab)}), "abc ab");
  EXPECT_EQ(t.tokenId(kSpace + "ab"), sab);
}

TEST(TokenizerTest, MergesNeverCrossThePiecesOfTheSplitPattern) {
  VocabularyBuilder v;
  const auto aSpace = v.merge("a", kSpace);
  const auto twoSpaces = v.merge(kSpace, kSpace);
  const auto oneTwo = v.merge("1", "2");
  const auto iT = v.merge("I", "T");
  const Tokenizer t = v.build();
  // "a" and " b" are separate pieces: the merge a+space must not apply.
  for (auto id : t.encode("a b"))
    EXPECT_NE(id, aSpace);
  // Whitespace run: \s+(?!\S) takes all but the last space, which joins "b".
  EXPECT_EQ(t.encode("a   b"), (std::vector<std::int32_t>{'a', static_cast<int>(twoSpaces), ' ', 'b'}));
  // Digits one by one (\p{N}): "12" is never the merged token.
  EXPECT_EQ(t.encode("12"), (std::vector<std::int32_t>{'1', '2'}));
  EXPECT_NE(oneTwo, 0);
  // Contractions are their own pieces, case-insensitively.
  EXPECT_EQ(t.encode("IT'S"), (std::vector<std::int32_t>{static_cast<int>(iT), '\'', 'S'}));
  // Newlines: "\n\n" after code is one piece of raw bytes here (no merge for it).
  EXPECT_EQ(t.encode("x;\n\n"), (std::vector<std::int32_t>{'x', ';', '\n', '\n'}));
}

TEST(TokenizerTest, AddedTokensAreMatchedFirstLongestFirst) {
  VocabularyBuilder v;
  const auto start = v.addToken("<|im_start|>", true);
  const auto end = v.addToken("<|im_end|>", true);
  const auto tok = v.addToken("<tok>", false);
  const auto tokLonger = v.addToken("<tok>x", false);
  const Tokenizer t = v.build();
  const auto ids = t.encode("<|im_start|>user\nhi<|im_end|>");
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids.front(), start);
  EXPECT_EQ(ids.back(), end);
  EXPECT_EQ(std::vector<std::int32_t>(ids.begin() + 1, ids.end() - 1), bytesOf("user\nhi"));
  // Inside a word, and the longer of two added tokens sharing a prefix.
  EXPECT_EQ(t.encode("ab<tok>xcd"), (std::vector<std::int32_t>{'a', 'b', static_cast<int>(tokLonger), 'c', 'd'}));
  EXPECT_EQ(t.encode("<tok>y"), (std::vector<std::int32_t>{static_cast<int>(tok), 'y'}));
  EXPECT_TRUE(t.isSpecial(static_cast<int>(start)));
  EXPECT_FALSE(t.isSpecial(static_cast<int>(tok)));
  EXPECT_EQ(t.decode(ids, true), "user\nhi");
  EXPECT_EQ(t.decode(ids, false), "<|im_start|>user\nhi<|im_end|>");
  EXPECT_EQ(t.tokenId("<|im_end|>"), end);
  EXPECT_EQ(t.vocabSize(), tokLonger + 1);
}

TEST(TokenizerTest, UnicodeAndRawBytesRoundTrip) {
  VocabularyBuilder v;
  v.merge(byteCharacter(0xE6), byteCharacter(0xA0)); // half of a CJK character: merges see bytes
  v.merge(kSpace, kSpace);
  const Tokenizer t = v.build();
  const std::string texts[] = {
      "// 核函数: 每个线程处理一个元素\n__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }",
      "printf(\"🚀 done 👍🏽\\n\");",
      "e\xCC\x81 vs \xC3\xA9 (combining acute vs precomposed)",
      "tabs\t\tand    spaces\r\n\r\n   trailing   ",
      std::string("bytes \xFF\xFE not UTF-8 \xC3 (cut)"),
      "",
  };
  for (const auto &text : texts)
    EXPECT_EQ(t.decode(t.encode(text)), text) << text;
  // Every byte of a non-UTF-8 string survives as its own byte token.
  EXPECT_EQ(t.encode("\xFF"), (std::vector<std::int32_t>{0xFF}));
}

TEST(TokenizerTest, NfcNormalizerComposesWhenIcuIsThere) {
  VocabularyBuilder v;
  v.normalizer = "NFC";
  const Tokenizer t = v.build();
  if (t.normalizerSkipped())
    GTEST_SKIP() << "built without ICU";
  EXPECT_EQ(t.encode("e\xCC\x81"), t.encode("\xC3\xA9"));
}

TEST(TokenizerTest, LongPiecesAreMergedCorrectly) {
  VocabularyBuilder v;
  const auto aa = v.merge("a", "a");
  const auto aaaa = v.merge("aa", "aa");
  const Tokenizer t = v.build();
  // 4097 a's: 1024 "aaaa" then one "a" (leftmost first at equal rank).
  const auto ids = t.encode(std::string(4097, 'a'));
  ASSERT_EQ(ids.size(), 1025u);
  EXPECT_EQ(ids.front(), aaaa);
  EXPECT_EQ(ids.back(), 'a');
  EXPECT_EQ(t.encode("aaa"), (std::vector<std::int32_t>{static_cast<int>(aa), 'a'}));
}

TEST(TokenizerTest, RefusesWhatItCannotRun) {
  EXPECT_THROW(Tokenizer::fromJsonText("{", "x"), std::runtime_error);
  EXPECT_THROW(Tokenizer::fromJsonText(R"({"model":{"type":"Unigram","vocab":[]}})", "x"), std::runtime_error);
  // A merge naming an unknown token.
  try {
    Tokenizer::fromJsonText(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":["a q"]},)"
                            R"("pre_tokenizer":{"type":"ByteLevel"}})",
                            "folder/tokenizer.json");
    FAIL();
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("folder/tokenizer.json: merge 0"), std::string::npos) << error.what();
  }
}

TEST(TokenizerTest, OptionsItDoesNotImplementAreRefusedNotIgnored) {
  VocabularyBuilder v;
  v.added.push_back(boost::json::object{{"id", 300}, {"content", "<mask>"}, {"special", true}, {"lstrip", true}});
  try {
    v.build();
    FAIL() << "lstrip must be refused";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find("added token '<mask>': lstrip"), std::string::npos) << error.what();
  }
  EXPECT_THROW(Tokenizer::fromJsonText(R"({"model":{"type":"BPE","vocab":{},"merges":[],"byte_fallback":true},)"
                                       R"("pre_tokenizer":{"type":"ByteLevel"}})",
                                       "x"),
               std::runtime_error);
}

TEST(TokenizerTest, ChatTemplateIsChatMl) {
  EXPECT_EQ(Tokenizer::chatPrompt({{"system", "S"}, {"user", "write a kernel"}}),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nwrite a kernel<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(Tokenizer::chatPrompt({{"user", "u"}}, false), "<|im_start|>user\nu<|im_end|>\n");
}

// ------------------------------------------------------------------ config

TEST(ModelConfigTest, ReadsQwen3AndTransformers5RopeParameters) {
  const auto config = ModelConfig::fromJsonText(
      R"({"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":151936,"hidden_size":4096,)"
      R"("intermediate_size":12288,"num_hidden_layers":36,"num_attention_heads":32,"num_key_value_heads":8,)"
      R"("head_dim":128,"rms_norm_eps":1e-06,"rope_parameters":{"rope_theta":1000000.0,"rope_type":"default"},)"
      R"("tie_word_embeddings":false,"eos_token_id":[151645,151643],"dtype":"bfloat16"})",
      "config.json");
  EXPECT_EQ(config.family, ModelFamily::Qwen3);
  EXPECT_TRUE(config.qkNorm);
  EXPECT_FALSE(config.qkvBias);
  EXPECT_EQ(config.headDim, 128);
  EXPECT_DOUBLE_EQ(config.ropeTheta, 1e6);
  EXPECT_EQ(config.eosTokenIds, (std::vector<std::int64_t>{151645, 151643}));
  EXPECT_EQ(config.dtype, "bfloat16");
  // Round trip through our writer.
  const auto again = ModelConfig::fromJsonText(config.toJsonText(), "written");
  EXPECT_EQ(again.kvHeads, 8);
  EXPECT_EQ(again.family, ModelFamily::Qwen3);
  EXPECT_EQ(again.eosTokenIds, config.eosTokenIds);
}

TEST(ModelConfigTest, Llama3RopeScalingByHand) {
  const auto config = ModelConfig::fromJsonText(
      R"({"model_type":"llama","vocab_size":10,"hidden_size":16,"intermediate_size":32,"num_hidden_layers":1,)"
      R"("num_attention_heads":2,"rope_theta":500000.0,"rope_scaling":{"rope_type":"llama3","factor":8.0,)"
      R"("low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192}})",
      "config.json");
  const auto inverse = config.inverseFrequencies(); // head_dim 8: 4 frequencies
  ASSERT_EQ(inverse.size(), 4u);
  const double pi = std::acos(-1.0);
  for (int i = 0; i < 4; ++i) {
    const double base = 1.0 / std::pow(500000.0, 2.0 * i / 8.0);
    const double wavelength = 2 * pi / base;
    double expected = base;
    if (wavelength > 8192.0)
      expected = base / 8;
    else if (wavelength >= 8192.0 / 4) {
      const double smooth = (8192.0 / wavelength - 1) / 3;
      expected = (1 - smooth) * base / 8 + smooth * base;
    }
    EXPECT_NEAR(inverse[i], expected, 1e-6 * expected) << i;
  }
  // i = 0 is high frequency (kept), i = 3 (wavelength ~ 2*pi*18800) low (divided by 8).
  EXPECT_NEAR(inverse[0], 1.0, 1e-7);
  EXPECT_NEAR(inverse[3], 1.0 / std::pow(500000.0, 0.75) / 8, 1e-11);
}

TEST(ModelConfigTest, ErrorsNameTheFieldAndTheFile) {
  auto errorOf = [](const std::string &text) {
    try {
      ModelConfig::fromJsonText(text, "m/config.json");
    } catch (const std::runtime_error &error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(errorOf(R"({"model_type":"gpt2"})").find("m/config.json: model_type 'gpt2'"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"llama","vocab_size":10})").find("hidden_size"), std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"qwen2","vocab_size":10,"hidden_size":12,"intermediate_size":8,)"
                    R"("num_hidden_layers":1,"num_attention_heads":3,"num_key_value_heads":2})")
                .find("not a multiple"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"model_type":"llama","vocab_size":10,"hidden_size":16,"intermediate_size":8,)"
                    R"("num_hidden_layers":1,"num_attention_heads":2,"rope_scaling":{"rope_type":"yarn","factor":4}})")
                .find("yarn"),
            std::string::npos);
}

} // namespace
