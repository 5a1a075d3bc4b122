// Text cut to a length for a JSON answer: whatever the cut, the answer must
// parse (the GRPO run on the H200 died on a compile log whose 8000-byte tail
// began inside a character).
#include "cudaperf/contracts/Utf8Text.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>

using cudaperf::contracts::utf8Head;
using cudaperf::contracts::utf8Tail;
using cudaperf::contracts::validUtf8;

namespace {

bool parsesAsJsonString(const std::string &text) {
  boost::system::error_code error;
  const std::string document = "\"" + text + "\"";
  boost::json::parse(document, error);
  return !error;
}

const std::string kReplacement = "\xEF\xBF\xBD";

} // namespace

TEST(Utf8Text, ValidTextIsUnchanged) {
  for (const std::string text : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80!"})
    EXPECT_EQ(validUtf8(text), text);
}

TEST(Utf8Text, EachBadByteBecomesOneReplacement) {
  struct Case {
    std::string in, out;
  } cases[] = {
      {"a\xFF"
       "b",
       "a" + kReplacement + "b"},                                                      // never a lead byte
      {"\x80", kReplacement},                                                          // a lone continuation
      {"\xC3", kReplacement},                                                          // cut after the lead
      {"\xC0\xAF", kReplacement + kReplacement},                                       // overlong '/'
      {"\xED\xA0\x80", kReplacement + kReplacement + kReplacement},                    // a surrogate
      {"\xF4\x90\x80\x80", kReplacement + kReplacement + kReplacement + kReplacement}, // past U+10FFFF
  };
  for (const auto &c : cases)
    EXPECT_EQ(validUtf8(c.in), c.out) << c.in;
}

TEST(Utf8Text, CutsNeverSplitACharacter) {
  // Two-, three- and four-byte characters between ASCII: every cut length.
  const std::string text = "x\xC3\xA9y\xE2\x82\xACz\xF0\x9F\x98\x80w\xC3\xA9";
  for (std::size_t bytes = 0; bytes <= text.size() + 1; ++bytes) {
    const std::string tail = utf8Tail(text, bytes), head = utf8Head(text, bytes);
    EXPECT_LE(tail.size(), bytes);
    EXPECT_LE(head.size(), bytes);
    EXPECT_EQ(text.compare(text.size() - tail.size(), tail.size(), tail), 0) << "tail of " << bytes;
    EXPECT_EQ(text.compare(0, head.size(), head), 0) << "head of " << bytes;
    EXPECT_TRUE(parsesAsJsonString(tail)) << bytes;
    EXPECT_TRUE(parsesAsJsonString(head)) << bytes;
    // At most one character (four bytes) is lost to the boundary.
    EXPECT_GE(tail.size() + 3, std::min(bytes, text.size()));
    EXPECT_GE(head.size() + 3, std::min(bytes, text.size()));
  }
  // The byte cut that failed: a tail starting on the continuation byte of 'é'.
  EXPECT_FALSE(parsesAsJsonString(text.substr(text.size() - 1)));
  EXPECT_EQ(utf8Tail(text, 1), "");
}
