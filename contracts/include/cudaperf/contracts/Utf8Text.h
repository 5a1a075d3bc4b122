// Text that goes into the API's JSON answers. JSON is UTF-8 (RFC 8259), and
// strict parsers (Boost.JSON's, by default) refuse a whole answer for one
// bad byte, so every text that is not ours (a compiler's log cut to a
// length, a policy's completion) passes through here first.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cudaperf::contracts {

// The text with each byte of an invalid, overlong or surrogate sequence
// replaced by U+FFFD; valid UTF-8 comes back unchanged.
std::string validUtf8(std::string_view text);

// At most the last `maxBytes` bytes of the text, starting on a character
// boundary (a cut never splits a character), as valid UTF-8.
std::string utf8Tail(std::string_view text, std::size_t maxBytes);

// At most the first `maxBytes` bytes, ending on a character boundary.
std::string utf8Head(std::string_view text, std::size_t maxBytes);

} // namespace cudaperf::contracts
