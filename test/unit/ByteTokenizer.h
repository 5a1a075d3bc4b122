// tokenizer.json of the tests' tiny models: ids 0..255 are the bytes (GPT-2's
// byte-to-unicode characters), no merges; with chat tokens, <|im_start|> is
// 256 and <|im_end|> 257. Written here, not by the tokenizer under test.
#pragma once

#include <boost/json.hpp>

#include <string>

inline std::string byteTokenizerJson(bool chatTokens) {
  boost::json::object vocab;
  int shifted = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    const int cp = printable ? b : 256 + shifted++;
    std::string s;
    if (cp < 0x80)
      s += static_cast<char>(cp);
    else
      s += static_cast<char>(0xC0 | (cp >> 6)), s += static_cast<char>(0x80 | (cp & 0x3F));
    vocab[s] = b;
  }
  boost::json::array added;
  if (chatTokens)
    added = {boost::json::object{{"id", 256}, {"content", "<|im_start|>"}, {"special", true}},
             boost::json::object{{"id", 257}, {"content", "<|im_end|>"}, {"special", true}}};
  return boost::json::serialize(boost::json::object{
      {"model", boost::json::object{{"type", "BPE"}, {"vocab", vocab}, {"merges", boost::json::array{}}}},
      {"added_tokens", added},
      {"pre_tokenizer", boost::json::object{{"type", "ByteLevel"}, {"use_regex", true}}}});
}
