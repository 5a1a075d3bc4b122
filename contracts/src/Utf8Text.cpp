#include "cudaperf/contracts/Utf8Text.h"

#include <cstdint>

namespace cudaperf::contracts {

namespace {

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The length of the valid sequence that starts at text[i], or 0.
std::size_t validSequenceAt(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size())
    return 0;
  std::uint32_t cp = length == 1 ? c : c & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if (!isContinuation(text[i + k]))
      return 0;
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  }
  const std::uint32_t smallest = length == 1 ? 0 : length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
  const bool valid = cp >= smallest && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
  return valid ? length : 0;
}

} // namespace

std::string validUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t length = validSequenceAt(text, i)) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string utf8Tail(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes)
    return validUtf8(text);
  std::size_t start = text.size() - maxBytes;
  // Skip the continuation bytes of a character whose lead byte was cut off (at most three).
  for (int k = 0; k < 3 && start < text.size() && isContinuation(text[start]); ++k)
    ++start;
  return validUtf8(text.substr(start));
}

std::string utf8Head(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes)
    return validUtf8(text);
  std::size_t end = maxBytes;
  // Back up to the lead byte of the character the cut would split.
  for (int k = 0; k < 3 && end > 0 && isContinuation(text[end]); ++k)
    --end;
  return validUtf8(text.substr(0, end));
}

} // namespace cudaperf::contracts
