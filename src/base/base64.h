// Base64 (RFC 4648): the standard alphabet with padding (§4) for CDP's binary payloads and
// image data, and base64url without padding (§5) for tokens that travel in URLs and headers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ouro {

enum class Base64 {
  Standard,  // A–Z a–z 0–9 + /, padded with '='
  Url,       // A–Z a–z 0–9 - _, no padding
};

std::string base64_encode(std::string_view bytes, Base64 alphabet = Base64::Standard);

// Lenient, for text a browser produced: skips characters outside the standard alphabet (line
// breaks, padding).
std::string base64_decode(std::string_view text);

// Strict, for text ouro must trust: the standard alphabet, a length that is a multiple of 4, '='
// only as the last one or two characters; nullopt otherwise.
std::optional<std::string> base64_decode_strict(std::string_view text);

}  // namespace ouro
