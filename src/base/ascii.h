// ASCII comparisons that ignore case, for protocol words (URL schemes, HTTP header names), which
// are ASCII by their specifications (RFC 3986 §3.1, RFC 9110 §5.1).
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace ouro {

// Whether s begins with prefix, ignoring ASCII case; prefix is written in lower case.
inline bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), s.begin(), [](char p, char c) { return p == std::tolower(static_cast<unsigned char>(c)); });
}

// Whether s equals word, ignoring ASCII case; word is written in lower case.
inline bool equals_nocase(std::string_view s, std::string_view word) { return s.size() == word.size() && starts_with_nocase(s, word); }

}  // namespace ouro
