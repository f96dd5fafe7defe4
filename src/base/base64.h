// Base64 (RFC 4648, standard alphabet, with padding), for CDP's binary payloads.
#pragma once

#include <string>
#include <string_view>

namespace ouro {

std::string base64_encode(std::string_view bytes);
// Skips characters outside the alphabet (line breaks, padding).
std::string base64_decode(std::string_view text);

}  // namespace ouro
